package agreement

import (
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
)

// FuzzReceipt: no 200 body panics the receipt reading or costs more than
// the fuzz bound, and an accepted receipt is for these terms and recorded.
func FuzzReceipt(f *testing.F) {
	h := atr.Sum(atrBytes)
	f.Add([]byte(`{"atrHash":"` + h.String() + `","agreed":true,"network":"eip155:84532","transaction":"0xab"}`))
	f.Add([]byte(`{"atrHash":"0x00","agreed":false}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		cost.Bound(t, len(body), func() {
			r, fail := receipt(body, h)
			if fail == nil && (r == nil || !atr.EqualText(r.ATRHash, h)) {
				t.Fatalf("accepted %q as %+v", body, r)
			}
		})
	})
}

// FuzzRetryAfter: any Retry-After is a wait of 1 s to 999999999 s.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"1", "0", " 5 ", "Wed, 21 Oct 2015 07:28:00 GMT", "-1", "1e3", "999999999", "1000000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		cost.Bound(t, len(v), func() {
			if d := retryAfter(v); d < time.Second || d > 999999999*time.Second {
				t.Fatalf("retryAfter(%q) = %v", v, d)
			}
		})
	})
}
