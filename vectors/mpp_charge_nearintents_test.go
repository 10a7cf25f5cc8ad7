package vectors_test

// mpp-charge-nearintents.json: fixed, challenge, place, occupied, bound,
// plant, the agreed refusals, and the buyer rows B2 and B6.

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/near"
)

func TestMPPChargeNEARIntents(t *testing.T) {
	f := load(t, "mpp-charge-nearintents.json")
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	link := str(t, fixed, "link")
	p := near.NearIntents{}
	issued := obj(t, f, "challenge")
	placed := obj(t, f, "place", "expect")
	credential := func(challenge *jsonv.Object, payload jsonv.Value) *jsonv.Object {
		return jsonv.Obj("challenge", challenge, "payload", payload)
	}
	// withRequest is the placed challenge with its request changed by set.
	withRequest := func(path string, v jsonv.Value) *jsonv.Object {
		req, _ := mpp.DecodeObject(mpp.String(placed, "request"))
		c := placed.Clone()
		c.Set("request", mpp.EncodeObject(setDotted(req, path, v)))
		return c
	}
	t.Run("fixed", func(t *testing.T) {
		if mpp.LegalContextValue(H) != str(t, fixed, "L") {
			t.Fatal("L")
		}
		if id, _ := mpp.ChallengeID(H, 0); id != str(t, fixed, "MV1") {
			t.Fatalf("MV1 %s", id)
		}
		if mpp.String(placed, "opaque") != str(t, fixed, "MV3opaque") {
			t.Fatal("MV3opaque")
		}
		if mustHash(t, str(t, fixed, "H2")) != atr.Sum(nil) {
			t.Fatal("H2 is not SHA-256 of no bytes")
		}
	})
	t.Run("challenge", func(t *testing.T) {
		// The issued request is fixed.request as canonical JSON, and offers the pairing.
		if mpp.String(issued, "request") != mpp.EncodeObject(obj(t, fixed, "request")) {
			t.Fatal("the challenge's request is not fixed.request")
		}
		if ps, err := mpp.PairingsOf(issued); err != nil || len(ps) != 1 || ps[0] != near.NearIntentsID {
			t.Fatalf("pairings %v %v", ps, err)
		}
	})
	t.Run("place", func(t *testing.T) {
		doc, err := p.Advertise([]jsonv.Value{issued}, H, link, issued, "")
		if err != nil {
			t.Fatal(err)
		}
		if string(jsonv.Marshal(doc[0])) != string(jsonv.Marshal(placed)) {
			t.Fatalf("placed %s", jsonv.Marshal(doc[0]))
		}
	})
	t.Run("occupied", func(t *testing.T) {
		c := issued.Clone()
		c.Set("request", mpp.EncodeObject(obj(t, f, "occupied", "request")))
		_, err := p.Advertise([]jsonv.Value{c}, H, link, c, "")
		wantRefusal(t, err, str(t, f, "occupied", "expect"))
	})
	t.Run("bound", func(t *testing.T) {
		h, err := p.Bound(credential(placed, get(t, f, "bound", "payload")))
		if err != nil || h != str(t, f, "bound", "expect") {
			t.Fatalf("bound %s %v", h, err)
		}
	})
	t.Run("plant", func(t *testing.T) {
		_, err := p.Bound(credential(placed, get(t, f, "plant", "payload")))
		wantRefusal(t, err, str(t, f, "plant", "expect"))
	})
	hashPayload := get(t, f, "bound", "payload")
	for _, rv := range get(t, f, "agreedRefusals", "rows").([]jsonv.Value) {
		r, _ := jsonv.AsObject(rv)
		t.Run("agreedRefusals/"+str(t, r, "case"), func(t *testing.T) {
			want := str(t, r, "expect")
			switch want {
			case mpp.CodeRequestMalformed:
				// Each required field missing, one not a string, a network not
				// CAIP-2, an amount not decimal.
				for _, set := range []struct {
					path string
					v    jsonv.Value
				}{{"recipient", nil}, {"currency", nil}, {"methodDetails.refundTo", nil}, {"methodDetails.destinationAsset", jsonv.Number(7)},
					{"methodDetails.originNetwork", "Arbitrum"}, {"methodDetails.destinationNetwork", "near"},
					{"amount", "1.5"}, {"methodDetails.amountOut", "-1"}, {"methodDetails.minAmountIn", nil}} {
					c := issued.Clone()
					c.Set("request", mpp.EncodeObject(setDotted(obj(t, fixed, "request"), set.path, set.v)))
					_, err := mpp.PairingsOf(c)
					if err == nil || err.Error() != "refused: "+want {
						t.Errorf("%s = %v: %v", set.path, set.v, err)
					}
				}
			case mpp.CodeCredentialTypes:
				for _, types := range [][]jsonv.Value{{"transaction"}, {"hash", "transaction"}, {}, {"hash", "hash"}} {
					c := issued.Clone()
					c.Set("request", mpp.EncodeObject(setDotted(obj(t, fixed, "request"), "methodDetails.credentialTypes", types)))
					_, err := mpp.PairingsOf(c)
					if err == nil || err.Error() != "refused: "+want {
						t.Errorf("credentialTypes %v: %v", types, err)
					}
				}
			case near.CodeMemoNotLCP:
				_, err := p.Bound(credential(withRequest("externalId", "order_12345"), hashPayload))
				wantRefusal(t, err, want)
			case near.CodeCarrierNotChallenge:
				_, err := p.Bound(credential(withRequest("externalId", mpp.LegalContextPrefix+str(t, fixed, "H2")), hashPayload))
				wantRefusal(t, err, want)
			default:
				t.Fatalf("a refusal this test does not know: %s", want)
			}
		})
	}
	rows := get(t, f, "buyer", "rows")
	t.Run("B2", func(t *testing.T) {
		r := row(t, rows, "B2")
		in := obj(t, r, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		wallet := &lnNode{account: str(t, in, "account")} // counts its calls and signs nothing
		_, err := s.gateFor(0, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), wallet, nil)
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if wallet.calls.Load() != 0 || s.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", wallet.calls.Load(), s.fetches.Load())
		}
	})
	t.Run("B6", func(t *testing.T) {
		r := row(t, rows, "B6")
		presented := get(t, r, "input", "presented")
		checks := get(t, r, "input", "check").([]jsonv.Value)
		expects := get(t, r, "expect").([]jsonv.Value)
		g := &gate.Gate{}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), str(t, r, "pairing"), presented)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), str(t, r, "pairing"), presented)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
		// B6's challenge is the placed one.
		if string(jsonv.Marshal(get(t, presented, "challenge"))) != string(jsonv.Marshal(placed)) {
			t.Fatal("B6 echoes another challenge than place.expect")
		}
	})
}
