package casper_test

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/casper"
	"github.com/termsgate/termsgate/signer"
)

func benchDoc(h atr.Hash) *jsonv.Object {
	option := jsonv.Obj("scheme", "exact", "network", "casper:casper-test", "amount", "7500000000",
		"asset", "17be3c3dc67ddf193b8f64bfc2421826407470f88b3dab68184ebffebdd57f59",
		"payTo", "007a9f9948cb7b258d18f3c5e85780372971b5b40096e724c9e596c284a01445fa", "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("name", "Casper X402 Token", "version", "1"))
	return jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{option},
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info", jsonv.Obj("type", "sha256", "value", h.String(),
			"legalContextUrl", "https://atr.seller.example/"+h.String()))))
}

// BenchmarkCasperBuildSignFinish: x402/exact/casper with the ATR in hand:
// build the CEP-3009 authorization and its EIP-712 digest, sign it with the
// local Ed25519 key (which reads the typed data and checks the digest
// first), then gate.Finish (rebuild, check the key is the payer's and the
// signature verifies over the digest, write the payment, read H back).
func BenchmarkCasperBuildSignFinish(b *testing.B) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	s, err := signer.CasperFromSeed(signer.CasperDevSeed, "casper:casper-test", nil)
	if err != nil {
		b.Fatal(err)
	}
	p := casper.Exact{}
	read, err := p.Read(benchDoc(h))
	if err != nil {
		b.Fatal(err)
	}
	choice, err := p.Choose(read, s.Account(), nil, 1_800_000_000, "")
	if err != nil {
		b.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: casper.ExactID, Choice: choice, Ref: rails.NewRef()}
	g := &gate.Gate{}
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cost.CPU()
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
		if _, err := g.Finish(atrBytes, casper.ExactID, chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
