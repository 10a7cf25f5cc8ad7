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
	benchBuildSignFinish(b, lightningseller.New([]byte("abc"), nil), lightning.Exact{})
}

// BenchmarkLNBTCInvoiceNamedBuildSignFinish is the same for
// x402/exact/lnbtc/invoice-named: the build also finds the invoice in the
// terms' x402 slot (a parse of the 1.3 KB record and a scan of its member
// names), and the read-back is the echoed legal context.
func BenchmarkLNBTCInvoiceNamedBuildSignFinish(b *testing.B) {
	benchBuildSignFinish(b, lightningseller.NewNamed([]byte(`{"terms":"abc"}`), nil), lightning.InvoiceNamed{})
}

func benchBuildSignFinish(b *testing.B, seller *lightningseller.Seller, p rails.Pairing) {
	req := jsonv.Obj("method", "GET", "url", seller.ResourceURL())
	rh, err := lightning.RequestHash(lightning.ProfileHTTP, jsonv.Obj("headers", []jsonv.Value{}), req)
	if err != nil {
		b.Fatal(err)
	}
	doc, err := seller.Required(rh)
	if err != nil {
		b.Fatal(err)
	}
	atrBytes := seller.ATR()
	h := atr.Sum(atrBytes)
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
	chosen := rails.Chosen{Pairing: p.ID(), Choice: choice, Ref: rails.NewRef()}
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
		if _, err := g.Finish(atrBytes, p.ID(), chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

type preimageNode string

func (n preimageNode) Sign(context.Context, rails.Request) (jsonv.Value, error) {
	return string(n), nil
}

// BenchmarkMPPLightningBuildSignFinish is mpp/charge/lightning with the ATR
// in hand: build (the placed challenge checked, its invoice decoded and its
// signer recovered, h = H), the node's answer, then gate.Finish (rebuild,
// the preimage, H read back through the echoed challenge).
func BenchmarkMPPLightningBuildSignFinish(b *testing.B) {
	benchMPP(b, lightningseller.NewCharge([]byte("abc"), nil), lightning.Charge{}, jsonv.Obj())
}

// BenchmarkMPPLightningSessionBuildSignFinish is the same for the session's
// open: the deposit invoice and the payer's return invoice both read.
func BenchmarkMPPLightningSessionBuildSignFinish(b *testing.B) {
	ret, _, err := lightningseller.NewReceiver(lightningseller.PayerKey()).Issue(0, 86400, make([]byte, 32), nil)
	if err != nil {
		b.Fatal(err)
	}
	benchMPP(b, lightningseller.NewSession([]byte("abc"), nil), lightning.Session{}, jsonv.Obj("returnInvoice", ret))
}

func benchMPP(b *testing.B, seller *lightningseller.Seller, p rails.Pairing, inputs *jsonv.Object) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	doc, err := seller.Challenges()
	if err != nil {
		b.Fatal(err)
	}
	read, err := p.Read(doc)
	if err != nil {
		b.Fatal(err)
	}
	payer := lightning.Mainnet + ":" + hex.EncodeToString(lightningseller.PayerKey().PubKey().SerializeCompressed())
	choice, err := p.Choose(read, payer, inputs, seller.Node.Now().Unix(), "")
	if err != nil {
		b.Fatal(err)
	}
	u, err := p.Build(choice, atrBytes, h)
	if err != nil {
		b.Fatal(err)
	}
	r, _ := p.Request(u)
	inv, _ := r.GetString("invoice")
	in, _ := lightning.Decode(inv)
	pre, err := seller.Node.Settle(in.PaymentHash, in.AmountMsat)
	if err != nil {
		b.Fatal(err)
	}
	node := preimageNode(hex.EncodeToString(pre[:]))
	chosen := rails.Chosen{Pairing: p.ID(), Choice: choice, Ref: rails.NewRef()}
	g := &gate.Gate{}
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cost.CPU()
	for b.Loop() {
		lightning.ForgetVerified()
		u, err := p.Build(choice, atrBytes, h)
		if err != nil {
			b.Fatal(err)
		}
		r, _ := p.Request(u)
		answer, _ := node.Sign(ctx, r)
		if _, err := g.Finish(atrBytes, p.ID(), chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
