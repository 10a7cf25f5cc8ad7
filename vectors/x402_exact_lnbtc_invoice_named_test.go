package vectors_test

// x402-exact-lnbtc-invoice-named.json: fixed, L6 (the invoice, the issued
// digest, A_N assembled byte for byte, the build, bound, reference and
// both refusals), plant2, atrNamesInvoice (9 rows) and the buyer rows B2
// and B6.

import (
	"encoding/hex"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/lightning"
	"github.com/termsgate/termsgate/rails/x402"
)

func TestX402ExactLNBTCInvoiceNamed(t *testing.T) {
	f := load(t, "x402-exact-lnbtc-invoice-named.json")
	fixed := obj(t, f, "fixed")
	l6 := obj(t, f, "L6")
	ON := obj(t, fixed, "O_N")
	p := lightning.InvoiceNamed{}
	request := jsonv.Obj("method", "GET", "url", str(t, fixed, "resource", "url"))
	// A_N: the core's bytes for the id and the x402 slot {accepts: [O_N], request}.
	assemble := func(t *testing.T, option *jsonv.Object) []byte {
		b, err := atr.Assemble(str(t, fixed, "atrId"), "x402",
			jsonv.Obj("accepts", []jsonv.Value{option}, "request", jsonv.Clone(get(t, fixed, "request"))), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	choiceFor := func(option *jsonv.Object) *jsonv.Object {
		doc := lnDoc(t, fixed, option)
		return jsonv.Obj("required", doc, "accepted", option, "request", request, "now", 1790000000)
	}

	t.Run("fixed", func(t *testing.T) {
		// The request commitment is the buyer's own GET with an empty body.
		if got := x402.RequestCommitment("GET", "/article/A", nil); string(jsonv.Canonical(got)) != string(jsonv.Canonical(get(t, fixed, "request"))) {
			t.Fatalf("request %s", jsonv.Marshal(got))
		}
		sum, err := lightning.RequestHash(lightning.ProfileHTTP, obj(t, ON, "extra", "requestBindingParams"), request)
		if err != nil || hex.EncodeToString(sum[:]) != str(t, fixed, "requestHash") {
			t.Fatalf("request hash %x %v", sum, err)
		}
		if _, err := lightning.Decode(str(t, fixed, "L4")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("L6", func(t *testing.T) {
		in, err := lightning.Decode(str(t, l6, "invoice"))
		if err != nil {
			t.Fatal(err)
		}
		e := obj(t, l6, "expectDecoded")
		ex, _ := jsonv.AsSafeInt(get(t, e, "expiry"))
		if in.Currency != str(t, e, "currency") || in.AmountMsat.String() != str(t, e, "amountMsat") || in.Expiry != ex ||
			hex.EncodeToString(in.PaymentHash[:]) != str(t, e, "paymentHash") ||
			hex.EncodeToString(in.DescriptionHash) != str(t, e, "descriptionHash") || in.Metadata != nil {
			t.Fatalf("decoded %+v", in)
		}
		if d := x402.IssuedDigest(ON).String(); d != str(t, l6, "expectIssuedDigestOfO_N") {
			t.Fatalf("issued digest %s", d)
		}
		AN := assemble(t, ON)
		n, _ := jsonv.AsSafeInt(get(t, l6, "expectAtrLength"))
		if int64(len(AN)) != n || atr.Sum(AN).String() != str(t, l6, "expectH_N") {
			t.Fatalf("A_N: %d bytes, %s", len(AN), atr.Sum(AN))
		}
		if named := lightning.ATRNamesInvoice(AN, str(t, l6, "invoice")); named != (get(t, l6, "expectAtrNamesInvoice") == true) {
			t.Fatal("A_N does not name N")
		}
		u, err := p.Build(choiceFor(ON), AN, atr.Sum(AN))
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		if string(jsonv.Canonical(req)) != string(jsonv.Canonical(get(t, l6, "expectBuild"))) {
			t.Fatalf("request %s", jsonv.Marshal(req))
		}
		payment := obj(t, l6, "payment")
		h, err := p.Bound(payment)
		if err != nil || h != str(t, l6, "expectBound") {
			t.Fatalf("bound %s %v", h, err)
		}
		ref, err := p.Reference(payment)
		if err != nil || string(jsonv.Canonical(ref)) != string(jsonv.Canonical(get(t, l6, "expectReference"))) {
			t.Fatalf("reference %s %v", jsonv.Marshal(ref), err)
		}
		withL4 := payment.Clone()
		withL4.Set("accepted", setDotted(obj(t, payment, "accepted"), "extra.invoice", str(t, fixed, "L4")))
		_, err = p.Bound(withL4)
		wantRefusal(t, err, str(t, l6, "withL4", "expect", "code"))
		o4 := setDotted(ON, "extra.invoice", str(t, fixed, "L4"))
		_, err = p.Advertise(lnDoc(t, fixed, o4), atr.Sum(AN), "https://atr.seller.example/x", o4, "")
		wantRefusal(t, err, str(t, l6, "withL4", "expect", "code"))
		without := payment.Clone()
		without.Delete("extensions")
		_, err = p.Bound(without)
		wantRefusal(t, err, str(t, l6, "withoutExtensions", "expect", "code"))
	})
	t.Run("plant2", func(t *testing.T) {
		// The 402 offers O_N with N2; the ATR at the link is A_N, naming N.
		AN := assemble(t, ON)
		o2 := setDotted(ON, "extra.invoice", str(t, f, "plant2", "invoice"))
		_, err := p.Build(choiceFor(o2), AN, atr.Sum(AN))
		wantRefusal(t, err, str(t, f, "plant2", "expect", "code"))
	})
	t.Run("atrNamesInvoice", func(t *testing.T) {
		invoices := map[string]string{"N": str(t, l6, "invoice"), "N2": str(t, f, "plant2", "invoice")}
		for _, rv := range get(t, f, "atrNamesInvoice", "rows").([]jsonv.Value) {
			r, _ := jsonv.AsObject(rv)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				b := unhex(t, str(t, r, "atrHex"))
				if m, _ := r.Get("members"); m != nil {
					names, ok := lightning.TopMembers(b)
					if !ok || string(jsonv.Marshal(toValues(names))) != string(jsonv.Marshal(m)) {
						t.Fatalf("members %v", names)
					}
				}
				for _, e := range obj(t, r, "expect").Members() {
					if got := lightning.ATRNamesInvoice(b, invoices[e.Key]); got != (e.Value == true) {
						t.Errorf("%s: %v", e.Key, got)
					}
				}
			})
		}
	})
	lnBuyerRows(t, f)
}
