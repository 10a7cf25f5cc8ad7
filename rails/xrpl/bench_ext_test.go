package xrpl_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/xrpl"
	"github.com/termsgate/termsgate/signer"
)

// BenchmarkXRPLBuildSignFinish is x402/exact/xrpl with the ATR in hand:
// build the Payment with H as its InvoiceID, sign it with the local Ed25519
// key (serialize, sign, encode), then the gate's Finish: rebuild, decode
// the signed blob canonically, check it is the built Payment and its
// signature verifies, wrap the payment, read H back.
func BenchmarkXRPLBuildSignFinish(b *testing.B) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	option := jsonv.Obj("scheme", "exact", "network", "xrpl:1", "amount", "1000000", "asset", "XRP",
		"payTo", "rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN", "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("areFeesSponsored", false, "invoiceId", mpp.LegalContextValue(h)))
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{option},
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info", jsonv.Obj("type", "sha256", "value", h.String(),
			"legalContextUrl", "https://atr.seller.example/"+h.String()))))
	s, _ := signer.XRPLDev("xrpl:1")
	p := xrpl.Exact{}
	read, err := p.Read(doc)
	if err != nil {
		b.Fatal(err)
	}
	choice, err := p.Choose(read, s.Account(), jsonv.Obj("fee", "12", "sequence", 7, "lastLedgerSequence", 1000), 0, "")
	if err != nil {
		b.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: xrpl.ExactID, Choice: choice, Ref: rails.NewRef()}
	g := &gate.Gate{}
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		u, err := p.Build(choice, atrBytes, h)
		if err != nil {
			b.Fatal(err)
		}
		req, _ := p.Request(u)
		answer, err := s.Sign(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := g.Finish(atrBytes, xrpl.ExactID, chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's user and system CPU time. On the shared machine
// (load far above its two cores) wall time per op mostly measures waiting
// for a core; CPU time per op is what the work costs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
