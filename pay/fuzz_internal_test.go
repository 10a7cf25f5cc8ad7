package pay

import (
	"net/http"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
)

// The fuzz targets of the seller's headers the transport reads and of
// Summarize: no input panics them or costs more than the fuzz bound.

// FuzzReadSettlement: PAYMENT-RESPONSE.
func FuzzReadSettlement(f *testing.F) {
	for _, s := range []string{"eyJzdWNjZXNzIjp0cnVlfQ==", "e30=", "", "!!!", "eyJhIjpbMSwyXX0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		cost.Bound(t, len(header), func() {
			if s, err := readSettlement(header); err == nil && s.Raw == nil {
				t.Fatal("a settlement without its document")
			}
		})
	})
}

// FuzzReadReceipt: an MPP Payment-Receipt.
func FuzzReadReceipt(f *testing.F) {
	for _, s := range []string{"eyJzdGF0dXMiOiJzdWNjZXNzIiwicmVmZXJlbmNlIjoiMHgxIn0", "e30", "", "e30=", "____"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		cost.Bound(t, len(header), func() {
			if s, err := readReceipt(header); err == nil && s.Raw == nil {
				t.Fatal("a receipt without its document")
			}
		})
	})
}

// FuzzOffersOf: a 402's PAYMENT-REQUIRED and WWW-Authenticate headers.
func FuzzOffersOf(f *testing.F) {
	f.Add("eyJ4NDAyVmVyc2lvbiI6MiwiYWNjZXB0cyI6W119", `Payment id="a", realm="r", method="tempo", intent="charge", request="e30"`)
	f.Add("", `Bearer realm="x", Payment id=1`)
	f.Add("!!", "Payment")
	f.Fuzz(func(t *testing.T, required, authenticate string) {
		h := http.Header{}
		if required != "" {
			h.Set("PAYMENT-REQUIRED", required)
		}
		if authenticate != "" {
			h.Set("WWW-Authenticate", authenticate)
		}
		cost.Bound(t, len(required)+len(authenticate), func() {
			fresh := offersOf(h, nil, false)
			for _, o := range fresh {
				if o.bad == nil && o.doc == nil {
					t.Fatalf("an offer with neither a document nor a refusal: %+v", o)
				}
			}
			// The memo answers what decoding does, on a miss and a hit.
			for range 2 {
				shared := offersOf(h, nil, true)
				if len(shared) != len(fresh) {
					t.Fatalf("%d offers from the memo, %d decoded", len(shared), len(fresh))
				}
				for i := range shared {
					if (shared[i].bad == nil) != (fresh[i].bad == nil) || !jsonv.Equal(shared[i].doc, fresh[i].doc) {
						t.Fatalf("offer %d: memo %+v, decoded %+v", i, shared[i], fresh[i])
					}
				}
			}
		})
	})
}

// FuzzSummarize: a signing request of any shape, for every pairing.
func FuzzSummarize(f *testing.F) {
	ids := defaultPairings.IDs()
	for i := range ids {
		f.Add(i, []byte(`{"kind":"eip712","typedData":{"domain":{},"message":{"value":"1"}}}`))
		f.Add(i, []byte(`{}`))
	}
	f.Fuzz(func(t *testing.T, i int, raw []byte) {
		if i < 0 || i >= len(ids) {
			return
		}
		v, err := jsonv.Parse(raw)
		if err != nil {
			return
		}
		req, ok := jsonv.AsObject(v)
		if !ok {
			return
		}
		cost.Bound(t, len(raw), func() {
			s, err := Summarize(gate.PaymentSummary{Pairing: ids[i], Request: req})
			if err == nil && (s.Amount == nil || s.Network == "") {
				t.Fatalf("%s: a summary without an amount or a network: %+v", ids[i], s)
			}
		})
	})
}
