package near_test

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/near"
	"github.com/termsgate/termsgate/signer"
)

// BenchmarkNearBuildSignFinish: x402/exact/near with the ATR in hand:
// build the delegate action (the ft_transfer with H's LCP memo) and its
// NEP-461 hash, sign it with the local Ed25519 key (which reads the action
// first), then gate.Finish (rebuild, verify the signature, write the signed
// delegate action, decode it again, read H back).
func BenchmarkNearBuildSignFinish(b *testing.B) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	option := jsonv.Obj("scheme", "exact", "network", "near:testnet", "amount", "1000000", "asset", "usdc.testnet",
		"payTo", "merchant.testnet", "maxTimeoutSeconds", 60)
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{option},
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info", jsonv.Obj("type", "sha256", "value", h.String(),
			"legalContextUrl", "https://atr.seller.example/"+h.String()))))
	s, err := signer.NearFromSeed(signer.NearDevSeed, "near:testnet", "")
	if err != nil {
		b.Fatal(err)
	}
	p := near.Exact{}
	read, err := p.Read(doc)
	if err != nil {
		b.Fatal(err)
	}
	inputs := jsonv.Obj("publicKey", s.PublicKey(), "accessKeyNonce", "100", "finalHeight", "200000000")
	choice, err := p.Choose(read, s.Account(), inputs, 1_800_000_000, "")
	if err != nil {
		b.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: near.ExactID, Choice: choice, Ref: rails.NewRef()}
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
		if _, err := g.Finish(atrBytes, near.ExactID, chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
