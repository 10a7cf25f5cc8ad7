package aptos_test

import (
	"context"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/aptos"
	"github.com/termsgate/termsgate/signer"
)

// memNode answers the wallet's reads from memory, so that the benchmark
// measures the build, the signature and the finish, not a round trip.
type memNode struct{}

func (memNode) Network() string                                               { return "aptos:2" }
func (memNode) SequenceNumber(context.Context, aptos.Address) (uint64, error) { return 3, nil }
func (memNode) GasUnitPrice(context.Context) (uint64, error)                  { return 100, nil }
func (memNode) ChainID(context.Context) (uint8, error)                        { return 2, nil }

// BenchmarkAptosBuildSignFinish: x402/exact/aptos with the ATR in hand:
// the request, the wallet's transfer (built, encoded, signed over its
// signing message, written in x402's form), then gate.Finish (rebuild,
// decode the payload, check the reference, the transfer, the expiry and
// the signature, read H back from the echoed legal context).
func BenchmarkAptosBuildSignFinish(b *testing.B) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	option := jsonv.Obj("scheme", "exact", "network", "aptos:2", "amount", "100000",
		"asset", "0x000000000000000000000000000000000000000000000000000000000000000a",
		"payTo", "0xe8ca094fec460329aaccc2a644dc73c5e39f1a2ad6e97f82b6cbdc1a5949b9ea", "maxTimeoutSeconds", 60)
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{option},
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info", jsonv.Obj("type", "sha256", "value", h.String(),
			"legalContextUrl", "https://atr.seller.example/"+h.String()))))
	s, err := signer.AptosFromSeed(signer.AptosDevSeed, "aptos:2", memNode{})
	if err != nil {
		b.Fatal(err)
	}
	p := aptos.Exact{}
	read, err := p.Read(doc)
	if err != nil {
		b.Fatal(err)
	}
	choice, err := p.Choose(read, s.Account(), nil, time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC).Unix(), "")
	if err != nil {
		b.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: aptos.ExactID, Choice: choice, Ref: rails.NewRef()}
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
		if _, err := g.Finish(atrBytes, aptos.ExactID, chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
