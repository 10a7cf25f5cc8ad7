package vectors_test

// mpp-charge-card.json: M1 (the externalId carrier placed, the issued
// digest of the unplaced challenge and of the echo, build and bound
// refusing mpp/no-signed-place), refusals, pattern, and the buyer row B2
// through the gate with no signer call.

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/card"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

func TestMPPChargeCard(t *testing.T) {
	f := load(t, "mpp-charge-card.json")
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	link := str(t, fixed, "link")
	p := card.MPPCharge{}
	issued := func(request *jsonv.Object) *jsonv.Object {
		return jsonv.Obj("realm", str(t, fixed, "realm"), "method", "card", "intent", "charge",
			"request", mpp.EncodeObject(request), "expires", str(t, fixed, "expires"))
	}
	b2 := row(t, get(t, f, "buyer", "rows"), "B2")
	placedDoc := get(t, b2, "input", "doc").([]jsonv.Value)

	t.Run("fixed", func(t *testing.T) {
		if mpp.LegalContextValue(H) != str(t, fixed, "L") {
			t.Fatal("L")
		}
		id, err := mpp.ChallengeID(H, 0)
		if err != nil || id != str(t, fixed, "MV1") {
			t.Fatalf("MV1 %s %v", id, err)
		}
		if u, ok := mpp.UnixOf(str(t, fixed, "expires")); !ok || jsonv.Number(u) != get(t, fixed, "expiresUnix") {
			t.Fatalf("expires %d", u)
		}
	})
	t.Run("M1", func(t *testing.T) {
		m1 := obj(t, f, "M1")
		c := issued(obj(t, m1, "request"))
		placed, err := p.Advertise([]jsonv.Value{c}, H, link, c, "")
		if err != nil {
			t.Fatal(err)
		}
		po, _ := jsonv.AsObject(placed[0])
		req, _ := mpp.DecodeObject(mpp.String(po, "request"))
		ext, _ := req.GetString("externalId")
		if ext != str(t, m1, "expectExternalId") || jsonv.Number(len(ext)) != get(t, m1, "expectExternalIdLength") {
			t.Fatalf("externalId %q", ext)
		}
		if mpp.String(po, "id") != str(t, fixed, "MV1") {
			t.Fatalf("id %s", mpp.String(po, "id"))
		}
		// The placed challenge is, byte for byte, the one B2's document holds.
		if string(jsonv.Canonical(po)) != string(jsonv.Canonical(placedDoc[0])) {
			t.Fatalf("placed\n%s\nwant\n%s", jsonv.Canonical(po), jsonv.Canonical(placedDoc[0]))
		}
		for name, v := range map[string]*jsonv.Object{"unplaced": c, "echo": po} {
			d, err := mpp.IssuedDigest(card.UnplacedChallenge(v))
			if err != nil || d.String() != str(t, m1, "expectDigest") {
				t.Fatalf("%s digest %s %v", name, d, err)
			}
		}
		read, err := p.Read(jsonv.Value(placed))
		if err != nil || read.H != H.String() || read.Link != link {
			t.Fatalf("read %+v %v", read, err)
		}
		choice, err := p.Choose(read, str(t, b2, "input", "account"), nil, 1790000000, rails.NewRef())
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Build(choice, nil, H)
		wantRefusal(t, err, str(t, m1, "expectBuild", "code"))
		cred := jsonv.Obj("challenge", po, "payload", jsonv.Obj("network", "visa", "panLastFour", "4242",
			"encryptedPayload", "eyJhbGciOiJSU0EtT0FFUC0yNTYifQ.opaque"))
		_, err = p.Bound(cred)
		wantRefusal(t, err, str(t, m1, "expectBound", "code"))
		// Inspect states the charge the echo asks, and masks card data.
		in, err := p.Inspect(cred)
		if err != nil || in.H != H.String() || in.Grant.Amount.String() != "4999" || in.Grant.Payee != "merch_abc123" ||
			in.Grant.Asset != "usd" || in.Grant.Network != "card:visa" {
			t.Fatalf("inspect %+v %v", in, err)
		}
		if s := string(jsonv.Marshal(in.JSON())); strings.Contains(s, "eyJhbGciOiJSU0EtT0FFUC0yNTYifQ") {
			t.Fatalf("inspect shows the encrypted card data: %s", s)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		for _, rv := range get(t, f, "refusals", "rows").([]jsonv.Value) {
			r, _ := jsonv.AsObject(rv)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				req := obj(t, f, "M1", "request").Clone()
				req.Set("externalId", str(t, r, "externalId"))
				c := issued(req)
				_, err := p.Advertise([]jsonv.Value{c}, H, link, c, "")
				wantRefusal(t, err, str(t, r, "expect", "code"))
			})
		}
	})
	t.Run("pattern", func(t *testing.T) {
		pat := obj(t, f, "pattern")
		wantNoProofPattern(t, p, pat)
		if get(t, pat, "buyerSigns") != false {
			t.Fatal("buyerSigns")
		}
	})
	t.Run("B2", func(t *testing.T) {
		in := obj(t, b2, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		sg := newCountingSigner(t, signer.AnvilKey, "eip155:84532")
		if sg.Account() != str(t, in, "account") {
			t.Fatalf("account %s", sg.Account())
		}
		reg := rails.NewRegistry(p)
		_, err := s.gateFor(1790000000, reg).Transact(context.Background(), get(t, in, "doc"), str(t, b2, "pairing"), sg, nil)
		wantDecline(t, err, gate.Code(str(t, b2, "expect", "decline")), "")
		if sg.calls.Load() != 0 || s.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), s.fetches.Load())
		}
	})
}
