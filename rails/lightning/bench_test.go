package lightning_test

import (
	"context"
	"encoding/hex"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/lightningseller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/lightning"
)

// BenchmarkLNBTCBuildSignFinish is x402/exact/lnbtc with the ATR in hand:
// build (decode the invoice, verify its node signature, check m, the
// request hash and the option), the node's answer (an in-process lookup of
// the preimage: the payment's routing is the node's, not termsgate's), then
// the gate's Finish: rebuild, check the preimage pays the invoice, wrap the
// payment, read H back from m.
func BenchmarkLNBTCBuildSignFinish(b *testing.B) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	seller := lightningseller.New(atrBytes, nil)
	req := jsonv.Obj("method", "GET", "url", seller.ResourceURL())
	rh, err := lightning.RequestHash(lightning.ProfileHTTP, jsonv.Obj("headers", []jsonv.Value{}), req)
	if err != nil {
		b.Fatal(err)
	}
	doc, err := seller.Required(rh)
	if err != nil {
		b.Fatal(err)
	}
	p := lightning.Exact{}
	read, err := p.Read(doc)
	if err != nil {
		b.Fatal(err)
	}
	payer := lightning.Mainnet + ":" + hex.EncodeToString(lightningseller.PayerKey().PubKey().SerializeCompressed())
	choice, err := p.Choose(read, payer, jsonv.Obj("request", req), seller.Node.Now().Unix(), "")
	if err != nil {
		b.Fatal(err)
	}
	in, _ := lightning.Decode(lightning.InvoiceOf(read.Options[0]))
	pre, err := seller.Node.Settle(in.PaymentHash, in.AmountMsat)
	if err != nil {
		b.Fatal(err)
	}
	node := preimageNode(hex.EncodeToString(pre[:]))
	chosen := rails.Chosen{Pairing: lightning.ExactID, Choice: choice, Ref: rails.NewRef()}
	g := &gate.Gate{}
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cost.CPU()
	for b.Loop() {
		lightning.ForgetVerified() // each payment recovers its invoice's signer once
		u, err := p.Build(choice, atrBytes, h)
		if err != nil {
			b.Fatal(err)
		}
		r, _ := p.Request(u)
		answer, _ := node.Sign(ctx, r)
		if _, err := g.Finish(atrBytes, lightning.ExactID, chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

type preimageNode string

func (n preimageNode) Sign(context.Context, rails.Request) (jsonv.Value, error) {
	return string(n), nil
}
