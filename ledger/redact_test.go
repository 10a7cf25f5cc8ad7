package ledger_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/ledger"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
)

// TestJournalKeepsNoOperatorSecret: a Stripe credential carries the
// operator's Shared Payment Token, not a signature. The journal keeps it
// masked, without the header that carries it, and gives it up rather than
// present it again; a signed payment of another pairing is kept whole.
func TestJournalKeepsNoOperatorSecret(t *testing.T) {
	const token = "spt_1NzXkQ2eZvKYlo2C0a1b2c3dKJLW"
	stores(t, func(t *testing.T, open func(t *testing.T) ledger.Store) {
		ctx := context.Background()
		store := open(t)
		defer store.Close()
		j := ledger.Journal(store)
		h := atr.Hash{1}
		cred := jsonv.Obj("challenge", jsonv.Obj("id", "x"), "payload", jsonv.Obj("spt", token))
		secret := &pay.Result{URL: "https://seller.example/a", Protocol: pay.ProtocolMPP, Pairing: "mpp/charge/stripe",
			H: h, Signed: cred, HeaderName: "Authorization", Header: "Payment " + token,
			Summary: pay.Summary{Grant: rails.Grant{PayableUntil: time.Now().Add(time.Hour)}}}
		if _, err := j.Record(ctx, secret); err != nil {
			t.Fatal(err)
		}
		signed := &pay.Result{URL: "https://seller.example/b", Protocol: pay.ProtocolX402, Pairing: "x402/exact/eip155/eip3009",
			H: h, Signed: jsonv.Obj("signature", "0xabc"), HeaderName: "PAYMENT-SIGNATURE", Header: "eyJ9",
			Summary: pay.Summary{Grant: rails.Grant{PayableUntil: time.Now().Add(time.Hour)}}}
		if _, err := j.Record(ctx, signed); err != nil {
			t.Fatal(err)
		}
		list, err := store.Payments(ctx, 0)
		if err != nil || len(list) != 2 {
			t.Fatalf("%v, %d payments", err, len(list))
		}
		for _, p := range list {
			store.Unhold(p.ID) // as after a restart
			kept := string(p.Signed) + p.Header
			switch p.Pairing {
			case "mpp/charge/stripe":
				if strings.Contains(kept, token) || p.Header != ledger.RedactedHeader || !strings.Contains(string(p.Signed), "spt_…KJLW") {
					t.Errorf("the Stripe payment kept as %s, header %q", p.Signed, p.Header)
				}
			default:
				if p.Header != "eyJ9" || string(p.Signed) != `{"signature":"0xabc"}` {
					t.Errorf("a signed payment kept as %s, header %q", p.Signed, p.Header)
				}
			}
		}
		if id, r, err := j.Unanswered(ctx, secret.URL); err != nil || r != nil {
			t.Fatalf("presented again: %q %+v %v", id, r, err)
		}
		if id, r, err := j.Unanswered(ctx, signed.URL); err != nil || r == nil || r.Header != "eyJ9" {
			t.Fatalf("the signed payment: %q %+v %v", id, r, err)
		}
		list, _ = store.Payments(ctx, 0)
		for _, p := range list {
			if p.Pairing == "mpp/charge/stripe" && (p.Pending() || p.Status != 0) {
				t.Errorf("the redacted payment is %+v, want given up unanswered", p)
			}
		}
	})
}
