package vectors_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/checkout"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func ackReadJSON(r checkout.ACKRead) jsonv.Value {
	return jsonv.Obj("h", r.H, "link", r.Link, "offer", jsonv.Obj("options", r.Options))
}

// TestACKPaymentRequest runs every row of ack-payment-request.json through
// rails/checkout: K1–K5, the agreed refusals, and B2 through the gate (the
// file has no B6: ACK defines no payer signature).
func TestACKPaymentRequest(t *testing.T) {
	f := load(t, "ack-payment-request.json")
	H := str(t, f, "fixed", "H")
	t.Run("K1", func(t *testing.T) {
		k := get(t, f, "K1")
		adv := obj(t, k, "advertise")
		out, err := checkout.ACKAdvertise(obj(t, adv, "doc"), str(t, adv, "h"), str(t, adv, "link"), obj(t, adv, "offer"))
		wantAP2(t, get(t, k, "expect"), out, err)
		_, err = checkout.ACKAdvertise(obj(t, adv, "doc"), str(t, adv, "h"), str(t, adv, "link"), obj(t, k, "emptyOption", "offer"))
		wantAP2(t, get(t, k, "emptyOption", "expect"), nil, err)
		slot := []jsonv.Value{"ack", jsonv.Obj("paymentOptions", []jsonv.Value{get(t, f, "fixed", "O")})}
		if string(jsonv.Marshal(slot)) != string(jsonv.Marshal(get(t, k, "expectSlot"))) {
			t.Fatalf("slot %s", jsonv.Marshal(slot))
		}
		if d := x402.IssuedDigest(get(t, f, "fixed", "O")).String(); d != str(t, k, "digestOfO") {
			t.Fatalf("digest of O %s", d)
		}
		if str(t, f, "fixed", "ID") != checkout.ACKIDPrefix+H {
			t.Fatal("ID")
		}
	})
	t.Run("K2", func(t *testing.T) {
		k := get(t, f, "K2")
		r, err := checkout.ACKReadBody(get(t, k, "body"))
		wantAP2(t, get(t, k, "expect"), ackReadJSON(r), err)
		if str(t, k, "body", "paymentRequestToken") != str(t, f, "fixed", "T") {
			t.Fatal("the body's token is not T")
		}
		b := obj(t, k, "body").Clone()
		b.Set("paymentRequestToken", get(t, k, "twoSegmentToken", "paymentRequestToken"))
		_, err = checkout.ACKReadBody(b)
		wantAP2(t, get(t, k, "twoSegmentToken", "expect"), nil, err)
	})
	t.Run("K3", func(t *testing.T) {
		r, err := checkout.ACKReadBody(get(t, f, "K3", "body"))
		wantAP2(t, get(t, f, "K3", "expect"), ackReadJSON(r), err)
	})
	t.Run("K4", func(t *testing.T) {
		h, err := checkout.ACKFromReceipt(get(t, f, "K4", "credentialSubject"))
		wantAP2(t, get(t, f, "K4", "expect"), h, err)
		_, err = checkout.ACKFromReceipt(get(t, f, "K4", "badToken", "credentialSubject"))
		wantAP2(t, get(t, f, "K4", "badToken", "expect"), nil, err)
	})
	t.Run("K5", func(t *testing.T) {
		k := get(t, f, "K5")
		for _, in := range sdArr(t, k, "inputs") {
			_, err := checkout.ACK{}.Bound(in)
			var r *rails.Refusal
			if !errors.As(err, &r) || r.Code != str(t, k, "expect", "code") {
				t.Fatalf("bound of %s: %v", jsonv.Marshal(in), err)
			}
		}
		wantNoProofPattern(t, checkout.ACK{}, obj(t, k, "pattern"))
	})
	for _, r := range sdArr(t, f, "agreedRefusals", "rows") {
		t.Run("agreedRefusals/"+str(t, r, "case"), func(t *testing.T) {
			args := expandRepeat(sdArr(t, r, "args")).([]jsonv.Value)
			expect := get(t, r, "expect")
			switch str(t, r, "call") {
			case "paymentRequest.advertise":
				doc, _ := jsonv.AsObject(args[0])
				h, _ := jsonv.AsString(args[1])
				link, _ := jsonv.AsString(args[2])
				offer, _ := jsonv.AsObject(args[3])
				out, err := checkout.ACKAdvertise(doc, h, link, offer)
				wantAP2(t, expect, out, err)
			case "paymentRequest.read":
				got, err := checkout.ACKReadBody(args[0])
				wantAP2(t, expect, ackReadJSON(got), err)
			case "fromReceipt":
				h, err := checkout.ACKFromReceipt(args[0])
				wantAP2(t, expect, h, err)
			default:
				t.Fatalf("call %s", str(t, r, "call"))
			}
		})
	}
	reg := rails.NewRegistry(checkout.ACK{})
	t.Run("B2", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B2")
		in := obj(t, r, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		sg := newCountingSigner(t, signer.AnvilKey, "eip155:8453")
		if a, ok := in.GetString("account"); ok && a != sg.Account() {
			t.Fatalf("account %s", a)
		}
		_, err := s.gateFor(1790000000, reg).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, nil)
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if sg.calls.Load() != 0 || s.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), s.fetches.Load())
		}
	})
	t.Run("noSignedPayment", func(t *testing.T) {
		if _, ok := obj(t, f, "buyer", "noSignedPayment").GetString(checkout.ACKID); !ok {
			t.Fatal("no reason")
		}
	})
}

// expandRepeat writes out the file's {"$repeat": [s, n]}: s repeated n times.
func expandRepeat(v jsonv.Value) jsonv.Value {
	switch x := v.(type) {
	case *jsonv.Object:
		if rv, ok := x.Get("$repeat"); ok && x.Len() == 1 {
			a, _ := jsonv.AsArray(rv)
			if len(a) == 2 {
				s, _ := jsonv.AsString(a[0])
				n, _ := jsonv.AsSafeInt(a[1])
				return strings.Repeat(s, int(n))
			}
		}
		out := jsonv.Obj()
		for _, m := range x.Members() {
			out.Set(m.Key, expandRepeat(m.Value))
		}
		return out
	case []jsonv.Value:
		out := make([]jsonv.Value, len(x))
		for i, e := range x {
			out[i] = expandRepeat(e)
		}
		return out
	}
	return v
}
