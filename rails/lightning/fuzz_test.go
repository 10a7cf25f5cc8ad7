package lightning

import (
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/vectors"
)

// vectorInvoices are every BOLT11 invoice the Lightning vector files hold.
func vectorInvoices(f *testing.F) []string {
	var out []string
	var walk func(v jsonv.Value)
	walk = func(v jsonv.Value) {
		switch x := v.(type) {
		case string:
			if strings.HasPrefix(x, "lnbc") || strings.HasPrefix(x, "lntb") {
				out = append(out, x)
			}
		case []jsonv.Value:
			for _, e := range x {
				walk(e)
			}
		case *jsonv.Object:
			for _, m := range x.Members() {
				walk(m.Value)
			}
		}
	}
	for _, name := range []string{"x402-exact-lnbtc.json"} {
		o, err := vectors.Load(name)
		if err != nil {
			f.Fatal(err)
		}
		walk(o)
	}
	return out
}

// FuzzBOLT11: the reader never panics, stays within its bounds, and what
// it accepts reads the same in upper case, with a payee that signed it.
func FuzzBOLT11(f *testing.F) {
	for _, s := range vectorInvoices(f) {
		f.Add(s)
	}
	f.Add("lnbc1")
	f.Add("LNBC250N1")
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			in, err := Decode(s)
			if err != nil {
				if _, ok := err.(interface{ Error() string }); !ok {
					t.Fatal("not an error")
				}
				return
			}
			if len(s) > MaxInvoice || len(in.Tags) > MaxFields || in.Payee[0] != 2 && in.Payee[0] != 3 {
				t.Fatalf("accepted %q: %+v", s, in)
			}
			up, err := Decode(strings.ToUpper(s))
			if err != nil || up.PaymentHash != in.PaymentHash || up.Payee != in.Payee {
				t.Fatalf("%q reads, its upper case does not: %v", s, err)
			}
		})
	})
}

// FuzzLNBTCPayment: Bound and Inspect of a presented x402 Lightning
// payment never panic, and agree on H.
func FuzzLNBTCPayment(f *testing.F) {
	payments, err := vectors.Payments()
	if err != nil {
		f.Fatal(err)
	}
	for _, id := range []string{ExactID} {
		f.Add(jsonv.Marshal(payments[id]))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			v, err := jsonv.Parse(b)
			if err != nil {
				return
			}
			h, berr := Exact{}.Bound(v)
			in, ierr := Exact{}.Inspect(v)
			if (berr == nil) != (ierr == nil) || berr == nil && in.H != h {
				t.Fatalf("bound %q %v, inspect %q %v", h, berr, in.H, ierr)
			}
		})
	})
}
