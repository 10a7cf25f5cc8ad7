package ccd_test

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/ccd"
	"github.com/termsgate/termsgate/signer"
)

const network = "ccd:4221332d34e1694168c2a0c0b3fd0f27"

// memNode answers the wallet's reads from memory, so that the benchmark
// measures the build, the signature and the finish, not a round trip.
type memNode struct{}

func (memNode) Network() string                                      { return network }
func (memNode) NextNonce(context.Context, []byte) (uint64, error)    { return 7, nil }
func (memNode) TokenDecimals(context.Context, string) (uint8, error) { return 6, nil }

// BenchmarkCCDBuildSignFinish: x402/exact/ccd with the ATR in hand: the
// request, the wallet's V1 sponsored transfer (nonce from an in-memory
// node, serialized, signed over its SHA-256 digest, written in x402's wire
// form), then gate.Finish (rebuild, read the wire form, check H, the
// transfer, the sponsor and the expiry, verify the sender's signature, read
// H back).
func BenchmarkCCDBuildSignFinish(b *testing.B) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	option := jsonv.Obj("scheme", "exact", "network", network, "amount", "1000000", "asset", ccd.CCD,
		"payTo", "4PnJd77jiMZB3HheYkrynfUGzZtpSERjpzy954eDD3krRf1Wpx", "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("feePayer", "4SMYM3fzSqs6DBqMgPDWnq4XTiT2YXFCUD2dV3rPmtG42ocYtd"))
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{option},
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info", jsonv.Obj("type", "sha256", "value", h.String(),
			"legalContextUrl", "https://atr.seller.example/"+h.String()))))
	s, err := signer.CCDFromSeed(signer.CCDDevSeed, signer.CCDDevAccount, network, memNode{})
	if err != nil {
		b.Fatal(err)
	}
	p := ccd.Exact{}
	read, err := p.Read(doc)
	if err != nil {
		b.Fatal(err)
	}
	choice, err := p.Choose(read, s.Account(), nil, 1790000000, "")
	if err != nil {
		b.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: ccd.ExactID, Choice: choice, Ref: rails.NewRef()}
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
		if _, err := g.Finish(atrBytes, ccd.ExactID, chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
