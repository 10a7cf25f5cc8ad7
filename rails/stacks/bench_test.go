package stacks_test

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/stacks"
	"github.com/termsgate/termsgate/signer"
)

// BenchmarkUSDCStacksBuildSignFinish: mpp/charge/usdc/stacks with the ATR
// in hand and the nonce and fee as inputs: the build, the request, the
// signer's read of it and its SIP-005 signature, then gate.Finish
// (rebuild, the signed transaction checked against the build, H read back
// from its memo).
func BenchmarkUSDCStacksBuildSignFinish(b *testing.B) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	request := jsonv.Obj("amount", "1000000", "currency", "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM.usdcx::usdcx-token",
		"recipient", "ST3FBR2AGK5H9QBDH3EEN6DF8EK8JY7RX8NQXMNRQ",
		"methodDetails", jsonv.Obj("type", "stacks", "stacks", jsonv.Obj("network", "testnet", "chainId", "2147483648",
			"contractAddress", "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM", "contractName", "usdcx", "assetName", "usdcx-token",
			"functionName", "transfer", "decimals", 6)))
	c := jsonv.Obj("realm", "api.seller.example", "method", "usdc", "intent", "charge", "request", mpp.EncodeObject(request),
		"expires", "2026-09-21T14:14:20Z")
	doc, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		b.Fatal(err)
	}
	s, err := signer.StacksFromHex(signer.StacksDevKey, "stacks:2147483648", nil)
	if err != nil {
		b.Fatal(err)
	}
	p := stacks.ChargeUSDC{}
	read, err := p.Read(doc)
	if err != nil {
		b.Fatal(err)
	}
	choice, err := p.Choose(read, s.Account(), jsonv.Obj("nonce", "0", "fee", "1000"), 0, "")
	if err != nil {
		b.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: stacks.ChargeUSDCID, Choice: choice, Ref: rails.NewRef()}
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
		if _, err := g.Finish(atrBytes, stacks.ChargeUSDCID, chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
