package vectors_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/checkout"
	"github.com/termsgate/termsgate/rails/sdjwt"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// wantAP2 compares an outcome with a row's expect: a refusal's code, or the
// value (a string or JSON) byte for byte.
func wantAP2(t *testing.T, expect jsonv.Value, got jsonv.Value, err error) {
	t.Helper()
	if o, ok := jsonv.AsObject(expect); ok && o.Has("refused") {
		var r *rails.Refusal
		code, _ := o.GetString("code")
		if !errors.As(err, &r) || r.Code != code {
			t.Fatalf("got %v, want refusal %s", err, code)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if string(jsonv.Marshal(got)) != string(jsonv.Marshal(expect)) {
		t.Fatalf("got %s\nwant %s", jsonv.Marshal(got), jsonv.Marshal(expect))
	}
}

func lcJSON(lc checkout.LegalContext) jsonv.Value {
	return jsonv.Obj("h", lc.H, "link", lc.Link, "checkout", lc.Checkout)
}

// TestAP2CheckoutMandate runs every row of ap2-checkout-mandate.json through
// rails/checkout: the reader rows, V1–V6, the plant, the pattern and the buyer
// rows B2 (through the gate, no signer call) and B6 (gate.Check).
func TestAP2CheckoutMandate(t *testing.T) {
	f := load(t, "ap2-checkout-mandate.json")
	J := str(t, f, "built", "J")
	M := str(t, f, "built", "M")
	H := str(t, f, "fixed", "H")
	for _, row := range sdArr(t, f, "implementation") {
		t.Run("implementation/"+str(t, row, "name"), func(t *testing.T) {
			in := obj(t, row, "input")
			expect := get(t, row, "expect")
			switch str(t, row, "fn") {
			case "read":
				lc, err := checkout.ReadCheckoutJWT(str(t, in, "doc"))
				wantAP2(t, expect, lcJSON(lc), err)
			case "advertise":
				p, err := checkout.Advertise(obj(t, in, "payload"), obj(t, in, "offer"), str(t, in, "h"), str(t, in, "link"))
				wantAP2(t, expect, p, err)
			case "bound":
				h, err := checkout.Bound(str(t, in, "checkout_mandate"), str(t, in, "checkout_jwt"))
				wantAP2(t, expect, h, err)
			case "checkoutJwtOf":
				j, err := checkout.CheckoutJWTOf(str(t, in, "m"))
				wantAP2(t, expect, j, err)
			default:
				t.Fatalf("fn %s", str(t, row, "fn"))
			}
		})
	}
	t.Run("V1", func(t *testing.T) {
		v1 := get(t, f, "V1")
		slot := jsonv.Obj("options", get(t, v1, "options"))
		if str(t, v1, "expectSlotName") != "ap2" || string(jsonv.Canonical(slot)) != str(t, v1, "expectSlotBytes") {
			t.Fatalf("slot %s", jsonv.Canonical(slot))
		}
		a, err := jsonv.Parse([]byte(str(t, f, "fixed", "A")))
		if err != nil {
			t.Fatal(err)
		}
		ao, _ := jsonv.AsObject(a)
		inA, _ := ao.Get("ap2")
		if string(jsonv.Canonical(inA)) != str(t, v1, "expectSlotBytes") {
			t.Fatal("A's ap2 slot")
		}
	})
	t.Run("V2", func(t *testing.T) {
		v2 := get(t, f, "V2")
		adv := obj(t, v2, "advertise")
		p, err := checkout.Advertise(obj(t, adv, "payload"), obj(t, adv, "offer"), str(t, adv, "h"), str(t, adv, "link"))
		wantAP2(t, get(t, v2, "expectPayload"), p, err)
		if string(jsonv.Marshal(p)) != str(t, f, "fixed", "V2Payload") {
			t.Fatal("payload bytes are not fixed.V2Payload")
		}
		if len(J) != int(ap2Num(t, v2, "expectJLength")) {
			t.Fatalf("J length %d", len(J))
		}
		lc, err := checkout.ReadCheckoutJWT(J)
		wantAP2(t, get(t, v2, "expectRead"), lcJSON(lc), err)
		_, err = checkout.Advertise(obj(t, adv, "payload"), obj(t, adv, "offer"), str(t, adv, "h"), str(t, v2, "httpLink", "link"))
		wantAP2(t, get(t, v2, "httpLink", "expect"), nil, err)
		_, err = checkout.Advertise(p, obj(t, adv, "offer"), str(t, adv, "h"), str(t, v2, "conflict", "otherLink"))
		wantAP2(t, get(t, v2, "conflict", "expect"), nil, err)
		_, err = checkout.Advertise(obj(t, adv, "payload"), obj(t, v2, "otherCheckout", "offer"), str(t, adv, "h"), str(t, adv, "link"))
		wantAP2(t, get(t, v2, "otherCheckout", "expect"), nil, err)
	})
	t.Run("V3", func(t *testing.T) {
		if d := x402.IssuedDigest(get(t, f, "V3", "option")).String(); d != str(t, f, "V3", "expectIssuedDigest") {
			t.Fatalf("issued digest %s", d)
		}
	})
	t.Run("V4", func(t *testing.T) {
		o, err := checkout.CheckoutMandate(M)
		if err != nil {
			t.Fatal(err)
		}
		if ch, _ := o.GetString("checkout_hash"); ch != str(t, f, "V4", "expectCheckoutHash") || sdjwt.Digest(J) != ch {
			t.Fatalf("checkout hash %s", ch)
		}
		if vct, _ := o.GetString("vct"); vct != str(t, f, "V4", "expectVct") {
			t.Fatal("vct")
		}
		h, err := checkout.Bound(M, J)
		if err != nil || h != H {
			t.Fatalf("bound %s %v", h, err)
		}
		err = checkout.CheckBound(M, J, str(t, f, "V4", "otherHash"))
		wantAP2(t, get(t, f, "V4", "otherHashExpect"), nil, err)
		if err := checkout.CheckBound(M, J, H); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("V5", func(t *testing.T) {
		v5 := get(t, f, "V5")
		if sdjwt.Digest(str(t, f, "built", "D")) != str(t, v5, "expectDisclosureDigest") {
			t.Fatal("disclosure digest")
		}
		h, err := checkout.Bound(M, J)
		wantAP2(t, get(t, v5, "expectBound"), h, err)
		h, err = checkout.Bound(str(t, v5, "withoutDisclosure", "mandate"), J)
		wantAP2(t, get(t, v5, "withoutDisclosure", "expect"), h, err)
		t.Run("saltIroB", func(t *testing.T) {
			// The disclosure with another salt, in the place of D: its digest
			// is listed nowhere.
			m := str(t, v5, "withoutDisclosure", "mandate") + str(t, v5, "saltIroB", "disclosure") + "~"
			h, err := checkout.Bound(m, J)
			wantAP2(t, get(t, v5, "saltIroB", "expect"), h, err)
		})
	})
	t.Run("V6", func(t *testing.T) {
		v6 := get(t, f, "V6")
		tok := str(t, v6, "token")
		if len(tok) != int(ap2Num(t, v6, "tokenBytes")) || sha256Hex(tok) != str(t, v6, "tokenSha256") {
			t.Fatal("token pin")
		}
		p, err := sdjwt.Parse(tok)
		if err != nil {
			t.Fatal(err)
		}
		var ds []jsonv.Value
		for _, d := range p.Disclosures {
			ds = append(ds, d.Digest)
		}
		if string(jsonv.Marshal(ds)) != string(jsonv.Marshal(get(t, v6, "expectDisclosureDigests"))) {
			t.Fatalf("disclosure digests %s", jsonv.Marshal(ds))
		}
		cj := str(t, v6, "checkoutJwt")
		o, err := checkout.CheckoutMandate(tok)
		if err != nil {
			t.Fatal(err)
		}
		if ch, _ := o.GetString("checkout_hash"); ch != str(t, v6, "expectCheckoutHash") || sdjwt.Digest(cj) != ch {
			t.Fatal("checkout hash")
		}
		if len(cj) != int(ap2Num(t, v6, "expectCheckoutJwtLength")) {
			t.Fatal("checkout JWT length")
		}
		_, err = checkout.Bound(tok, cj)
		wantAP2(t, get(t, v6, "expectBound"), nil, err)
		id, _ := checkout.CheckoutID(cj)
		if id != str(t, v6, "expectCheckoutId") {
			t.Fatalf("checkout id %q", id)
		}
	})
	reg := rails.NewRegistry(checkout.AP2{})
	t.Run("pattern", func(t *testing.T) { wantNoProofPattern(t, checkout.AP2{}, obj(t, f, "pattern", "expect")) })
	t.Run("B2", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B2")
		in := obj(t, r, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		sg := newCountingSigner(t, signer.AnvilKey, "eip155:84532")
		if sg.Account() != str(t, in, "account") {
			t.Fatalf("account %s", sg.Account())
		}
		_, err := s.gateFor(1790000000, reg).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, nil)
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if sg.calls.Load() != 0 || s.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), s.fetches.Load())
		}
	})
	t.Run("B6", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B6")
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
	t.Run("plant", func(t *testing.T) {
		_, err := checkout.Bound(M, str(t, f, "plant", "checkoutJwt"))
		wantAP2(t, get(t, f, "plant", "expect"), nil, err)
		if !strings.Contains(str(t, f, "plant", "case"), "39800") {
			t.Fatal("plant case")
		}
	})
}

func ap2Num(t *testing.T, v jsonv.Value, path ...string) int64 {
	t.Helper()
	n, ok := jsonv.AsSafeInt(get(t, v, path...))
	if !ok {
		t.Fatalf("vector path %v is not an integer", path)
	}
	return n
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
