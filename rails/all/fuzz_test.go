package all_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
	"github.com/termsgate/termsgate/vectors"
)

// FuzzInspect: every registered pairing's Inspect over any JSON (what
// `termsgate inspect` hands each pairing in turn) never panics, here without
// inspect's guard, and stays within the time bound; what one reads marshals
// with all its members and names the H the pairing's Bound reads. Seeded
// with every pairing's vector payment (vectors.Payments).
func FuzzInspect(f *testing.F) {
	payments, err := vectors.Payments()
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range payments {
		f.Add(jsonv.Marshal(p))
	}
	var pairings []rails.Pairing
	for _, p := range all.Default().All() {
		if _, ok := p.(rails.Inspector); ok {
			pairings = append(pairings, p)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cost.Bound(t, len(data), func() {
			v, err := jsonv.Parse(data)
			if err != nil {
				return
			}
			for _, p := range pairings {
				in, err := p.(rails.Inspector).Inspect(v)
				if err != nil {
					continue
				}
				h, err := p.Bound(v)
				var r *rails.Refusal
				// H is the echoed challenge's, or (a checkout the buyer signs nothing for) the completed checkout's.
				noProof := errors.As(err, &r) && (strings.HasSuffix(r.Code, "/no-signed-place") || strings.HasSuffix(r.Code, "/not-buyer-signed"))
				if !noProof && (err != nil || h != in.H) || in.Pairing != p.ID() {
					t.Fatalf("%s: inspect says %s H %q, bound %q (%v)", p.ID(), in.Pairing, in.H, h, err)
				}
				if n := in.JSON().Len(); n != 18 {
					t.Fatalf("%s: %d members", p.ID(), n)
				}
				_ = jsonv.Marshal(in.JSON())
			}
		})
	})
}
