package checkout_test

import (
	"encoding/base64"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/checkout"
	"github.com/termsgate/termsgate/rails/sdjwt"
)

var (
	benchATR  = []byte(`{"atrVersion":"1","id":"2b7e1516-28ae-4d2a-a6d2-abf7158809cf","ucp":{"options":[{"checkout":"chk_1"}]}}`)
	benchH    = atr.Sum(benchATR)
	benchLink = "https://atr.seller.example/" + benchH.String()
	benchAgr  = "https://api.seller.example/agree"
)

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// jws is a compact JWS with a zero signature: the readers verify none.
func jws(header string, payload []byte) string {
	return b64([]byte(header)) + "." + b64(payload) + "." + b64(make([]byte, 64))
}

// mandate is a closed Checkout Mandate over checkout JWT j, as the user's
// trusted surface writes it (zero signature).
func mandate(j string) string {
	d := b64(jsonv.Marshal([]jsonv.Value{"c2FsdHNhbHRzYWx0", "checkout_jwt", j}))
	p := jsonv.Obj("vct", checkout.CheckoutVct, "checkout_hash", sdjwt.Digest(j), "_sd", []jsonv.Value{sdjwt.Digest(d)},
		"_sd_alg", "sha-256", "iat", 1790000000, "exp", 1790000600)
	return jws(`{"alg":"ES256","typ":"dc+sd-jwt"}`, jsonv.Marshal(p)) + "~" + d + "~"
}

func total() []jsonv.Value { return []jsonv.Value{jsonv.Obj("type", "total", "amount", 19900)} }

// confirmOnly runs what the gate does with a confirm-only pairing once the
// terms are in hand: read, choose, build (which refuses or checks) and, for
// the presented payment, the read-back gate.Check makes.
func confirmOnly(b *testing.B, p rails.Pairing, doc, presented jsonv.Value, inputs *jsonv.Object) {
	g := &gate.Gate{}
	b.ReportAllocs()
	cpu0 := cost.CPU()
	for b.Loop() {
		read, err := p.Read(doc)
		if err != nil {
			b.Fatal(err)
		}
		choice, err := p.Choose(read, "", inputs, 1790000000, "")
		if err != nil {
			b.Fatal(err)
		}
		if u, err := p.Build(choice, benchATR, benchH); err == nil {
			if _, err := p.Complete(u, nil, rails.Chosen{Pairing: p.ID(), Choice: choice}); err != nil {
				b.Fatal(err)
			}
		}
		if presented != nil {
			if _, err := g.Check(benchATR, p.ID(), presented); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkAP2BuildSignFinish: ap2/checkout-mandate: read the checkout JWT,
// choose, build (nothing to sign), then read H back from the presented
// closed mandate (the SD-JWT read, checkout_hash against the JWT, its
// legalContext).
func BenchmarkAP2BuildSignFinish(b *testing.B) {
	p, err := checkout.AdvertiseAgreement(jsonv.Obj("id", "chk_1", "currency", "USD", "totals", total()),
		jsonv.Obj("checkout", "chk_1"), benchH.String(), benchLink, benchAgr)
	if err != nil {
		b.Fatal(err)
	}
	j := jws(`{"alg":"ES256","typ":"JWT"}`, jsonv.Marshal(p))
	confirmOnly(b, checkout.AP2{}, j, jsonv.Obj("checkout_mandate", mandate(j), "checkout_jwt", j), nil)
}

// BenchmarkUCPBuildSignFinish: ucp/checkout/ap2-mandate: read the signed
// checkout, choose, the build's check of its link against H, then H read
// back from the presented mandate.
func BenchmarkUCPBuildSignFinish(b *testing.B) {
	u := checkout.UCPCheckoutMandate
	c, err := u.AdvertiseAgreement(jsonv.Obj("ucp", jsonv.Obj("version", "2026-08-25"), "id", "chk_1", "currency", "USD",
		"totals", total()), benchH.String(), benchLink, jsonv.Obj("checkout", "chk_1"), benchAgr)
	if err != nil {
		b.Fatal(err)
	}
	j := jws(`{"alg":"ES256"}`, jsonv.Marshal(c))
	signed := c.Clone()
	signed.Set("ap2", jsonv.Obj("merchant_authorization", b64([]byte(`{"alg":"ES256"}`))+".."+b64(make([]byte, 64))))
	confirmOnly(b, u, signed, jsonv.Obj("checkout_mandate", mandate(j), "checkout_jwt", j), nil)
}

// BenchmarkACPDelegatedBuildSignFinish: acp/checkout/delegated: read the
// session, choose with the buyer's limits, build the allowance, complete it
// and read H back from it (gate.Check).
func BenchmarkACPDelegatedBuildSignFinish(b *testing.B) {
	s, err := checkout.ACPAdvertiseAgreement(jsonv.Obj("currency", "usd", "totals", total()), benchH.String(), benchLink,
		jsonv.Obj("requires_delegate_payment", true), benchAgr)
	if err != nil {
		b.Fatal(err)
	}
	in := jsonv.Obj("max_amount", 19900, "currency", "usd", "merchant_id", "acct_1",
		"expires_at", time.Unix(1790000600, 0).UTC().Format(time.RFC3339))
	p := checkout.ACPDelegated{}
	read, _ := p.Read(s)
	choice, _ := p.Choose(read, "", in, 0, "")
	u, err := p.Build(choice, benchATR, benchH)
	if err != nil {
		b.Fatal(err)
	}
	done, err := p.Complete(u, nil, rails.Chosen{})
	if err != nil {
		b.Fatal(err)
	}
	confirmOnly(b, p, s, done.Signed, in)
}

// BenchmarkACKBuildSignFinish: ack/payment-request: read the body (the
// token's signed id against the legalContext), choose, build (no signed
// place), then H read back from a receipt embedding the token.
func BenchmarkACKBuildSignFinish(b *testing.B) {
	tok := jws(`{"alg":"ES256","typ":"JWT"}`, jsonv.Marshal(jsonv.Obj("id", checkout.ACKIDPrefix+benchH.String(),
		"paymentOptions", []jsonv.Value{jsonv.Obj("id", "o", "currency", "USD", "network", "card", "amount", "19900", "recipient", "m")})))
	body, err := checkout.ACKAdvertiseAgreement(jsonv.Obj("paymentRequestToken", tok), benchH.String(), benchLink, jsonv.Obj("id", "o"), benchAgr)
	if err != nil {
		b.Fatal(err)
	}
	subject := jsonv.Obj("paymentRequestToken", tok, "paymentOptionId", "o")
	confirmOnly(b, checkout.ACK{}, body, nil, nil)
	if h, err := checkout.ACKFromReceipt(subject); err != nil || !atr.EqualText(h, benchH) {
		b.Fatal(h, err)
	}
}
