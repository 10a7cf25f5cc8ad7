package vectors_test

// mpp-charge-usdc-solana.json: fixed (the usdc challenge placed, as the
// buyer rows hold it), V2, refusals (the placement's and the credentials'),
// patternAs and the buyer rows B2 and B6.

import (
	"strconv"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/solana"
)

func TestMPPChargeUSDCSolana(t *testing.T) {
	f := load(t, "mpp-charge-usdc-solana.json")
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	p := solana.ChargeUSDC{}
	issued := func(request *jsonv.Object) *jsonv.Object {
		return jsonv.Obj("realm", str(t, fixed, "realm"), "method", "usdc", "intent", "charge",
			"request", mpp.EncodeObject(request), "expires", str(t, fixed, "expires"))
	}
	place := func(request *jsonv.Object) (*jsonv.Object, error) {
		ch, err := solana.PlaceUSDCChallenge(issued(request), H)
		if err != nil {
			return nil, err
		}
		doc, err := mpp.Place([]jsonv.Value{ch}, H, str(t, fixed, "link"), ch, "")
		if err != nil {
			return nil, err
		}
		return doc[0].(*jsonv.Object), nil
	}
	b2doc := get(t, row(t, get(t, f, "buyer", "rows"), "B2"), "input", "doc").([]jsonv.Value)
	placed := b2doc[0].(*jsonv.Object)
	c := solanaChargeCase{p: p, placed: placed, wire: str(t, f, "V2", "wireBase64"),
		payer: "AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9", network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"}

	t.Run("fixed", func(t *testing.T) {
		got, err := place(obj(t, fixed, "request"))
		if err != nil || jsonv.String(got) != jsonv.String(placed) {
			t.Fatalf("placed %s (%v)\nwant %s", jsonv.String(got), err, jsonv.String(placed))
		}
		if id := mpp.String(got, "id"); id != str(t, fixed, "MV1") {
			t.Fatalf("id %s", id)
		}
		pairings := mpp.PairingsOfPlaced(got)
		if len(pairings) != 1 || pairings[0] != solana.ChargeUSDCID {
			t.Fatalf("pairings %v", pairings)
		}
		if n, err := mpp.Network(got); err != nil || n != c.network {
			t.Fatalf("network %s (%v)", n, err)
		}
	})

	t.Run("V2", func(t *testing.T) {
		cred := c.credential(nil, txPayload(c.wire))
		h, err := p.Bound(cred)
		if err != nil || h != str(t, f, "V2", "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		ref, err := p.Reference(cred)
		if err != nil || jsonv.String(ref) != jsonv.String(get(t, f, "V2", "expectReference")) {
			t.Fatalf("reference %s (%v)", jsonv.String(ref), err)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		for i, rv := range get(t, f, "refusals", "rows").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				q := obj(t, fixed, "request").Clone()
				d, _ := q.GetObject("methodDetails")
				if ext, ok := r.GetString("externalId"); ok {
					q.Set("externalId", ext)
				}
				if extra, ok := r.GetObject("extra"); ok {
					for _, m := range extra.Members() {
						d.Set(m.Key, m.Value)
					}
				}
				if typ, ok := r.GetString("type"); ok {
					d.Set("type", typ)
				}
				if drop, _ := r.Get("dropNetwork"); drop == true {
					s, _ := d.GetObject("solana")
					s.Delete("network")
				}
				if exp, _ := r.Get("expect"); get(t, exp, "refused") != true {
					t.Fatal("a refusal row that does not refuse")
				}
				_, err := place(q)
				wantRefusal(t, err, str(t, r, "expect", "code"))
			})
		}
	})
	t.Run("credentials", func(t *testing.T) {
		for i, rv := range get(t, f, "refusals", "credentials", "rows").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				cred := c.credential(nil, obj(t, r, "payload"))
				_, err := p.Bound(cred)
				wantRefusal(t, err, str(t, r, "expect", "code"))
				_, err = p.Reference(cred)
				wantRefusal(t, err, str(t, r, "expect", "code"))
			})
		}
	})
	t.Run("patternAs", func(t *testing.T) {
		if str(t, f, "patternAs") != solana.ChargeID || p.Pattern() != (solana.Charge{}).Pattern() {
			t.Fatalf("pattern %+v", p.Pattern())
		}
	})

	solanaChargeBuyerRows(t, f, c)
}
