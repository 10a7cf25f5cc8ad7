package mpp

import (
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
)

// FuzzUSDCRequestHash: a usdc challenge's request parameter, as the usdc
// derivations read it: no panic, within the fuzz bound, and a request that
// hashes is one whose canonical encoding hashes the same.
func FuzzUSDCRequestHash(f *testing.F) {
	for _, s := range []string{
		"eyJhbW91bnQiOiIxMDAwMCIsImN1cnJlbmN5IjoiMHgwMzZDYkQ1Mzg0MmM1NDI2NjM0ZTc5Mjk1NDFlQzIzMThmM2RDRjdlIiwibWV0aG9kRGV0YWlscyI6eyJldm0iOnsiY2hhaW5JZCI6ODQ1MzIsImNyZWRlbnRpYWxUeXBlcyI6WyJhdXRob3JpemF0aW9uIl0sImRlY2ltYWxzIjo2fSwidHlwZSI6ImV2bSJ9LCJyZWNpcGllbnQiOiIweDIwOTY5M0JjNmFmYzBDNTMyOGJBMzZGYUYwM0M1MTRFRjMxMjI4N0MifQ",
		"e30", "eyJiIjoxLCJhIjoyfQ", "eyJhIjoxLjB9", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			h, err := USDCRequestHash(s)
			if err != nil {
				return
			}
			o, _ := DecodeObject(s)
			if again, err := USDCRequestHash(EncodeObject(o)); err != nil || again != h {
				t.Fatalf("%q hashes, its canonical form does not hash the same", s)
			}
		})
	})
}
