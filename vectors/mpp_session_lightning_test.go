package vectors_test

// mpp-session-lightning.json: fixed, S1 (placed, the unplaced request, the
// open built and completed, bound, the later actions, the return invoice
// rows) and the buyer rows B2 and B6.

import (
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/lightning"
	"github.com/termsgate/termsgate/rails/mpp"
)

func TestMPPSessionLightning(t *testing.T) {
	f := load(t, "mpp-session-lightning.json")
	fixed := obj(t, f, "fixed")
	s1 := obj(t, f, "S1")
	H := mustHash(t, str(t, fixed, "H"))
	p := lightning.Session{}
	presented := obj(t, row(t, get(t, f, "buyer", "rows"), "B6"), "input", "presented")
	c := obj(t, s1, "challenge").Clone()
	c.Set("request", mpp.EncodeObject(obj(t, s1, "request")))

	t.Run("fixed", func(t *testing.T) {
		in, err := lightning.Decode(str(t, fixed, "returnInvoice"))
		if err != nil || in.AmountMsat != nil {
			t.Fatalf("the return invoice: %v %+v", err, in)
		}
	})
	t.Run("S1", func(t *testing.T) {
		placed, err := p.Advertise([]jsonv.Value{c}, H, str(t, fixed, "link"), c, "")
		if err != nil {
			t.Fatal(err)
		}
		po, _ := jsonv.AsObject(placed[0])
		if string(jsonv.Canonical(po)) != string(jsonv.Canonical(get(t, presented, "challenge"))) {
			t.Fatalf("placed %s", jsonv.Marshal(po))
		}
		un := lightning.UnplacedSessionRequest(obj(t, s1, "request"))
		if string(jsonv.Canonical(un)) != string(jsonv.Canonical(get(t, s1, "expectUnplacedRequest"))) {
			t.Fatalf("unplaced %s", jsonv.Marshal(un))
		}
		// The open, built from the placed challenge and completed with the preimage, is B6's.
		choice := jsonv.Obj("challenge", po, "returnInvoice", str(t, fixed, "returnInvoice"), "now", 1790000000)
		u, err := p.Build(choice, nil, H)
		if err != nil {
			t.Fatal(err)
		}
		done, err := p.Complete(u, str(t, fixed, "preimage"), chosenFor(p.ID(), choice))
		if err != nil || string(jsonv.Canonical(done.Signed)) != string(jsonv.Canonical(presented)) {
			t.Fatalf("open %s %v", jsonv.Marshal(done.Signed), err)
		}
		h, err := p.Bound(presented)
		if err != nil || h != str(t, s1, "expectBound") {
			t.Fatalf("bound %s %v", h, err)
		}
		if ref, err := p.ChannelRef(presented); err != nil || ref.Channel != str(t, fixed, "paymentHash") {
			t.Fatalf("channel %+v %v", ref, err)
		}
		t.Run("rows", func(t *testing.T) {
			for _, rv := range get(t, s1, "rows").([]jsonv.Value) {
				r, _ := jsonv.AsObject(rv)
				t.Run(str(t, r, "case"), func(t *testing.T) {
					later := presented.Clone()
					later.Set("payload", jsonv.Clone(get(t, r, "payload")))
					_, err := p.Bound(later)
					wantRefusal(t, err, str(t, r, "expect", "code"))
					// The session still names the channel the open started.
					if ref, err := p.ChannelRef(later); err != nil || ref.Channel != str(t, fixed, "paymentHash") {
						t.Fatalf("channel %+v %v", ref, err)
					}
					if _, err := p.BoundWithin(later); err == nil {
						t.Fatal("a later action read as bound")
					}
				})
			}
		})
		t.Run("returnInvoiceRows", func(t *testing.T) {
			for _, rv := range get(t, s1, "returnInvoiceRows").([]jsonv.Value) {
				r, _ := jsonv.AsObject(rv)
				t.Run(str(t, r, "case"), func(t *testing.T) {
					ch := jsonv.Obj("challenge", po, "now", 1790000000)
					if v, _ := r.Get("returnInvoice"); v != nil {
						ch.Set("returnInvoice", v)
					}
					_, err := p.Build(ch, nil, H)
					if get(t, r, "expectRefused") != true {
						t.Fatal("the row expects no refusal")
					}
					wantRefusal(t, err, str(t, r, "expectCode"))
				})
			}
		})
	})
	lnBuyerRows(t, f)
}
