package vectors_test

// mpp-charge-lightning.json: fixed, L2 (decoded, and written again byte for
// byte with x402's test key), L3 (placed id, issued digest, bound,
// reference, refusals), plant, and the buyer rows B2 and B6.

import (
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/lightning"
	"github.com/termsgate/termsgate/rails/mpp"
)

func TestMPPChargeLightning(t *testing.T) {
	f := load(t, "mpp-charge-lightning.json")
	fixed := obj(t, f, "fixed")
	l3 := obj(t, f, "L3")
	H := mustHash(t, str(t, fixed, "H"))
	link := str(t, fixed, "link")
	p := lightning.Charge{}
	// challenge is L3's challenge with request set (base64url of its JCS form).
	challenge := func(request *jsonv.Object, set *jsonv.Object) *jsonv.Object {
		c := obj(t, l3, "challenge").Clone()
		c.Set("request", mpp.EncodeObject(request))
		for _, m := range set.Members() {
			c.Set(m.Key, m.Value)
		}
		return c
	}
	presented := obj(t, row(t, get(t, f, "buyer", "rows"), "B6"), "input", "presented")

	t.Run("fixed", func(t *testing.T) {
		pre := unhex(t, str(t, fixed, "preimage"))
		if s := sha256.Sum256(pre); hex.EncodeToString(s[:]) != str(t, fixed, "paymentHash") {
			t.Fatal("the preimage does not pay the payment hash")
		}
		for _, k := range []string{"L1", "L4"} {
			if _, err := lightning.Decode(str(t, fixed, k)); err != nil {
				t.Fatalf("%s: %v", k, err)
			}
		}
	})
	t.Run("L2", func(t *testing.T) {
		l2 := obj(t, f, "L2")
		inv := str(t, l2, "invoice")
		in, err := lightning.Decode(inv)
		if err != nil {
			t.Fatal(err)
		}
		e := obj(t, l2, "expect")
		ts, _ := jsonv.AsSafeInt(get(t, e, "timestamp"))
		ex, _ := jsonv.AsSafeInt(get(t, e, "expiry"))
		if in.Currency != str(t, e, "currency") || in.AmountMsat.String() != str(t, e, "amountMsat") ||
			in.Timestamp != ts || in.Expiry != ex || hex.EncodeToString(in.PaymentHash[:]) != str(t, e, "paymentHash") ||
			hex.EncodeToString(in.DescriptionHash) != str(t, e, "descriptionHash") || in.Metadata != nil ||
			in.PayeeHex() != str(t, l2, "expectPayee") {
			t.Fatalf("decoded %+v", in)
		}
		again, err := lightning.Encode(lightning.Issue{Currency: "bc", AmountMsat: big.NewInt(25000), Timestamp: ts, Expiry: ex,
			PaymentHash: in.PaymentHash, PaymentSecret: in.PaymentSecret, DescriptionHash: in.DescriptionHash,
			Features: []int{8, 14}}, x402TestKey())
		if err != nil || again != inv {
			t.Fatalf("encoded\n%s\nwant\n%s (%v)", again, inv, err)
		}
	})
	t.Run("L3", func(t *testing.T) {
		c := challenge(obj(t, l3, "request"), nil)
		placed, err := p.Advertise([]jsonv.Value{c}, H, link, c, "")
		if err != nil {
			t.Fatal(err)
		}
		po, _ := jsonv.AsObject(placed[0])
		if id := mpp.String(po, "id"); id != str(t, l3, "expectId") {
			t.Fatalf("id %s", id)
		}
		d, err := mpp.IssuedDigest(lightning.UnplacedCharge(c))
		if err != nil || d.String() != str(t, l3, "expectIssuedDigest") {
			t.Fatalf("issued digest %s %v", d, err)
		}
		h, err := p.Bound(presented)
		if err != nil || h != str(t, l3, "expectBound") {
			t.Fatalf("bound %s %v", h, err)
		}
		ref, err := p.Reference(presented)
		if err != nil || string(jsonv.Canonical(ref)) != string(jsonv.Canonical(get(t, l3, "expectReference"))) {
			t.Fatalf("reference %s %v", jsonv.Marshal(ref), err)
		}
		// The placed challenge is the one B6's credential echoes.
		if string(jsonv.Canonical(po)) != string(jsonv.Canonical(get(t, presented, "challenge"))) {
			t.Fatalf("placed %s", jsonv.Marshal(po))
		}
		t.Run("refusals", func(t *testing.T) {
			for _, rv := range get(t, l3, "refusals").([]jsonv.Value) {
				r, _ := jsonv.AsObject(rv)
				t.Run(str(t, r, "case"), func(t *testing.T) {
					req := obj(t, l3, "request")
					if set, ok := r.GetObject("requestSet"); ok {
						req = applySet(req, set)
					}
					cset, _ := r.GetObject("challengeSet")
					c := challenge(req, cset)
					_, err := p.Advertise([]jsonv.Value{c}, H, link, c, "")
					wantRefusal(t, err, str(t, r, "expect", "code"))
				})
			}
		})
	})
	t.Run("plant", func(t *testing.T) {
		// The echoed challenge keeps L2's id and opaque; its request's invoice is L4.
		pl := presented.Clone()
		ch := obj(t, presented, "challenge").Clone()
		req, _ := mpp.DecodeObject(mpp.String(ch, "request"))
		ch.Set("request", mpp.EncodeObject(setDotted(req, "methodDetails.invoice", str(t, f, "plant", "invoice"))))
		pl.Set("challenge", ch)
		_, err := p.Bound(pl)
		wantRefusal(t, err, str(t, f, "plant", "expect", "code"))
	})
	lnBuyerRows(t, f)
}
