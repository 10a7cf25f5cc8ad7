package vectors_test

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/checkout"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func acpReadJSON(r checkout.ACPRead) jsonv.Value { return jsonv.Obj("h", r.H, "link", r.Link) }

// TestACPCheckout runs every row of acp-checkout.json through rails/checkout
// (both pairings): V1–V6, the plant, the patterns, the agreed refusals, B2 of
// each pairing through the gate and B6 of the delegated one.
func TestACPCheckout(t *testing.T) {
	f := load(t, "acp-checkout.json")
	H := str(t, f, "fixed", "H")
	t.Run("V1", func(t *testing.T) {
		v := get(t, f, "V1")
		slot := []jsonv.Value{"acp", jsonv.Obj("options", get(t, v, "options"))}
		if string(jsonv.Marshal(slot)) != string(jsonv.Marshal(get(t, v, "expectSlot"))) || string(jsonv.Canonical(get(t, slot[1]))) != str(t, v, "expectSlotText") {
			t.Fatalf("slot %s", jsonv.Marshal(slot))
		}
		a := []byte(str(t, v, "assemble", "expectBytes"))
		if a := string(a); a != str(t, f, "fixed", "A") || atr.Sum([]byte(a)).String() != str(t, v, "assemble", "expectHash") || atr.Sum([]byte(a)).String() != H {
			t.Fatal("A and H")
		}
	})
	t.Run("V2", func(t *testing.T) {
		v := get(t, f, "V2")
		adv := obj(t, v, "advertise")
		s, err := checkout.ACPAdvertise(get(t, adv, "doc"), str(t, adv, "h"), str(t, adv, "link"), get(t, adv, "offer"))
		wantAP2(t, get(t, v, "expectSession"), s, err)
		r, err := checkout.ACPReadSession(s)
		wantAP2(t, get(t, v, "expectRead"), acpReadJSON(r), err)
		up := s.Clone()
		up.Set("id", get(t, v, "readUpperCaseId", "id"))
		if r, err := checkout.ACPReadSession(up); err != nil || r.H != str(t, v, "readUpperCaseId", "expectH") {
			t.Fatalf("upper-case id: %v", err)
		}
		_, err = checkout.ACPAdvertise(get(t, v, "idConflict", "doc"), str(t, adv, "h"), str(t, adv, "link"), get(t, adv, "offer"))
		wantAP2(t, get(t, v, "idConflict", "expect"), nil, err)
		_, err = checkout.ACPAdvertise(get(t, adv, "doc"), str(t, adv, "h"), str(t, v, "httpLink", "link"), get(t, adv, "offer"))
		wantAP2(t, get(t, v, "httpLink", "expect"), nil, err)
	})
	t.Run("V3", func(t *testing.T) {
		for _, d := range sdArr(t, f, "V3", "digests") {
			if got := x402.IssuedDigest(get(t, d, "option")).String(); got != str(t, d, "expect") {
				t.Fatalf("digest %s", got)
			}
		}
	})
	t.Run("V4", func(t *testing.T) {
		v := get(t, f, "V4")
		p, err := checkout.ACPBuildAllowance(get(t, v, "choice"), str(t, v, "h"))
		if err != nil {
			t.Fatal(err)
		}
		a, _ := p.GetObject("allowance")
		wantAP2(t, get(t, v, "expectAllowance"), a, nil)
		h, err := checkout.ACPBound(p)
		wantAP2(t, get(t, v, "expectBound"), h, err)
		changed := a.Clone()
		changed.Set("checkout_session_id", get(t, v, "changedSessionId", "checkout_session_id"))
		wantAP2(t, get(t, v, "changedSessionId", "expect"), nil, checkout.ACPAllowanceUnchanged(a, changed))
		if err := checkout.ACPAllowanceUnchanged(a, a.Clone()); err != nil {
			t.Fatal(err)
		}
		c := obj(t, v, "choice").Clone()
		c.Set("currency", get(t, v, "upperCurrency", "currency"))
		_, err = checkout.ACPBuildAllowance(c, str(t, v, "h"))
		wantAP2(t, get(t, v, "upperCurrency", "expect"), nil, err)
	})
	t.Run("V5", func(t *testing.T) {
		v := get(t, f, "V5")
		r, err := checkout.ACPUndelegated{}.Read(get(t, v, "session"))
		wantAP2(t, get(t, v, "expectRead"), jsonv.Obj("h", r.H, "link", r.Link), err)
		_, err = checkout.ACPUndelegated{}.Build(nil, nil, atr.Hash{})
		wantAP2(t, get(t, v, "expectBuild"), nil, err)
		_, err = checkout.ACPUndelegated{}.Bound(get(t, v, "session"))
		wantAP2(t, get(t, v, "expectBound"), nil, err)
	})
	t.Run("V6", func(t *testing.T) {
		_, err := checkout.ACPReadSession(get(t, f, "V6", "doc"))
		wantAP2(t, get(t, f, "V6", "expect"), nil, err)
	})
	t.Run("plant", func(t *testing.T) {
		_, err := checkout.ACPReadSession(get(t, f, "plant", "doc"))
		wantAP2(t, get(t, f, "plant", "expect"), nil, err)
	})
	t.Run("patterns", func(t *testing.T) {
		wantNoProofPattern(t, checkout.ACPDelegated{}, obj(t, f, "patterns", checkout.ACPDelegatedID))
		wantNoProofPattern(t, checkout.ACPUndelegated{}, obj(t, f, "patterns", checkout.ACPUndelegatedID))
	})
	for _, r := range sdArr(t, f, "agreedRefusals", "rows") {
		t.Run("agreedRefusals/"+str(t, r, "case"), func(t *testing.T) {
			args := expandRepeat(sdArr(t, r, "args")).([]jsonv.Value)
			expect := get(t, r, "expect")
			switch str(t, r, "call") {
			case "delegated.advertise", "undelegated.advertise":
				h, _ := jsonv.AsString(args[1])
				link, _ := jsonv.AsString(args[2])
				out, err := checkout.ACPAdvertise(args[0], h, link, args[3])
				wantAP2(t, expect, out, err)
			case "delegated.read":
				got, err := checkout.ACPReadSession(args[0])
				wantAP2(t, expect, acpReadJSON(got), err)
			case "delegated.build":
				h, _ := jsonv.AsString(args[1])
				out, err := checkout.ACPBuildAllowance(args[0], h)
				wantAP2(t, expect, out, err)
			case "delegated.bound":
				h, err := checkout.ACPBound(args[0])
				wantAP2(t, expect, h, err)
			default:
				t.Fatalf("call %s", str(t, r, "call"))
			}
		})
	}
	reg := rails.NewRegistry(checkout.ACPDelegated{}, checkout.ACPUndelegated{})
	for _, r := range sdArr(t, f, "buyer", "rows") {
		name := str(t, r, "name") + "/" + str(t, r, "pairing")
		switch str(t, r, "name") {
		case "B2":
			t.Run(name, func(t *testing.T) {
				in := obj(t, r, "input")
				s := newATRSeller(t)
				s.serveBytes(unhex(t, str(t, in, "servesHex")))
				sg := newCountingSigner(t, signer.AnvilKey, "eip155:84532")
				if sg.Account() != str(t, in, "account") {
					t.Fatalf("account %s", sg.Account())
				}
				var opts *gate.TransactOptions
				if in.Has("inputs") {
					opts = &gate.TransactOptions{Inputs: obj(t, in, "inputs")}
				}
				_, err := s.gateFor(1790000000, reg).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, opts)
				wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
				if sg.calls.Load() != 0 || s.fetches.Load() != 1 {
					t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), s.fetches.Load())
				}
			})
		case "B6":
			t.Run(name, func(t *testing.T) {
				b6 := obj(t, r, "input", "presented")
				checks := get(t, r, "input", "check").([]jsonv.Value)
				expects := get(t, r, "expect").([]jsonv.Value)
				g := &gate.Gate{Pairings: reg}
				h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), str(t, r, "pairing"), b6)
				if err != nil || h.String() != str(t, expects[0], "h") {
					t.Fatalf("check = %v, %v", h, err)
				}
				_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), str(t, r, "pairing"), b6)
				wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
			})
		default:
			t.Fatalf("buyer row %s", str(t, r, "name"))
		}
	}
	t.Run("noSignedPayment", func(t *testing.T) {
		if _, ok := obj(t, f, "buyer", "noSignedPayment").GetString(checkout.ACPUndelegatedID); !ok {
			t.Fatal("no reason")
		}
	})
}
