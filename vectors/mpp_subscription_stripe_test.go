package vectors_test

// mpp-subscription-stripe.json: fixed, S1 (the placed challenge keeps the
// seller's metadata beside legal_context, the issued digest is unchanged
// by the carrier, an emptied metadata object goes with it; the build and
// the read-back), the pattern and the buyer row B2.

import (
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/stripe"
	"github.com/termsgate/termsgate/signer"
)

func TestMPPSubscriptionStripe(t *testing.T) {
	f := load(t, "mpp-subscription-stripe.json")
	fixed := obj(t, f, "fixed")
	t.Run("fixed", func(t *testing.T) { stripeFixed(t, fixed) })
	H := mustHash(t, str(t, fixed, "H"))
	link := str(t, fixed, "link")
	p := stripe.Subscription{}
	s1 := obj(t, f, "S1")
	b2doc := get(t, row(t, get(t, f, "buyer", "rows"), "B2"), "input", "doc").([]jsonv.Value)
	t.Run("S1", func(t *testing.T) {
		issued := stripeIssued(fixed, "subscription", obj(t, s1, "request"))
		placedDoc, err := p.Advertise([]jsonv.Value{issued}, H, link, issued, "")
		if err != nil {
			t.Fatal(err)
		}
		placed, _ := jsonv.AsObject(placedDoc[0])
		if string(jsonv.Marshal(placed)) != string(jsonv.Marshal(b2doc[0])) {
			t.Fatalf("placed %s\nwant %s", jsonv.Marshal(placed), jsonv.Marshal(b2doc[0]))
		}
		req, _ := mpp.DecodeObject(mpp.String(placed, "request"))
		meta := get(t, req, "methodDetails", "metadata")
		if string(jsonv.Canonical(meta)) != string(jsonv.Canonical(get(t, s1, "expectMetadata"))) {
			t.Fatalf("metadata %s", jsonv.Marshal(meta))
		}
		// The issued digest is the same over the challenge as issued and over
		// the echo without its carrier.
		a, err1 := mpp.IssuedDigest(issued)
		b, err2 := mpp.IssuedDigest(stripe.Unplaced(placed))
		if err1 != nil || err2 != nil || a != b {
			t.Fatalf("digests %s %s (%v %v)", a, b, err1, err2)
		}
		// With no seller metadata, the emptied metadata object goes too.
		bare := setDotted(obj(t, s1, "request"), "methodDetails.metadata", nil)
		bi := stripeIssued(fixed, "subscription", bare)
		bp, err := p.Advertise([]jsonv.Value{bi}, H, link, bi, "")
		if err != nil {
			t.Fatal(err)
		}
		bo, _ := jsonv.AsObject(bp[0])
		if u := stripe.Unplaced(bo); mpp.String(u, "request") != mpp.String(bi, "request") {
			t.Fatalf("unplaced %s", mpp.String(u, "request"))
		}
		// The build writes a credential once the request states the
		// subscription's period; S1's request names none, so the row's build
		// and read-back run over it with the period the profile requires.
		now := mustUnix(t, str(t, fixed, "expires")) - 60
		_, err = p.Build(jsonv.Obj("challenge", placed, "now", now), nil, H)
		wantRefusal(t, err, str(t, s1, "expectBuild", "code"))
		_, err = p.Build(jsonv.Obj("challenge", placed, "now", now, "paymentMethod", "pm_1Qabc32eZvKYlo2C7b8H1234"), nil, H)
		wantRefusal(t, err, mpp.CodeRequestMalformed)
		periodic := setDotted(setDotted(obj(t, s1, "request"), "periodUnit", "week"), "periodCount", "1")
		pi := stripeIssued(fixed, "subscription", periodic)
		pd, err := p.Advertise([]jsonv.Value{pi}, H, link, pi, "")
		if err != nil {
			t.Fatal(err)
		}
		pp, _ := jsonv.AsObject(pd[0])
		stripeBuildAndBound(t, p, pp, H, now, jsonv.Obj("paymentMethod", "pm_1Qabc32eZvKYlo2C7b8H1234", "customer", "cus_S7x1Pq5R9n2Lm4"), s1)
	})
	t.Run("pattern", func(t *testing.T) {
		wantNoProofPattern(t, p, obj(t, f, "pattern"))
	})
	mppBuyerRows(t, f, signer.AnvilKey)
}
