package polkadot_test

import (
	"context"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/polkadot"
	"github.com/termsgate/termsgate/signer"
)

// BenchmarkPolkadotBuildSignFinish: x402/exact/polkadot/lcp-assets-remark
// with the ATR in hand: the request, the wallet's extrinsic (inputs from an
// in-memory node, the signing payload, Ed25519, the extrinsic encoded),
// then gate.Finish (rebuild the call, read the answer, check the suffix,
// signer, extra, genesis and the signature, read H back).
func BenchmarkPolkadotBuildSignFinish(b *testing.B) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	s, err := signer.PolkadotFromSeed(signer.PolkadotDevSeed, network, chain{inputs()})
	if err != nil {
		b.Fatal(err)
	}
	p := polkadot.Exact{}
	read, err := p.Read(doc(h))
	if err != nil {
		b.Fatal(err)
	}
	choice, err := p.Choose(read, s.Account(), nil, time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC).Unix(), "")
	if err != nil {
		b.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: polkadot.ExactID, Choice: choice, Ref: rails.NewRef()}
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
		if _, err := g.Finish(atrBytes, polkadot.ExactID, chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
