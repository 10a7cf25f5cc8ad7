package stacks_test

import (
	"context"
	"strconv"
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
// in hand and the nonce and fee as inputs, one challenge paid again and again: the build, the request, the
// signer's read of it and its SIP-005 signature, then gate.Finish
// (rebuild, the signed transaction checked against the build, H read back
// from its memo).
func BenchmarkUSDCStacksBuildSignFinish(b *testing.B) { benchUSDCStacks(b, 1) }

// BenchmarkUSDCStacksBuildSignFinishNewChallenge: the same over 1,000
// challenges (amounts 1000000 to 1000999) in turn, as when each payment
// answers a new one: Build reads its challenge, Finish's rebuild finds it
// read.
func BenchmarkUSDCStacksBuildSignFinishNewChallenge(b *testing.B) { benchUSDCStacks(b, 1000) }

func benchUSDCStacks(b *testing.B, challenges int) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	s, err := signer.StacksFromHex(signer.StacksDevKey, "stacks:2147483648", nil)
	if err != nil {
		b.Fatal(err)
	}
	p := stacks.ChargeUSDC{}
	choices := make([]jsonv.Value, challenges)
	chosen := make([]rails.Chosen, challenges)
	for i := range choices {
		request := jsonv.Obj("amount", strconv.Itoa(1000000+i), "currency", "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM.usdcx::usdcx-token",
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
		read, err := p.Read(doc)
		if err != nil {
			b.Fatal(err)
		}
		choices[i], err = p.Choose(read, s.Account(), jsonv.Obj("nonce", "0", "fee", "1000"), 0, "")
		if err != nil {
			b.Fatal(err)
		}
		chosen[i] = rails.Chosen{Pairing: stacks.ChargeUSDCID, Choice: choices[i], Ref: rails.NewRef()}
	}
	g := &gate.Gate{}
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cost.CPU()
	i := 0
	for b.Loop() {
		choice := choices[i%challenges]
		u, err := p.Build(choice, atrBytes, h)
		if err != nil {
			b.Fatal(err)
		}
		req, _ := p.Request(u)
		answer, err := s.Sign(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := g.Finish(atrBytes, stacks.ChargeUSDCID, chosen[i%challenges], answer); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
