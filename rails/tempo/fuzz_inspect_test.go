package tempo

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/vectors"
)

// FuzzInspectTx: inspect's reader of a bare 0x76 transaction (run without
// its guard) and the memo and session pairings' Inspect with it in their
// vector payment's place never panic and stay within the time bound; a
// pairing's inspection names the H its Bound reads. Seeded with the vectors'
// signed transactions.
func FuzzInspectTx(f *testing.F) {
	for _, file := range []string{"mpp-charge-tempo-memo.json", "mpp-session-tempo.json", "mpp-subscription-tempo.json"} {
		seeds, err := vectors.Strings(file, "signature", "transaction", "wire", "raw")
		if err != nil {
			f.Fatal(err)
		}
		for _, s := range seeds {
			if strings.HasPrefix(s, "0x76") {
				if b, err := hex.DecodeString(s[2:]); err == nil {
					f.Add(b)
				}
			}
		}
	}
	payments, err := vectors.Payments()
	if err != nil {
		f.Fatal(err)
	}
	shapes := []struct {
		p      rails.Pairing
		member string
	}{{Memo{}, "signature"}, {Session{}, "transaction"}}
	f.Fuzz(func(t *testing.T, wire []byte) {
		cost.Bound(t, len(wire), func() {
			if in, err := inspectTx(wire); err == nil {
				_ = jsonv.Marshal(in.JSON())
			}
			for _, sh := range shapes {
				pay := jsonv.Clone(payments[sh.p.ID()]).(*jsonv.Object)
				payload, _ := pay.GetObject("payload")
				payload.Set(sh.member, hex0x(wire))
				in, err := sh.p.(rails.Inspector).Inspect(pay)
				if err != nil {
					continue
				}
				if h, err := sh.p.Bound(pay); err != nil || h != in.H {
					t.Fatalf("%s: inspect says H %q, bound %q (%v)", sh.p.ID(), in.H, h, err)
				}
				_ = jsonv.Marshal(in.JSON())
			}
		})
	})
}
