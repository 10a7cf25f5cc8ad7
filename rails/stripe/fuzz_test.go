package stripe

import (
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/vectors"
)

// seedCredentials are the vectors' Stripe payments (vectors.Payments), as
// JSON text.
func seedCredentials(f *testing.F) {
	payments, err := vectors.Payments()
	if err != nil {
		f.Fatal(err)
	}
	for _, id := range []string{ChargeID, SubscriptionID} {
		f.Add(string(jsonv.Marshal(payments[id])))
	}
	f.Add(`{"challenge":{},"payload":{"spt":"spt_x"}}`)
	f.Add(`[]`)
}

// FuzzStripeCredential: a presented Stripe credential read back by both
// pairings and inspected. No input panics or costs more than the fuzz
// bound; Bound never answers a hash (nothing signed carries one); what
// Inspect reads, Bound reads too (its refusal is no-signed-place), and no
// inspection shows the token unmasked.
func FuzzStripeCredential(f *testing.F) {
	seedCredentials(f)
	f.Fuzz(func(t *testing.T, text string) {
		cost.Bound(t, len(text), func() {
			v, err := jsonv.ParseDepth([]byte(text), mpp.MaxJSONDepth+1)
			if err != nil {
				return
			}
			for _, p := range []interface {
				Bound(jsonv.Value) (string, error)
				Inspect(jsonv.Value) (railsInspection, error)
			}{chargeInspector{}, subscriptionInspector{}} {
				h, berr := p.Bound(v)
				if h != "" || berr == nil {
					t.Fatalf("Bound answered %q %v", h, berr)
				}
				in, ierr := p.Inspect(v)
				if ierr != nil {
					continue
				}
				if berr.Error() != "refused: "+CodeNoSignedPlace {
					t.Fatalf("Inspect read what Bound refuses: %v", berr)
				}
				for _, k := range []string{"spt", "paymentMethod", "customer"} {
					if s, ok := in.Details.GetString(k); ok && len(s) > 12 {
						t.Fatalf("%s shown as %q", k, s)
					}
				}
			}
		})
	})
}

// FuzzStripeRequest: a seller's Stripe request, as the method check reads
// it and as Advertise places it. No input panics or costs more than the
// fuzz bound, and a placed request reads back as offering the pairing
// with legal_context holding H, and its carrier removed gives the digest
// of what was issued.
func FuzzStripeRequest(f *testing.F) {
	f.Add(`{"amount":"5000","currency":"usd","methodDetails":{"networkId":"profile_1","paymentMethodTypes":["card"]}}`, false)
	f.Add(`{"amount":"5000","currency":"usd","methodDetails":{"networkId":"p","metadata":{"plan":"gold"}}}`, true)
	f.Add(`{"amount":"1","currency":"usd","methodDetails":{"metadata":{"legal_context":"order_1"}}}`, false)
	h := mustHash()
	f.Fuzz(func(t *testing.T, text string, subscription bool) {
		cost.Bound(t, len(text), func() {
			req, err := jsonv.ParseDepth([]byte(text), mpp.MaxJSONDepth)
			o, ok := jsonv.AsObject(req)
			if err != nil || !ok {
				return
			}
			intent, id := "charge", ChargeID
			if subscription {
				intent, id = "subscription", SubscriptionID
			}
			c := jsonv.Obj("realm", "api.seller.example", "method", "stripe", "intent", intent,
				"request", mpp.EncodeObject(o), "expires", "2026-09-21T14:14:20Z")
			_, _ = mpp.PairingsOf(c)
			doc, err := advertise(id, []jsonv.Value{c}, h, "https://atr.seller.example/x", c, "https://pay.seller.example/a")
			if err != nil {
				return
			}
			placed, _ := jsonv.AsObject(doc[0])
			if _, err := checkPlaced(placed, id, h); err != nil {
				t.Fatalf("placed %s does not read: %v", jsonv.Marshal(placed), err)
			}
			a, err1 := mpp.IssuedDigest(c)
			b, err2 := mpp.IssuedDigest(Unplaced(placed))
			if err1 != nil || err2 != nil || a != b {
				t.Fatalf("digest %s over %s, %s over the echo", a, jsonv.Marshal(c), b)
			}
		})
	})
}
