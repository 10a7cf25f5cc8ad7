package starknet_test

import (
	"context"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/starknet"
	"github.com/termsgate/termsgate/signer"
)

// BenchmarkStarknetBuildSignFinish: x402/exact/starknet with the ATR in
// hand: the build and request, the local key's signature (SNIP-12 hash
// and Stark-curve ECDSA; no node), then gate.Finish (rebuild, complete,
// read H back from the signed nonce and the echoed legal context).
func BenchmarkStarknetBuildSignFinish(b *testing.B) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	option := jsonv.Obj("scheme", "exact", "network", "starknet:SN_SEPOLIA", "amount", "10000",
		"asset", "0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d",
		"payTo", "0x2dd1b492765c064eac4039e3841aa5f382773b598097a40073bd8b48170ab57", "maxTimeoutSeconds", 300,
		"extra", jsonv.Obj("feePayer", "0x5f2e02acd59f37f1e19da7ea1db6bf31d49e6e5ba66a7f1c2f0e2ba1be36f81"))
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{option},
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info", jsonv.Obj("type", "sha256", "value", h.String(),
			"legalContextUrl", "https://atr.seller.example/"+h.String()))))
	s, err := signer.NewStarknet(signer.StarknetDevKey, signer.StarknetDevAccount, "starknet:SN_SEPOLIA", nil)
	if err != nil {
		b.Fatal(err)
	}
	p := starknet.Exact{}
	read, err := p.Read(doc)
	if err != nil {
		b.Fatal(err)
	}
	choice, err := p.Choose(read, s.Account(), nil, time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC).Unix(), "")
	if err != nil {
		b.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: starknet.ExactID, Choice: choice, Ref: rails.NewRef()}
	g := &gate.Gate{Pairings: rails.NewRegistry(p)}
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
		if _, err := g.Finish(atrBytes, starknet.ExactID, chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
