package cardano_test

import (
	"context"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/cardano"
	"github.com/termsgate/termsgate/signer"
)

// memNode answers the wallet's reads from memory, so that the benchmark
// measures the build, the signature and the finish, not a round trip.
type memNode struct{}

func (memNode) Network() string { return "cardano:preprod" }
func (memNode) Tip(context.Context) (cardano.Tip, error) {
	return cardano.Tip{BlockHeight: 5216538, Slot: 134617495}, nil
}
func (memNode) Params(context.Context) (cardano.Params, error) {
	return cardano.Params{MinFeeA: 44, MinFeeB: 155381, CoinsPerUTxOByte: 4310}, nil
}
func (memNode) UTxOs(context.Context, cardano.Address, int) ([]cardano.UTxO, error) {
	return []cardano.UTxO{{Input: cardano.Input{TxID: [32]byte{0x22}, Index: 1}, Coin: 10_000_000}}, nil
}

// BenchmarkCardanoBuildSignFinish: x402/exact/cardano with the ATR in hand:
// the request, the wallet's transfer (the fee settled over the signed
// size, the body encoded and signed), then gate.Finish (rebuild, decode the
// transaction strictly, check the aux hash, H, the payment and the
// witness, read H back).
func BenchmarkCardanoBuildSignFinish(b *testing.B) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	option := jsonv.Obj("scheme", "exact", "network", "cardano:preprod", "amount", "2000000", "asset", cardano.Lovelace,
		"payTo", "addr_test1vqxk54m7j3q6mrkevcunryrwf4p7e68c93cjk8gzxkhlkpsffv7s0", "maxTimeoutSeconds", 60)
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{option},
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info", jsonv.Obj("type", "sha256", "value", h.String(),
			"legalContextUrl", "https://atr.seller.example/"+h.String()))))
	s, err := signer.CardanoFromSeed(signer.CardanoDevSeed, "cardano:preprod", memNode{})
	if err != nil {
		b.Fatal(err)
	}
	p := cardano.Exact{}
	read, err := p.Read(doc)
	if err != nil {
		b.Fatal(err)
	}
	choice, err := p.Choose(read, s.Account(), nil, time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC).Unix(), "")
	if err != nil {
		b.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: cardano.ExactID, Choice: choice, Ref: rails.NewRef()}
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
		if _, err := g.Finish(atrBytes, cardano.ExactID, chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
