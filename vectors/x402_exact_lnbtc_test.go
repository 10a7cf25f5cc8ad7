package vectors_test

// x402-exact-lnbtc.json: fixed, L1, L4 (decoded, and written again byte for
// byte by the seller's encoder with x402's test key), L5, refusals and the
// buyer rows B2 and B6.

import (
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/lightning"
	"github.com/termsgate/termsgate/rails/x402"
)

// lnDoc is a document offering option under fixed's resource, advertising
// H at fixed's link.
func lnDoc(t testing.TB, fixed *jsonv.Object, option *jsonv.Object) *jsonv.Object {
	return jsonv.Obj("x402Version", 2, "resource", jsonv.Clone(get(t, fixed, "resource")), "accepts", []jsonv.Value{option})
}

func TestX402ExactLNBTC(t *testing.T) {
	f := load(t, "x402-exact-lnbtc.json")
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	O := obj(t, fixed, "O")
	p := lightning.Exact{}

	t.Run("fixed", func(t *testing.T) {
		// The request hash is x402's example request under http:1.
		extra := obj(t, O, "extra")
		req := jsonv.Obj("method", "GET", "url", str(t, fixed, "resource", "url"))
		sum, err := lightning.RequestHash(lightning.ProfileHTTP, obj(t, extra, "requestBindingParams"), req)
		if err != nil || hex.EncodeToString(sum[:]) != str(t, fixed, "requestHash") {
			t.Fatalf("request hash %x, %v", sum, err)
		}
		pre := unhex(t, str(t, fixed, "preimage"))
		if s := sha256.Sum256(pre); hex.EncodeToString(s[:]) != str(t, fixed, "paymentHash") {
			t.Fatal("the preimage does not pay the payment hash")
		}
		if pub := hex.EncodeToString(x402TestKey().PubKey().SerializeCompressed()); pub != str(t, fixed, "payee") {
			t.Fatalf("payee %s", pub)
		}
		// x402's own example invoice decodes, with no m.
		in, err := lightning.Decode(str(t, fixed, "x402ExampleInvoice"))
		if err != nil || in.Metadata != nil || in.PayeeHex() != str(t, fixed, "payee") {
			t.Fatalf("x402's example: %v %+v", err, in)
		}
	})
	t.Run("L1", func(t *testing.T) {
		l1 := obj(t, f, "L1")
		in, err := lightning.Decode(str(t, l1, "invoice"))
		if err != nil {
			t.Fatal(err)
		}
		d, err := in.DescriptionHash32()
		if err != nil || d != "0x"+str(t, l1, "expectDescriptionHash") {
			t.Fatalf("description hash %s, %v", d, err)
		}
		if s := sha256.Sum256([]byte(str(t, l1, "description"))); hex.EncodeToString(s[:]) != str(t, l1, "expectDescriptionHash") {
			t.Fatal("the description does not hash to h")
		}
		if in.Description != nil {
			t.Fatal("a description the invoice does not carry")
		}
	})
	t.Run("L4", func(t *testing.T) {
		l4 := obj(t, f, "L4")
		inv := str(t, l4, "invoice")
		in, err := lightning.Decode(inv)
		if err != nil {
			t.Fatal(err)
		}
		e := obj(t, l4, "expect")
		ts, _ := jsonv.AsSafeInt(get(t, e, "timestamp"))
		ex, _ := jsonv.AsSafeInt(get(t, e, "expiry"))
		if in.Currency != str(t, e, "currency") || in.AmountMsat.String() != str(t, e, "amountMsat") ||
			in.Timestamp != ts || in.Expiry != ex ||
			hex.EncodeToString(in.PaymentHash[:]) != str(t, e, "paymentHash") ||
			hex.EncodeToString(in.DescriptionHash) != str(t, e, "descriptionHash") ||
			hex.EncodeToString(in.Metadata) != str(t, e, "metadata") || in.Description != nil {
			t.Fatalf("decoded %+v", in)
		}
		if in.PayeeHex() != str(t, l4, "expectPayee") {
			t.Fatalf("payee %s", in.PayeeHex())
		}
		// The seller's encoder writes the same invoice from the same
		// fields and key (RFC 6979 signatures are deterministic).
		again, err := lightning.Encode(lightning.Issue{Currency: in.Currency, AmountMsat: big.NewInt(25000),
			Timestamp: in.Timestamp, Expiry: in.Expiry, PaymentHash: in.PaymentHash, PaymentSecret: in.PaymentSecret,
			DescriptionHash: in.DescriptionHash, Metadata: in.Metadata, Features: []int{14, 49}}, x402TestKey())
		if err != nil || again != inv {
			t.Fatalf("encoded\n%s\nwant\n%s (%v)", again, inv, err)
		}
	})
	t.Run("L5", func(t *testing.T) {
		l5 := obj(t, f, "L5")
		if d := x402.IssuedDigest(lightning.Unplaced(O)).String(); d != str(t, l5, "expectIssuedDigestOfUnplaced") {
			t.Fatalf("issued digest of the unplaced option %s", d)
		}
		ex := setDotted(O, "extra.invoice", str(t, fixed, "x402ExampleInvoice"))
		_, err := p.Advertise(lnDoc(t, fixed, ex), H, str(t, fixed, "link"), ex, "")
		wantRefusal(t, err, str(t, l5, "withExampleInvoice", "expect", "code"))
		if _, err := p.Advertise(lnDoc(t, fixed, O), H, str(t, fixed, "link"), O, ""); err != nil {
			t.Fatalf("advertise O: %v", err)
		}
		payment := get(t, l5, "payment")
		h, err := p.Bound(payment)
		if err != nil || h != str(t, l5, "expectBound") {
			t.Fatalf("bound %s, %v", h, err)
		}
		ref, err := p.Reference(payment)
		if err != nil || string(jsonv.Canonical(ref)) != string(jsonv.Canonical(get(t, l5, "expectReference"))) {
			t.Fatalf("reference %s, %v", jsonv.Marshal(ref), err)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		payment := obj(t, f, "L5", "payment")
		for _, rv := range get(t, f, "refusals", "rows").([]jsonv.Value) {
			r, _ := jsonv.AsObject(rv)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				code := str(t, r, "expect", "code")
				set, _ := r.GetObject("optionSet")
				switch fn := str(t, r, "fn"); fn {
				case "advertise":
					o := applySet(O, set)
					_, err := p.Advertise(lnDoc(t, fixed, o), H, str(t, fixed, "link"), o, "")
					wantRefusal(t, err, code)
				case "advertiseOtherH":
					other := mustHash(t, str(t, r, "h"))
					_, err := p.Advertise(lnDoc(t, fixed, O), other, str(t, fixed, "link"), O, "")
					wantRefusal(t, err, code)
				case "complete":
					doc := lnDoc(t, fixed, O)
					choice := jsonv.Obj("required", doc, "accepted", O,
						"request", jsonv.Obj("method", "GET", "url", str(t, fixed, "resource", "url")), "now", 1790000000)
					u, err := p.Build(choice, nil, H)
					if err != nil {
						t.Fatal(err)
					}
					_, err = p.Complete(u, str(t, r, "preimage"), chosenFor(p.ID(), choice))
					wantRefusal(t, err, code)
				case "bound":
					pay := payment.Clone()
					pay.Set("accepted", applySet(obj(t, payment, "accepted"), set))
					_, err := p.Bound(pay)
					wantRefusal(t, err, code)
				default:
					t.Fatalf("no such function %q", fn)
				}
			})
		}
	})
	lnBuyerRows(t, f)
}
