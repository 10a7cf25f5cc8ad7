package vectors_test

// mpp-charge-stellar.json: fixed, challenge, place, occupied, V3, plant,
// refusals, agreedRefusals and the buyer rows B2 and B6, and the build over
// x402-exact-stellar.json's V2 simulated envelope (the file reuses its
// fixtures). issuedDigest is named in the file's description but holds no
// row in this copy.

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/stellar"
)

func TestMPPChargeStellar(t *testing.T) {
	f := load(t, "mpp-charge-stellar.json")
	x := load(t, "x402-exact-stellar.json")
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	p := stellar.Charge{}
	challenge := obj(t, f, "challenge")
	placed := obj(t, f, "place", "expect")
	credential := func(c *jsonv.Object, payload jsonv.Value) *jsonv.Object {
		return jsonv.Obj("challenge", c, "payload", payload)
	}
	txPayload := func(envelope string) *jsonv.Object {
		return jsonv.Obj("type", "transaction", "transaction", envelope)
	}

	t.Run("fixed", func(t *testing.T) {
		id, err := mpp.ChallengeID(H, 0)
		if err != nil || id != str(t, fixed, "MV1") {
			t.Fatalf("id %s (%v)", id, err)
		}
		if mpp.LegalContextValue(H) != str(t, fixed, "L") {
			t.Fatal("L")
		}
		opaque := mpp.EncodeObject(jsonv.Obj("legalContext", str(t, fixed, "L"), "legalContextUrl", str(t, fixed, "link")))
		if opaque != str(t, fixed, "MV3opaque") {
			t.Fatalf("opaque %s", opaque)
		}
		m, err := stellar.Muxed(str(t, fixed, "request", "recipient"), H)
		if err != nil || m != str(t, fixed, "muxed") {
			t.Fatalf("muxed %s (%v)", m, err)
		}
	})

	t.Run("challenge", func(t *testing.T) {
		if got := mpp.EncodeObject(obj(t, fixed, "request")); got != str(t, challenge, "request") {
			t.Fatalf("request %s", got)
		}
		pairings, err := mpp.PairingsOf(challenge)
		if err != nil || len(pairings) != 1 || pairings[0] != stellar.ChargeID {
			t.Fatalf("pairings %v (%v)", pairings, err)
		}
		if n, err := mpp.Network(challenge); err != nil || n != str(t, fixed, "request", "methodDetails", "network") {
			t.Fatalf("network %s (%v)", n, err)
		}
	})

	t.Run("place", func(t *testing.T) {
		c, err := stellar.PlaceChallenge(challenge, H)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := mpp.Place([]jsonv.Value{c}, H, str(t, fixed, "link"), c, "")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := jsonv.String(doc[0]), jsonv.String(placed); got != want {
			t.Fatalf("placed\n got %s\nwant %s", got, want)
		}
		read, err := p.Read([]jsonv.Value{placed})
		if err != nil || read.H != H.String() || read.Link != str(t, fixed, "link") {
			t.Fatalf("read %+v (%v)", read, err)
		}
	})

	t.Run("occupied", func(t *testing.T) {
		_, err := stellar.PlaceRequest(obj(t, f, "occupied", "request"), H)
		wantRefusal(t, err, str(t, f, "occupied", "expect"))
	})

	t.Run("build", func(t *testing.T) {
		// feePayer true zeroes the source, which the simulation already left
		// zero, and expires − now = 60 s gives x402's expiration 1000: the
		// envelope is x402-exact-stellar.json V2's, byte for byte.
		v2 := obj(t, x, "V2")
		choice := jsonv.Obj("challenge", placed, "payer", str(t, x, "fixed", "payer"), "now", 1790000000,
			"simulatedXdr", str(t, v2, "simulatedXdr"), "currentLedger", get(t, v2, "currentLedger"))
		u, err := p.Build(choice, nil, H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		sig, err := stellarKey(t, str(t, x, "fixed", "payerSeed")).Sign(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		done, err := p.Complete(u, sig, rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		cred := done.Signed.(*jsonv.Object)
		if got, want := jsonv.String(cred), jsonv.String(credential(placed, txPayload(str(t, v2, "expectEnvelope")))); got != want {
			t.Fatalf("credential\n got %s\nwant %s", got, want)
		}
		if h, err := p.Bound(cred); err != nil || h != H.String() {
			t.Fatalf("bound %s (%v)", h, err)
		}
		name, value := mpp.Header(cred)
		back, err := mpp.ParseHeader(value)
		if name != "Authorization" || err != nil || jsonv.String(back) != jsonv.String(cred) {
			t.Fatalf("header %s (%v)", name, err)
		}
		// Later than expires: the expiration is the current ledger.
		late := choice.Clone()
		late.Set("now", jsonv.Number(1790000100))
		u, err = p.Build(late, nil, H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ = p.Request(u)
		a, err := stellar.ReadPreimage(unhex(t, str(t, req, "preimage")[2:]))
		if err != nil || a.Expiration != 988 {
			t.Fatalf("late expiration %+v (%v)", a, err)
		}
	})

	t.Run("V3", func(t *testing.T) {
		v := obj(t, f, "V3")
		cred := credential(placed, txPayload(str(t, v, "envelope")))
		h, err := p.Bound(cred)
		if err != nil || h != str(t, v, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		tr, network, _, err := p.ReadCredential(cred)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := stellar.Reference(tr, network)
		if err != nil || jsonv.String(ref) != jsonv.String(get(t, v, "expectReference")) {
			t.Fatalf("reference %s (%v)", jsonv.String(ref), err)
		}
		in, err := p.Inspect(cred)
		o := in.JSON()
		if err != nil || str(t, o, "h") != H.String() || str(t, o, "details", "muxedId") != str(t, v, "expectReference", "toId") ||
			str(t, o, "details", "authDigest") != str(t, v, "expectReference", "authDigest") || str(t, o, "payer") == "" {
			t.Fatalf("inspect %s (%v)", jsonv.String(o), err)
		}
	})

	t.Run("plant", func(t *testing.T) {
		_, err := p.Bound(credential(placed, txPayload(str(t, f, "plant", "envelope"))))
		wantRefusal(t, err, str(t, f, "plant", "expect"))
	})

	t.Run("refusals", func(t *testing.T) {
		rows := get(t, f, "refusals").([]jsonv.Value)
		t.Run(str(t, rows[0], "case"), func(t *testing.T) {
			_, err := p.Bound(credential(placed, get(t, rows[0], "payload")))
			wantRefusal(t, err, str(t, rows[0], "expect"))
		})
		t.Run(str(t, rows[1], "case"), func(t *testing.T) {
			// The challenge placed for H2: its id and opaque name H2, while
			// the envelope carries H's 8 bytes.
			H2 := mustHash(t, str(t, fixed, "H2"))
			c, err := stellar.PlaceChallenge(challenge, H2)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := mpp.Place([]jsonv.Value{c}, H2, str(t, fixed, "link"), c, "")
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Bound(credential(doc[0].(*jsonv.Object), txPayload(str(t, f, "V3", "envelope"))))
			wantRefusal(t, err, str(t, rows[1], "expect"))
		})
	})

	t.Run("agreedRefusals", func(t *testing.T) {
		checks := map[string]func(t *testing.T) error{
			"pairingsOf with a network other than stellar:pubnet or stellar:testnet, a currency not a C strkey, a recipient neither G nor M, or amount not decimal": func(t *testing.T) error {
				for _, mutate := range []func(r *jsonv.Object){
					func(r *jsonv.Object) { obj(t, r, "methodDetails").Set("network", "stellar:futurenet") },
					func(r *jsonv.Object) { r.Set("currency", str(t, fixed, "request", "recipient")) },
					func(r *jsonv.Object) { r.Set("recipient", str(t, fixed, "request", "currency")) },
					func(r *jsonv.Object) { r.Set("amount", "1.5") },
				} {
					r := obj(t, fixed, "request").Clone()
					r.Set("methodDetails", obj(t, r, "methodDetails").Clone())
					mutate(r)
					c := challenge.Clone()
					c.Set("request", mpp.EncodeObject(r))
					if _, err := mpp.PairingsOf(c); !isRefusal(err, stellar.CodeOptionMalformed) {
						return err
					}
				}
				return rails.Refuse(stellar.CodeOptionMalformed)
			},
			"advertise on a recipient that is not a valid G strkey": func(t *testing.T) error {
				r := obj(t, fixed, "request").Clone()
				r.Set("recipient", str(t, fixed, "request", "recipient")[:55]+"A")
				_, err := stellar.PlaceRequest(r, H)
				return err
			},
			"fetchPresented when the reader fails": func(t *testing.T) error {
				return stellarFetchPresented(t, true, placed, str(t, f, "V3", "envelope"), H.String())
			},
			"fetchPresented when the transaction is not found or has no envelope": func(t *testing.T) error {
				return stellarFetchPresented(t, false, placed, str(t, f, "V3", "envelope"), H.String())
			},
			"a payload type other than transaction or hash": func(t *testing.T) error {
				_, err := p.Bound(credential(placed, jsonv.Obj("type", "signature", "transaction", str(t, f, "V3", "envelope"))))
				return err
			},
		}
		for _, rv := range get(t, f, "agreedRefusals", "rows").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				check, ok := checks[str(t, r, "case")]
				if !ok {
					t.Skipf("%s: the seller's fetch of a pushed transaction (fetchPresented), which the buyer gate never does", str(t, r, "expect"))
				}
				wantRefusal(t, check(t), str(t, r, "expect"))
			})
		}
	})

	stellarBuyerRows(t, f, str(t, x, "fixed", "payerSeed"))
}
