package vectors_test

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/checkout"
	"github.com/termsgate/termsgate/rails/sdjwt"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func ucpPairing(t *testing.T, id string) checkout.UCP {
	t.Helper()
	for _, p := range []checkout.UCP{checkout.UCPCheckoutMandate, checkout.UCPCheckoutUnsigned, checkout.UCPBookingMandate, checkout.UCPBookingUnsigned} {
		if p.ID() == id {
			return p
		}
	}
	t.Fatalf("pairing %s", id)
	return checkout.UCP{}
}

// TestUCP runs every row of ucp.json through rails/checkout's four UCP
// pairings: V1–V6, the plant, the reader rows, the patterns, and B2 (each
// pairing, through the gate) and B6 (the AP2 forms).
func TestUCP(t *testing.T) {
	f := load(t, "ucp.json")
	J := str(t, f, "built", "J")
	M := str(t, f, "built", "M")
	unsigned := checkout.UCPCheckoutUnsigned
	mandate := checkout.UCPCheckoutMandate
	t.Run("V1", func(t *testing.T) {
		v := get(t, f, "V1")
		if str(t, v, "expectSlotName") != "ucp" || string(jsonv.Canonical(jsonv.Obj("options", get(t, v, "options")))) != str(t, v, "expectSlotBytes") {
			t.Fatal("slot")
		}
	})
	t.Run("V2", func(t *testing.T) {
		v := get(t, f, "V2")
		adv := obj(t, v, "advertise")
		c, err := unsigned.Advertise(get(t, adv, "doc"), str(t, adv, "h"), str(t, adv, "link"), get(t, adv, "offer"))
		wantAP2(t, get(t, v, "expectCheckout"), c, err)
		r, err := unsigned.ReadDoc(c)
		wantAP2(t, get(t, v, "expectRead"), acpReadJSON(r), err)
		_, err = mandate.ReadDoc(c)
		wantAP2(t, get(t, v, "expectAp2Read"), nil, err)
		signed := c.Clone()
		signed.Set("ap2", jsonv.Obj("merchant_authorization", str(t, f, "fixed", "merchantAuthorization")))
		_, err = mandate.Advertise(signed, str(t, adv, "h"), str(t, adv, "link"), get(t, adv, "offer"))
		wantAP2(t, get(t, v, "expectAlreadySigned"), nil, err)
		_, err = unsigned.Advertise(c, str(t, v, "otherH"), str(t, adv, "link"), get(t, adv, "offer"))
		wantAP2(t, get(t, v, "expectConflict"), nil, err)
		if string(jsonv.Marshal(c)) != string(mustB64Payload(t, J)) || len(J) != int(ap2Num(t, v, "expectJLength")) {
			t.Fatal("J is not the advertised checkout written compactly")
		}
		if r, err := mandate.ReadDoc(signed); err != nil || r.H != str(t, f, "fixed", "H") {
			t.Fatalf("the signed checkout: %v", err)
		}
	})
	t.Run("V2b", func(t *testing.T) {
		v := get(t, f, "V2b")
		adv := obj(t, v, "advertise")
		b, err := checkout.UCPBookingUnsigned.Advertise(get(t, v, "B0"), str(t, adv, "h"), str(t, adv, "link"), get(t, adv, "offer"))
		wantAP2(t, get(t, v, "expectBooking"), b, err)
		r, err := checkout.UCPBookingUnsigned.ReadDoc(b)
		wantAP2(t, get(t, v, "expectRead"), acpReadJSON(r), err)
		_, err = checkout.UCPBookingUnsigned.Advertise(get(t, v, "B0"), str(t, adv, "h"), str(t, adv, "link"), get(t, v, "otherBooking", "offer"))
		wantAP2(t, get(t, v, "otherBooking", "expect"), nil, err)
	})
	for _, k := range []string{"V3", "V3b"} {
		t.Run(k, func(t *testing.T) {
			if d := x402.IssuedDigest(get(t, f, k, "option")).String(); d != str(t, f, k, "expectIssuedDigest") {
				t.Fatalf("digest %s", d)
			}
		})
	}
	t.Run("V4", func(t *testing.T) {
		v := get(t, f, "V4")
		if sdjwt.Digest(J) != str(t, v, "expectCheckoutHash") || sdjwt.Digest(str(t, f, "built", "D")) != str(t, v, "expectDisclosureDigest") {
			t.Fatal("digests")
		}
		presented := jsonv.Obj("checkout_mandate", M, "checkout_jwt", J)
		h, err := mandate.Bound(presented)
		wantAP2(t, get(t, v, "expectBound"), h, err)
		h, err = checkout.UCPBookingMandate.Bound(presented)
		wantAP2(t, get(t, v, "expectBound"), h, err)
		_, err = unsigned.Bound(presented)
		wantAP2(t, get(t, v, "expectUnsignedBound"), nil, err)
		_, err = unsigned.Build(nil, nil, [32]byte{})
		wantAP2(t, get(t, v, "expectUnsignedBuild"), nil, err)
	})
	t.Run("V5", func(t *testing.T) {
		a := load(t, "ap2-checkout-mandate.json")
		tok, cj := str(t, a, "V6", "token"), str(t, a, "V6", "checkoutJwt")
		if sdjwt.Digest(cj) != str(t, f, "V5", "expectCheckoutHash") {
			t.Fatal("checkout hash")
		}
		_, err := mandate.Bound(jsonv.Obj("checkout_mandate", tok, "checkout_jwt", cj))
		wantAP2(t, get(t, f, "V5", "expectBound"), nil, err)
	})
	t.Run("V6", func(t *testing.T) {
		for _, k := range []string{"policies", "presentation"} {
			_, err := unsigned.ReadDoc(get(t, f, "V6", k))
			wantAP2(t, get(t, f, "V6", "expect"), nil, err)
		}
	})
	t.Run("plant", func(t *testing.T) {
		p := get(t, f, "plant")
		if sdjwt.Digest(str(t, p, "checkoutJwt")) != str(t, p, "expectJ2Hash") {
			t.Fatal("J2 hash")
		}
		_, err := mandate.Bound(jsonv.Obj("checkout_mandate", M, "checkout_jwt", str(t, p, "checkoutJwt")))
		wantAP2(t, get(t, p, "expect"), nil, err)
	})
	for _, r := range sdArr(t, f, "implementation") {
		t.Run("implementation/"+str(t, r, "name"), func(t *testing.T) {
			p := ucpPairing(t, str(t, r, "pairing"))
			in := obj(t, r, "input")
			expect := get(t, r, "expect")
			switch str(t, r, "fn") {
			case "advertise":
				out, err := p.Advertise(get(t, in, "doc"), str(t, in, "h"), str(t, in, "link"), get(t, in, "offer"))
				wantAP2(t, expect, out, err)
			case "read":
				got, err := p.ReadDoc(get(t, in, "doc"))
				wantAP2(t, expect, acpReadJSON(got), err)
			case "build":
				wantAP2(t, expect, nil, p.BuildCheck(get(t, in, "checkout"), str(t, in, "h")))
			default:
				t.Fatalf("fn %s", str(t, r, "fn"))
			}
		})
	}
	t.Run("pattern", func(t *testing.T) {
		for _, id := range []string{"ucp/checkout/ap2-mandate", "ucp/booking/ap2-mandate", "ucp/checkout/unsigned", "ucp/booking/unsigned"} {
			wantNoProofPattern(t, ucpPairing(t, id), obj(t, f, "pattern", id))
		}
	})
	reg := rails.NewRegistry(checkout.UCPCheckoutMandate, checkout.UCPCheckoutUnsigned, checkout.UCPBookingMandate, checkout.UCPBookingUnsigned)
	for _, r := range sdArr(t, f, "buyer", "rows") {
		name := str(t, r, "name") + "/" + str(t, r, "pairing")
		switch str(t, r, "name") {
		case "B2":
			t.Run(name, func(t *testing.T) {
				in := obj(t, r, "input")
				s := newATRSeller(t)
				s.serveBytes(unhex(t, str(t, in, "servesHex")))
				sg := newCountingSigner(t, signer.AnvilKey, "eip155:84532")
				_, err := s.gateFor(1790000000, reg).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, nil)
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
		for _, id := range []string{"ucp/checkout/unsigned", "ucp/booking/unsigned"} {
			if _, ok := obj(t, f, "buyer", "noSignedPayment").GetString(id); !ok {
				t.Fatal(id)
			}
		}
	})
}

func mustB64Payload(t *testing.T, jwt string) []byte {
	t.Helper()
	j, err := sdjwt.ParseJWT(jwt)
	if err != nil {
		t.Fatal(err)
	}
	return jsonv.Marshal(j.Payload)
}
