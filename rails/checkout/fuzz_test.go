package checkout

import (
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
)

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
			_, _ = AP2{}.Read(cj)
			h, err := AP2{}.Bound(jsonv.Obj("checkout_mandate", m, "checkout_jwt", cj))
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
			_, _ = UCPCheckoutUnsigned.Advertise(v, "0x60d53ee2a4b53146066d0995029c1fb33d9a69d6930c12ec59a33cc11784b17e", "https://a.example/", jsonv.Obj("checkout", "chk_1"))
			_ = UCPCheckoutMandate.BuildCheck(v, "0x60d53ee2a4b53146066d0995029c1fb33d9a69d6930c12ec59a33cc11784b17e")
		})
	})
}
