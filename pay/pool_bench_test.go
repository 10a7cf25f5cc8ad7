package pay_test

import (
	"bytes"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/termsgatetest"
)

// shippedSeller is a termsgatetest x402 seller and a paying client for it
// on the shipped defaults (shippedClient).
func shippedSeller(b *testing.B) (*termsgatetest.Seller, *http.Client) {
	b.Helper()
	seller, err := termsgatetest.Start(termsgatetest.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(seller.Close)
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(seller.CertificatePEM()) {
		b.Fatal("the seller's certificate does not read")
	}
	client, _ := shippedClient(b, roots, nil)
	return seller, client
}

// BenchmarkPaySerial is one payer paying a termsgatetest seller in the same
// process, one payment after the other, on the shipped defaults: the GET,
// its 402, the ATR, the policy, the signature, the paid GET verified by the
// seller. It is the floor BenchmarkPayParallel is read against.
func BenchmarkPaySerial(b *testing.B) { benchPayers(b, 1) }

// BenchmarkPayParallel is BenchmarkPaySerial with 64 payers sharing one
// client: ns/op is wall time over all payments, so serial ns/op divided by
// this one is the speed-up concurrency buys on the machine's cores.
func BenchmarkPayParallel(b *testing.B) { benchPayers(b, 64) }

func benchPayers(b *testing.B, payers int) {
	seller, client := shippedSeller(b)
	// Every payer's connections opened first, as in a payer that has
	// been running: the figure is the steady state, not the handshakes.
	payConcurrently(b, client, seller.URL, payers, 2)
	b.ReportAllocs()
	var next atomic.Int64
	var wg sync.WaitGroup
	start, cpu0 := time.Now(), cpuTime()
	b.ResetTimer()
	n := int64(b.N)
	for range payers {
		wg.Go(func() {
			for next.Add(1) <= n {
				if _, err := payOnce(client, seller.URL); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "payments/s")
	// On a shared machine wall time also counts waiting for a core.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	if c := seller.Counts(); c.Rejected != 0 {
		b.Fatalf("%d payments rejected (%v)", c.Rejected, seller.LastRejection())
	}
}

// BenchmarkPayConcurrency is how a payment's cost grows with the payers
// sharing one client on the shipped defaults: ns/op is wall time over all
// payments, cpu-ns/op the process's CPU per payment.
func BenchmarkPayConcurrency(b *testing.B) {
	for _, payers := range []int{1, 4, 16, 64, 256} {
		b.Run("payers="+strconv.Itoa(payers), func(b *testing.B) { benchPayers(b, payers) })
	}
}

// BenchmarkPayATRSize is a repeat payment as the terms grow, with the
// Transport's cache (the terms copied out of it) and without (fetched,
// hashed as they arrive, compared), over keep-alive loopback TLS.
func BenchmarkPayATRSize(b *testing.B) {
	for _, size := range []int{138, 64 << 10, atr.MaxBytes} {
		terms := bytes.Repeat([]byte{'t'}, size)
		for _, cached := range []bool{true, false} {
			name := fmt.Sprintf("atr=%dB/cache=%v", size, cached)
			b.Run(name, func(b *testing.B) {
				seller, err := termsgatetest.Start(termsgatetest.Config{ATR: terms})
				if err != nil {
					b.Fatal(err)
				}
				defer seller.Close()
				roots := x509.NewCertPool()
				roots.AppendCertsFromPEM(seller.CertificatePEM())
				client, _ := shippedClient(b, roots, nil)
				client.Transport.(*pay.Transport).NoATRCache = !cached
				if _, err := payOnce(client, seller.URL); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(size))
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					if _, err := payOnce(client, seller.URL); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkGetSerial and BenchmarkGetParallel are the pool ratio's floor:
// plain GETs of the seller's terms on the shipped paying transport, by one
// getter and by 64, with nothing paid. The ratio they show is what the
// machine lets concurrency buy at all, payments aside.
func BenchmarkGetSerial(b *testing.B) { benchGetters(b, 1) }

// BenchmarkGetParallel: see BenchmarkGetSerial.
func BenchmarkGetParallel(b *testing.B) { benchGetters(b, 64) }

func benchGetters(b *testing.B, getters int) {
	seller, client := shippedSeller(b)
	plain := &http.Client{Transport: client.Transport.(*pay.Transport).Base}
	link := seller.ATRLink()
	get := func() error {
		resp, err := plain.Get(link)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil
	}
	var wg sync.WaitGroup
	for range getters { // every getter's connection opened first
		wg.Go(func() { _ = get() })
	}
	wg.Wait()
	b.ReportAllocs()
	var next atomic.Int64
	n := int64(b.N)
	start, cpu0 := time.Now(), cpuTime()
	b.ResetTimer()
	for range getters {
		wg.Go(func() {
			for next.Add(1) <= n {
				if err := get(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "gets/s")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}
