package vectors_test

// mpp-charge-stripe.json: fixed, M2 (the placed challenge, the issued
// digest, the build and the read-back), the refusal rows (Stripe's
// metadata bounds and an occupied carrier), the pattern and the buyer row
// B2.

import (
	"strconv"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/stripe"
	"github.com/termsgate/termsgate/signer"
)

// stripeFixed checks a Stripe file's fixed values: L is H's LCP string and
// MV1 the id of H at position 0.
func stripeFixed(t *testing.T, fixed *jsonv.Object) atr.Hash {
	t.Helper()
	H := mustHash(t, str(t, fixed, "H"))
	if mpp.LegalContextValue(H) != str(t, fixed, "L") {
		t.Fatalf("L %s", mpp.LegalContextValue(H))
	}
	if id, _ := mpp.ChallengeID(H, 0); id != str(t, fixed, "MV1") {
		t.Fatalf("MV1 %s", id)
	}
	if unix, _ := jsonv.AsSafeInt(get(t, fixed, "expiresUnix")); mustUnix(t, str(t, fixed, "expires")) != unix {
		t.Fatalf("expires %s is not %d", str(t, fixed, "expires"), unix)
	}
	return H
}

func mustUnix(t *testing.T, s string) int64 {
	t.Helper()
	u, ok := mpp.UnixOf(s)
	if !ok {
		t.Fatalf("expires %q", s)
	}
	return u
}

// stripeIssued is the challenge as the seller issues it: realm, method,
// intent, request (canonical JSON as base64url) and expires.
func stripeIssued(fixed *jsonv.Object, intent string, request *jsonv.Object) *jsonv.Object {
	return jsonv.Obj("realm", mpp.String(fixed, "realm"), "method", "stripe", "intent", intent,
		"request", mpp.EncodeObject(request), "expires", mpp.String(fixed, "expires"))
}

// stripeBuildAndBound runs a row's expectBuild and expectBound over the
// placed challenge: with no token the build refuses as the row says; with
// one the credential is written, its signing request refuses as the row
// says (nothing is signed), and its read-back refuses as the row says.
func stripeBuildAndBound(t *testing.T, p rails.Pairing, placed *jsonv.Object, H atr.Hash, now int64, token *jsonv.Object, r *jsonv.Object) {
	t.Helper()
	choice := jsonv.Obj("challenge", placed, "now", now)
	_, err := p.Build(choice, nil, H)
	wantRefusal(t, err, str(t, r, "expectBuild", "code"))
	for _, m := range token.Members() {
		choice.Set(m.Key, m.Value)
	}
	u, err := p.Build(choice, nil, H)
	if err != nil {
		t.Fatalf("build with the token: %v", err)
	}
	_, err = p.Request(u)
	wantRefusal(t, err, str(t, r, "expectBuild", "code"))
	done, err := p.Complete(u, nil, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	want := jsonv.Obj("challenge", placed, "payload", token)
	if string(jsonv.Canonical(done.Signed)) != string(jsonv.Canonical(want)) {
		t.Fatalf("credential %s", jsonv.Marshal(done.Signed))
	}
	_, err = p.Bound(done.Signed)
	wantRefusal(t, err, str(t, r, "expectBound", "code"))
	// The other H, or an expired challenge, is no build.
	other := mustHash(t, "0x"+strings.Repeat("ab", 32))
	if _, err := p.Build(choice, nil, other); err == nil {
		t.Fatal("built for another hash")
	}
	late := choice.Clone()
	late.Set("now", mustUnix(t, mpp.String(placed, "expires")))
	if _, err := p.Build(late, nil, H); err == nil {
		t.Fatal("built on an expired challenge")
	}
}

func TestMPPChargeStripe(t *testing.T) {
	f := load(t, "mpp-charge-stripe.json")
	fixed := obj(t, f, "fixed")
	var H atr.Hash
	t.Run("fixed", func(t *testing.T) {
		H = stripeFixed(t, fixed)
		if str(t, fixed, "metadataKey") != mpp.StripeLegalContextKey {
			t.Fatalf("metadata key %s", str(t, fixed, "metadataKey"))
		}
	})
	H = mustHash(t, str(t, fixed, "H"))
	link := str(t, fixed, "link")
	p := stripe.Charge{}
	m2 := obj(t, f, "M2")
	b2doc := get(t, row(t, get(t, f, "buyer", "rows"), "B2"), "input", "doc").([]jsonv.Value)
	t.Run("M2", func(t *testing.T) {
		issued := stripeIssued(fixed, "charge", obj(t, m2, "request"))
		placedDoc, err := p.Advertise([]jsonv.Value{issued}, H, link, issued, "")
		if err != nil {
			t.Fatal(err)
		}
		placed, _ := jsonv.AsObject(placedDoc[0])
		// The placed challenge is the one B2's document carries, byte for byte.
		if string(jsonv.Marshal(placed)) != string(jsonv.Marshal(b2doc[0])) {
			t.Fatalf("placed %s\nwant %s", jsonv.Marshal(placed), jsonv.Marshal(b2doc[0]))
		}
		want := str(t, m2, "expectDigest")
		for name, c := range map[string]*jsonv.Object{"issued": issued, "echo": stripe.Unplaced(placed)} {
			d, err := mpp.IssuedDigest(c)
			if err != nil || d.String() != want {
				t.Fatalf("%s digest %s %v", name, d, err)
			}
		}
		now := mustUnix(t, str(t, fixed, "expires")) - 60
		stripeBuildAndBound(t, p, placed, H, now, jsonv.Obj("spt", "spt_1N4Zv32eZvKYlo2CPhVPkJlW"), m2)
	})
	t.Run("refusals", func(t *testing.T) {
		for _, rv := range get(t, f, "refusals", "rows").([]jsonv.Value) {
			r, _ := jsonv.AsObject(rv)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				meta, ok := r.GetObject("metadata")
				if !ok {
					n, _ := jsonv.AsSafeInt(get(t, r, "metadataKeys"))
					meta = &jsonv.Object{}
					for i := int64(0); i < n; i++ {
						meta.Set("k"+strconv.FormatInt(i, 10), "v")
					}
				}
				req := setDotted(obj(t, m2, "request"), "methodDetails.metadata", meta)
				c := stripeIssued(fixed, "charge", req)
				_, err := p.Advertise([]jsonv.Value{c}, H, link, c, "")
				wantRefusal(t, err, str(t, r, "expect", "code"))
				if !get(t, r, "expect", "refused").(bool) {
					t.Fatal("a row that is no refusal")
				}
			})
		}
	})
	t.Run("pattern", func(t *testing.T) {
		wantNoProofPattern(t, p, obj(t, f, "pattern"))
	})
	mppBuyerRows(t, f, signer.AnvilKey)
}
