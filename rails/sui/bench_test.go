package sui_test

import (
	"context"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/sui"
	"github.com/termsgate/termsgate/signer"
)

// memNode answers the wallet's reads from memory, so that the benchmark
// measures the build, the signature and the finish, not a round trip.
type memNode struct{ coin sui.Coin }

func (memNode) Network() string                                   { return "sui:testnet" }
func (memNode) ReferenceGasPrice(context.Context) (uint64, error) { return 1000, nil }
func (memNode) Epoch(context.Context) (uint64, error)             { return 1233, nil }
func (n memNode) Coins(context.Context, sui.Address, string, int) ([]sui.Coin, error) {
	return []sui.Coin{n.coin}, nil
}

// BenchmarkSuiBuildSignFinish: x402/exact/sui with the ATR in hand: the
// request, the wallet's transfer (built, encoded, signed over its intent
// message), then gate.Finish (rebuild, decode the transaction canonically,
// check H, the transfer and the signature, read H back).
func BenchmarkSuiBuildSignFinish(b *testing.B) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	option := jsonv.Obj("scheme", "exact", "network", "sui:testnet", "amount", "10000", "asset", sui.SUI,
		"payTo", "0x209693bc6afc0c5328ba36faf03c514ef312287c209693bc6afc0c5328ba36fa", "maxTimeoutSeconds", 60)
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{option},
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info", jsonv.Obj("type", "sha256", "value", h.String(),
			"legalContextUrl", "https://atr.seller.example/"+h.String()))))
	s, err := signer.SuiFromSeed(signer.SuiDevSeed, "sui:testnet",
		memNode{sui.Coin{Ref: sui.ObjectRef{ID: sui.Address{1}, Version: 9, Digest: [32]byte{2}}, Balance: 1_000_000_000}})
	if err != nil {
		b.Fatal(err)
	}
	p := sui.Exact{}
	read, err := p.Read(doc)
	if err != nil {
		b.Fatal(err)
	}
	choice, err := p.Choose(read, s.Account(), nil, time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC).Unix(), "")
	if err != nil {
		b.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: sui.ExactID, Choice: choice, Ref: rails.NewRef()}
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
		if _, err := g.Finish(atrBytes, sui.ExactID, chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
