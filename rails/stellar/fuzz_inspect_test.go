package stellar

import (
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/vectors"
)

// FuzzInspectEnvelope: inspect's reader of a bare envelope (run without its
// guard) and both Stellar pairings' Inspect, with any text in their vector
// payment's envelope place, never panic and stay within the time bound; a
// pairing's inspection names the H its Bound reads. Seeded with the vectors'
// envelopes and simulations and decoder-caps.json's XDR rows.
func FuzzInspectEnvelope(f *testing.F) {
	for _, file := range []string{"x402-exact-stellar.json", "mpp-charge-stellar.json", "decoder-caps.json"} {
		seeds, err := vectors.Strings(file, "envelope", "expectEnvelope", "simulatedXdr", "xdr")
		if err != nil {
			f.Fatal(err)
		}
		for _, s := range seeds {
			f.Add(s)
		}
	}
	payments, err := vectors.Payments()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			if in, err := inspectEnvelope(s); err == nil {
				_ = jsonv.Marshal(in.JSON())
			}
			for _, p := range []rails.Pairing{Exact{}, Charge{}} {
				pay := jsonv.Clone(payments[p.ID()]).(*jsonv.Object)
				payload, _ := pay.GetObject("payload")
				payload.Set("transaction", s)
				in, err := p.(rails.Inspector).Inspect(pay)
				if err != nil {
					continue
				}
				if h, err := p.Bound(pay); err != nil || h != in.H {
					t.Fatalf("%s: inspect says H %q, bound %q (%v)", p.ID(), in.H, h, err)
				}
				_ = jsonv.Marshal(in.JSON())
			}
		})
	})
}
