package pay_test

import (
	"context"
	"io"
	"math/big"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/termsgate/termsgate/pay"
)

// BenchmarkPayRoundTrip is one paid GET over keep-alive loopback TLS: the
// request, the 402, the ATR fetch (vectors' A, 138 bytes), the policy, the
// signature, the paid retry verified by the seller (signature recovered,
// nonce = H) and its 200. The seller runs in the same process, so its
// verification is inside the figure.
func BenchmarkPayRoundTrip(b *testing.B) {
	e := newEnv(b, nil)
	e.noSeen = true
	url := e.seller.ResourceURL()
	// Warm the connections and the TLS sessions.
	if resp, _, err := get(b, e.client, url); err != nil || resp.StatusCode != 200 {
		b.Fatalf("%v %v", err, resp)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		resp, err := e.client.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	b.StopTimer()
	if n := e.seller.Rejected.Load(); n != 0 {
		b.Fatalf("%d payments rejected", n)
	}
}

// BenchmarkLoopbackGet is the floor under BenchmarkPayRoundTrip: one plain
// GET of the ATR over the same keep-alive loopback TLS connection. A paid
// round trip makes three such exchanges (the 402, the ATR, the paid retry).
func BenchmarkLoopbackGet(b *testing.B) {
	e := newEnv(b, nil)
	e.noSeen = true
	c := &http.Client{Transport: e.base}
	url := "https://" + e.seller.ATRHost + "/" + e.seller.Hash().String()
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// BenchmarkPayRoundTripMPP is BenchmarkPayRoundTrip for an MPP seller
// (internal/mppseller, 1 pathUSD on Tempo Moderato, the same 138-byte A): the
// request, the 402 with its WWW-Authenticate challenge, the ATR fetch, the
// policy, the signed Tempo transaction (RLP, keccak, secp256k1), the retry
// with Authorization: Payment verified by the seller (the transaction
// decoded, its memo, amount, payee and chain checked, the sender
// recovered) and its 200 with Payment-Receipt.
func BenchmarkPayRoundTripMPP(b *testing.B) {
	e := newMPPEnv(b, nil)
	e.noSeen = true
	url := e.seller.ResourceURL()
	if resp, _, err := get(b, e.client, url); err != nil || resp.StatusCode != 200 {
		b.Fatalf("%v %v (seller: %v)", err, resp, e.seller.LastRejection())
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		resp, err := e.client.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	b.StopTimer()
	if n := e.seller.Rejected.Load(); n != 0 {
		b.Fatalf("%d payments rejected", n)
	}
}

// BenchmarkPolicyAllowCommit is what a Policy adds to one payment: the
// summary of an EIP-3009 request read by its pairing, every check, and a
// budget reservation committed.
func BenchmarkPolicyAllowCommit(b *testing.B) {
	p, err := pay.NewPolicy(pay.PolicyConfig{
		Now:    func() time.Time { return policyNow },
		Limits: []pay.Limit{{Network: network, Asset: usdc, MaxAmount: big.NewInt(10000), Budget: new(big.Int).Lsh(big.NewInt(1), 200)}},
		Payees: []string{payee},
	})
	if err != nil {
		b.Fatal(err)
	}
	ps := defaultTransfer()
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		if err := p.Allow(ctx, ps); err != nil {
			b.Fatal(err)
		}
		p.Commit(ctx, ps)
	} // The machine is shared: CPU time per operation says what the code
	// costs when wall time also counts waiting for a core.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's user and system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
