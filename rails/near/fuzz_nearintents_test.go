package near

import (
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/vectors"
)

// FuzzNearIntentsCredential: any JSON as a presented mpp/charge/nearintents
// credential, read back and inspected. No input panics or costs more than
// the fuzz bound; an H read back is 0x and 64 lower-case hex digits and is
// the echoed id's; Inspect reads exactly what Bound reads.
func FuzzNearIntentsCredential(f *testing.F) {
	payments, err := vectors.Payments()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(jsonv.Marshal(payments[NearIntentsID])))
	f.Add(`{"challenge":{},"payload":{"type":"hash"}}`)
	p := NearIntents{}
	f.Fuzz(func(t *testing.T, text string) {
		cost.Bound(t, len(text), func() {
			v, err := jsonv.ParseDepth([]byte(text), mpp.MaxJSONDepth+1)
			if err != nil {
				return
			}
			h, berr := p.Bound(v)
			in, ierr := p.Inspect(v)
			if (berr == nil) != (ierr == nil) {
				t.Fatalf("Bound %v, Inspect %v", berr, ierr)
			}
			if berr != nil {
				return
			}
			if !mpp.IsWord32(h) || in.H != h {
				t.Fatalf("H %q, inspected %q", h, in.H)
			}
			c, _ := jsonv.AsObject(v)
			ch, _ := c.GetObject("challenge")
			if id, _ := mpp.HOfChallenge(ch); id.String() != h {
				t.Fatalf("H %s is not the id's %s", h, id)
			}
		})
	})
}
