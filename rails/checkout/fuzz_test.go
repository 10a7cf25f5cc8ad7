package checkout

import (
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// checkRead: an agreement URL a Read gives is an https link the link rule
// admits, and its H is 0x + 64 lower-case hex.
func checkRead(t *testing.T, r rails.Read, err error) {
	t.Helper()
	if err != nil {
		return
	}
	if got, ok := hash(r.H); !ok || got != r.H {
		t.Fatalf("read H %q", r.H)
	}
	if r.Agreement != "" && atr.CheckLink(r.Agreement) != atr.LinkOK {
		t.Fatalf("agreement %q", r.Agreement)
	}
}

// checkInspect: an inspection names its pairing, H as 0x + 64 lower-case
// hex (want's, when want is not ""), and marshals with all its members.
func checkInspect(t *testing.T, id string, in rails.Inspection, err error, want string) {
	t.Helper()
	if err != nil {
		return
	}
	if got, ok := hash(in.H); !ok || got != in.H || want != "" && in.H != want || in.Pairing != id {
		t.Fatalf("%s inspects as %s with H %q (bound %q)", id, in.Pairing, in.H, want)
	}
	if in.JSON().Len() != 18 {
		t.Fatal("members")
	}
}

// j is the AP2 vectors' checkout JWT J (fixed header, V2's payload, a zero
// signature).
const j = "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6Im1lcmNoYW50LWtleS0xIn0.eyJpZCI6ImNoa18yIiwiY3VycmVuY3kiOiJVU0QiLCJ0b3RhbHMiOlt7InR5cGUiOiJ0b3RhbCIsImFtb3VudCI6MTk5MDB9XSwibGVnYWxDb250ZXh0Ijp7InR5cGUiOiJzaGEyNTYiLCJ2YWx1ZSI6IjB4YTE2NzVjYTI0YWM2ZDhiNGJlNWU0NmEwYTNlZGEyZDIxYzY2MjY2N2IyMDkyM2MzYTllODIwODI4ZTlhODJhZiIsImxlZ2FsQ29udGV4dFVybCI6Imh0dHBzOi8vYXRyLnNlbGxlci5leGFtcGxlLzB4YTE2NzVjYTI0YWM2ZDhiNGJlNWU0NmEwYTNlZGEyZDIxYzY2MjY2N2IyMDkyM2MzYTllODIwODI4ZTlhODJhZiJ9fQ.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

// FuzzAP2Bound: the mandate and checkout readers never panic, stay within the
// time bound, and a bound H is 0x + 64 lower-case hex.
func FuzzAP2Bound(f *testing.F) {
	f.Add("eyJhbGciOiJFUzI1NiJ9.e30.AA~", j)
	f.Add("~", j)
	f.Fuzz(func(t *testing.T, m, cj string) {
		cost.Bound(t, len(m)+len(cj), func() {
			_, _ = ReadCheckoutJWT(cj)
			r, err := AP2{}.Read(cj)
			checkRead(t, r, err)
			payment := jsonv.Obj("checkout_mandate", m, "checkout_jwt", cj)
			in, ierr := AP2{}.Inspect(payment)
			h, err := AP2{}.Bound(payment)
			checkInspect(t, AP2ID, in, ierr, h)
			for _, u := range []UCP{UCPCheckoutMandate, UCPBookingMandate} {
				in, ierr := u.Inspect(payment)
				uh, _ := u.Bound(payment)
				checkInspect(t, u.ID(), in, ierr, uh)
			}
			if err != nil {
				if _, ok := err.(*Refusal); !ok {
					t.Fatalf("not a refusal: %v", err)
				}
				return
			}
			if got, ok := hash(h); !ok || got != h {
				t.Fatalf("H %q", h)
			}
		})
	})
}

// FuzzACKRead: the payment request and receipt readers never panic, stay
// within the time bound, and what they read names H as 0x + 64 lower-case hex.
func FuzzACKRead(f *testing.F) {
	f.Add(`{"paymentRequestToken":"eyJhbGciOiJFUzI1NiJ9.eyJpZCI6ImxjcDpzaGEyNTY6MHhiYTc4MTZiZjhmMDFjZmVhNDE0MTQwZGU1ZGFlMjIyM2IwMDM2MWEzOTYxNzdhOWNiNDEwZmY2MWYyMDAxNWFkIiwicGF5bWVudE9wdGlvbnMiOltdfQ.AA","legalContext":{"type":"sha256","value":"0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad","legalContextUrl":"https://atr.seller.example/x"}}`)
	f.Add(`{}`)
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			v, err := jsonv.Parse([]byte(s))
			if err != nil {
				return
			}
			if r, err := ACKReadBody(v); err == nil {
				if got, ok := hash(r.H); !ok || got != r.H {
					t.Fatalf("H %q", r.H)
				}
			}
			r, err := ACK{}.Read(v)
			checkRead(t, r, err)
			in, err := ACK{}.Inspect(v)
			checkInspect(t, ACKID, in, err, r.H)
			if h, err := ACKFromReceipt(v); err == nil {
				if got, ok := hash(h); !ok || got != h {
					t.Fatalf("H %q", h)
				}
			}
		})
	})
}

