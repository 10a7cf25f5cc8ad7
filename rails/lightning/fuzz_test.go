package lightning

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
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
	for _, name := range []string{"x402-exact-lnbtc.json", "x402-exact-lnbtc-invoice-named.json", "mpp-charge-lightning.json", "mpp-session-lightning.json"} {
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

// FuzzLightningPayment: Bound and Inspect of a presented Lightning payment
// (x402 or an MPP credential) never panic, and agree on H.
func FuzzLightningPayment(f *testing.F) {
	payments, err := vectors.Payments()
	if err != nil {
		f.Fatal(err)
	}
	for _, id := range []string{ExactID, InvoiceNamedID, ChargeID, SessionID} {
		f.Add(jsonv.Marshal(payments[id]))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			v, err := jsonv.Parse(b)
			if err != nil {
				return
			}
			for _, p := range []interface {
				Bound(jsonv.Value) (string, error)
				Inspect(jsonv.Value) (rails.Inspection, error)
			}{Exact{}, InvoiceNamed{}, Charge{}, Session{}} {
				h, berr := p.Bound(v)
				in, ierr := p.Inspect(v)
				if (berr == nil) != (ierr == nil) || berr == nil && in.H != h {
					t.Fatalf("bound %q %v, inspect %q %v", h, berr, in.H, ierr)
				}
			}
		})
	})
}

// FuzzATRNamesInvoice: reading an ATR's member names never panics, lists
// every top-level name of what parses as an object, and an ATR names an
// invoice only when its first three members are atrVersion, id, x402.
func FuzzATRNamesInvoice(f *testing.F) {
	o, err := vectors.Load("x402-exact-lnbtc-invoice-named.json")
	if err != nil {
		f.Fatal(err)
	}
	rows, _ := o.GetObject("atrNamesInvoice")
	list, _ := rows.Get("rows")
	arr, _ := jsonv.AsArray(list)
	for _, r := range arr {
		ro, _ := jsonv.AsObject(r)
		h, _ := ro.GetString("atrHex")
		b, _ := hex.DecodeString(h)
		f.Add(b)
	}
	l6, _ := o.GetObject("L6")
	inv, _ := l6.GetString("invoice")
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			names, ok := TopMembers(b)
			named := ATRNamesInvoice(b, inv)
			v, err := jsonv.Parse(b)
			obj, isObj := jsonv.AsObject(v)
			if err != nil || !isObj {
				if named {
					t.Fatal("names an invoice without being one JSON object")
				}
				return
			}
			if !ok || len(names) < len(obj.Keys()) {
				t.Fatalf("names %v of an object with %v", names, obj.Keys())
			}
			if named && (names[0] != "atrVersion" || names[1] != "id" || names[2] != "x402") {
				t.Fatalf("named with members %v", names)
			}
		})
	})
}
