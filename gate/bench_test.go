package gate_test

import (
	"context"
	"encoding/hex"
	"flag"
	"math/big"
	"net/http"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// The vectors' 138-byte ATR A (buyer.json).
var atrA, _ = hex.DecodeString("7b2261747256657273696f6e223a2231222c226964223a2230663866616435622d643963622d343639662d613136352d373038363737323839353065222c2278343032223a7b227a223a312e302c2261223a226361665c7530306539227d2c2273656c6c6572223a7b226e6f7465223a22436166c3a920e280942033302064c3ad617320e29c93227d7d")

type bench struct {
	g      *gate.Gate
	doc    *jsonv.Object
	signer gate.Signer
	bytes  []byte
}

// newBench serves body at the link of a document advertising its hash, over
// keep-alive loopback TLS.
func newBench(b testing.TB, body []byte) *bench {
	b.Helper()
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	}))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	h := atr.Sum(body)
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://api.seller.example/v1/quote"),
		"accepts", []jsonv.Value{jsonv.Obj("scheme", "exact", "network", "eip155:84532", "amount", "10000",
			"asset", "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "payTo", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
			"maxTimeoutSeconds", 60, "extra", jsonv.Obj("name", "USDC", "version", "2"))})
	doc, err = x402.Advertise(doc, h, "https://atr.seller.example/"+h.String(), "")
	if err != nil {
		b.Fatal(err)
	}
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	return &bench{
		g:   &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}, Now: func() time.Time { return time.Unix(1790000000, 0) }},
		doc: doc, signer: l, bytes: body,
	}
}

// benchPolicy (go test -bench TransactEIP3009 -args -bench.policy) runs the
// benchmark with a spend policy: per-payment maximum, payee list, payable
// ceiling and an in-memory budget reserved and committed on every payment.
var benchPolicy = flag.Bool("bench.policy", false, "run BenchmarkTransactEIP3009 with a pay.Policy")

func benchmarkTransact(b *testing.B, body []byte) {
	bb := newBench(b, body)
	if *benchPolicy {
		p, err := pay.NewPolicy(pay.PolicyConfig{
			Now:    bb.g.Now,
			Limits: []pay.Limit{{Network: "eip155:84532", Asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", MaxAmount: big.NewInt(10000), Budget: new(big.Int).Lsh(big.NewInt(1), 200)}},
			Payees: []string{"0x209693Bc6afc0C5328bA36FaF03C514EF312287C"},
		})
		if err != nil {
			b.Fatal(err)
		}
		bb.g.Policy = p
	}
	ctx := context.Background()
	if _, err := bb.g.Transact(ctx, bb.doc, evm.ExactEIP3009ID, bb.signer, nil); err != nil {
		b.Fatal(err) // also warms the keep-alive connection
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		if _, err := bb.g.Transact(ctx, bb.doc, evm.ExactEIP3009ID, bb.signer, nil); err != nil {
			b.Fatal(err)
		}
	} // The machine is shared: CPU time per operation says what the code
	// costs when wall time also counts waiting for a core.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkTransactEIP3009 is the whole gate: read, choose, fetch over TLS,
// hash, build, sign with a real key, complete, read H back.
func BenchmarkTransactEIP3009(b *testing.B) {
	b.Run("atr=138B", func(b *testing.B) { benchmarkTransact(b, atrA) })
	big := make([]byte, atr.MaxBytes)
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	b.Run("atr=1MiB", func(b *testing.B) { benchmarkTransact(b, big) })
}

func BenchmarkConfirm(b *testing.B) {
	bb := newBench(b, atrA)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bb.g.Confirm(ctx, bb.doc, evm.ExactEIP3009ID, bb.signer.Account(), nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFinish(b *testing.B) {
	bb := newBench(b, atrA)
	ctx := context.Background()
	c, err := bb.g.Confirm(ctx, bb.doc, evm.ExactEIP3009ID, bb.signer.Account(), nil)
	if err != nil {
		b.Fatal(err)
	}
	sig, err := bb.signer.Sign(ctx, c.Request)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bb.g.Finish(c.Bytes, evm.ExactEIP3009ID, c.Chosen, sig); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuTime is the process's user and system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
