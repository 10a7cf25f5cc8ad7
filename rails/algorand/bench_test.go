package algorand_test

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/algorand"
	"github.com/termsgate/termsgate/signer"
)

// BenchmarkAlgorandBuildSignFinish is x402/exact/algorand with the ATR in
// hand: build the group (the fee payer's payment and the transfer with H
// as its note, their ids and the group id), sign the transfer with the
// local Ed25519 key (which first reads it back), then the gate's Finish:
// rebuild, verify the signature, write the group and read H back.
func BenchmarkAlgorandBuildSignFinish(b *testing.B) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	option := jsonv.Obj("scheme", "exact", "network", algorand.TestNet, "amount", "10000", "asset", "10458941",
		"payTo", "5VESRRRI2HBMN2XJAM4JAWMVMEUVSJZ2LRR7SNRWYFDBJLEHG7I2572N4M", "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("feePayer", "G7QWRIJODICBDG6JAVXNKHNTCKTBJZBXTSCGQLSMXSCIKEJ5SNFPEJSFQQ"))
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{option},
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info", jsonv.Obj("type", "sha256", "value", h.String(),
			"legalContextUrl", "https://atr.seller.example/"+h.String()))))
	s, err := signer.AlgorandDev(algorand.TestNet)
	if err != nil {
		b.Fatal(err)
	}
	p := algorand.Exact{}
	read, err := p.Read(doc)
	if err != nil {
		b.Fatal(err)
	}
	inputs := jsonv.Obj("params", jsonv.Obj("firstValid", "67634736", "genesisHash", "SGO1GKSzyE7IEPItTxCByw9x8FmnrCDexi9/cOUJOiI=",
		"genesisId", "testnet-v1.0", "minFee", "1000", "feePerByte", "0"))
	choice, err := p.Choose(read, s.Account(), inputs, 1_800_000_000, "")
	if err != nil {
		b.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: algorand.ExactID, Choice: choice, Ref: rails.NewRef()}
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
		if _, err := g.Finish(atrBytes, algorand.ExactID, chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