// FuzzACPSession: the session, allowance and choice readers never panic, stay
// within the time bound, and what they read names H as 0x + 64 lower-case hex.
func FuzzACPSession(f *testing.F) {
	f.Add(`{"id":"0x1be27e75ea3728b55834ec54ff6709669427b11c9ba47a6d9f182b0be46513be","metadata":{"legal_context":{"type":"sha256","value":"0x1be27e75ea3728b55834ec54ff6709669427b11c9ba47a6d9f182b0be46513be","legal_context_url":"https://atr.seller.example/x"}}}`)
	f.Add(`{"allowance":{"reason":"one_time","max_amount":1,"currency":"usd","checkout_session_id":"0x1be27e75ea3728b55834ec54ff6709669427b11c9ba47a6d9f182b0be46513be","merchant_id":"m","expires_at":"2026-09-21T14:23:20Z"}}`)
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			v, err := jsonv.Parse([]byte(s))
			if err != nil {
				return
			}
			check := func(h string) {
				if got, ok := hash(h); !ok || got != h {
					t.Fatalf("H %q", h)
				}
			}
			if r, err := ACPReadSession(v); err == nil {
				check(r.H)
			}
			if h, err := ACPBound(v); err == nil {
				check(h)
			}
			r, err := ACPDelegated{}.Read(v)
			checkRead(t, r, err)
			in, err := ACPDelegated{}.Inspect(v)
			bh, _ := ACPBound(v)
			checkInspect(t, ACPDelegatedID, in, err, bh)
			in, err = ACPUndelegated{}.Inspect(jsonv.Obj("session", v))
			checkInspect(t, ACPUndelegatedID, in, err, r.H)
			if adv, err := ACPAdvertiseAgreement(v, "0x1be27e75ea3728b55834ec54ff6709669427b11c9ba47a6d9f182b0be46513be", "https://a.example/", jsonv.Obj("requires_delegate_payment", true), "https://a.example/agree"); err == nil {
				if r, err := (ACPUndelegated{}).Read(adv); err == nil && r.Agreement != "https://a.example/agree" {
					t.Fatalf("advertised agreement read back as %q", r.Agreement)
				}
			}
			_, _ = ACPBuildAllowance(v, "0x1be27e75ea3728b55834ec54ff6709669427b11c9ba47a6d9f182b0be46513be")
			_, _ = ACPAdvertise(v, "0x1be27e75ea3728b55834ec54ff6709669427b11c9ba47a6d9f182b0be46513be", "https://a.example/", jsonv.Obj("requires_delegate_payment", true))
		})
	})
}

// FuzzUCPRead: the UCP readers and advertise never panic, stay within the
// time bound, and what they read names H as 0x + 64 lower-case hex.
func FuzzUCPRead(f *testing.F) {
	f.Add(`{"id":"chk_1","links":[{"type":"legal_context","url":"https://atr.seller.example/x","title":"lcp:sha256:0x60d53ee2a4b53146066d0995029c1fb33d9a69d6930c12ec59a33cc11784b17e"}],"ap2":{"merchant_authorization":"eyJhbGciOiJFUzI1NiJ9..AA"}}`)
	f.Add(`{"links":{}}`)
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			v, err := jsonv.Parse([]byte(s))
			if err != nil {
				return
			}
			if r, err := UCPCheckoutMandate.ReadDoc(v); err == nil {
				if got, ok := hash(r.H); !ok || got != r.H {
					t.Fatalf("H %q", r.H)
				}
			}
			r, err := UCPCheckoutUnsigned.Read(v)
			checkRead(t, r, err)
			r2, err := UCPCheckoutMandate.Read(v)
			checkRead(t, r2, err)
			in, err := UCPCheckoutUnsigned.Inspect(jsonv.Obj("checkout", v))
			checkInspect(t, UCPCheckoutUnsigned.ID(), in, err, r.H)
			in, err = UCPBookingUnsigned.Inspect(jsonv.Obj("booking", v))
			checkInspect(t, UCPBookingUnsigned.ID(), in, err, r.H)
			if adv, err := UCPCheckoutUnsigned.AdvertiseAgreement(v, "0x60d53ee2a4b53146066d0995029c1fb33d9a69d6930c12ec59a33cc11784b17e", "https://a.example/", jsonv.Obj("checkout", "chk_1"), "https://a.example/agree"); err == nil {
				if r, err := UCPCheckoutUnsigned.Read(adv); err == nil && r.Agreement != "https://a.example/agree" {
					t.Fatalf("advertised agreement read back as %q", r.Agreement)
				}
			}
			_ = UCPCheckoutMandate.BuildCheck(v, "0x60d53ee2a4b53146066d0995029c1fb33d9a69d6930c12ec59a33cc11784b17e")
		})
	})
}
