package starknet

import (
	"os"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
)

// vectorPayment is the vector file's presented payment (its buyer B6
// input), the seed the payment targets start from.
func vectorPayment(f *testing.F) *jsonv.Object {
	b, err := os.ReadFile("../../vectors/testdata/x402-exact-starknet.json")
	if err != nil {
		f.Fatal(err)
	}
	v, err := jsonv.Parse(b)
	if err != nil {
		f.Fatal(err)
	}
	file, _ := jsonv.AsObject(v)
	buyer, _ := file.GetObject("buyer")
	rv, _ := buyer.Get("rows")
	rows, _ := jsonv.AsArray(rv)
	for _, r := range rows {
		ro, _ := jsonv.AsObject(r)
		in, _ := ro.GetObject("input")
		if p, ok := in.GetObject("presented"); ok {
			return p
		}
	}
	f.Fatal("the vector file has no presented payment")
	return nil
}

// FuzzStarknetPayment: any JSON as a presented payment reads through
// Bound, the reference and Inspect without a panic; a payment Bound reads,
// Inspect states with the same H, and its reference's nonce is H's low 250
// bits.
func FuzzStarknetPayment(f *testing.F) {
	p := vectorPayment(f)
	if _, err := (Exact{}).Inspect(p); err != nil {
		f.Fatalf("the seed does not inspect: %v", err)
	}
	f.Add([]byte(jsonv.String(p)))
	f.Add([]byte(`{"x402Version":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			v, err := jsonv.Parse(b)
			if err != nil {
				return
			}
			h, errB := Exact{}.Bound(v)
			ref, errR := PaymentReference(v)
			in, errI := Exact{}.Inspect(v)
			if errB == nil && errI == nil && in.H != h {
				t.Fatalf("inspect's H %s, bound's %s", in.H, h)
			}
			if errB == nil && errR == nil {
				hh, _ := ParseHash(h)
				if ref.Nonce != Nonce(hh) {
					t.Fatalf("reference nonce %s, H %s", ref.Nonce, h)
				}
			}
		})
	})
}

// FuzzSigningRequest: any JSON as a starknet-snip12 request's typed data
// reads through ReadRequest, Summarize and InspectTypedData without a
// panic; typed data that reads writes back as TypedData writes it and
// reads again as the same message.
func FuzzSigningRequest(f *testing.F) {
	p := vectorPayment(f)
	payload, _ := p.GetObject("payload")
	oe, _ := payload.GetObject("outsideExecution")
	td, _ := oe.GetObject("typedData")
	f.Add([]byte(jsonv.String(td)), "0x3f16efeb2ae57f7d8befb03af08a3a370562dde15149c3506ac2038ffa9be24")
	f.Fuzz(func(t *testing.T, b []byte, account string) {
		cost.Bound(t, len(b)+len(account), func() {
			v, err := jsonv.Parse(b)
			if err != nil {
				return
			}
			const network = "starknet:SN_SEPOLIA"
			req := jsonv.Obj("kind", KindSNIP12, "network", network, "account", account, "typedData", v)
			_, _ = Exact{}.Summarize(req)
			if o, ok := jsonv.AsObject(v); ok {
				_, _ = InspectTypedData(o)
			}
			r, err := ReadRequest(req)
			if err != nil {
				return
			}
			again, _, err := ReadTypedData(TypedData(r.Message, r.ChainID), network)
			if err != nil {
				t.Fatalf("typed data written from a read message does not read: %v", err)
			}
			if again.StructHash() != r.Message.StructHash() {
				t.Fatal("the message written back hashes otherwise")
			}
		})
	})
}

// printable reports text of printable ASCII only, which a short string
// holds without loss (a leading NUL is not told from no character).
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// FuzzFelt: the felt, decimal and short-string readers over any text read
// or refuse; what reads writes back to a text that reads as the same felt.
func FuzzFelt(f *testing.F) {
	for _, s := range []string{"0x0", "0x534e5f5345504f4c4941", "0X800000000000011000000000000000000000000000000000000000000000000", "393402133025997798000961", "SN_MAIN", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			if v, ok := ParseFelt(s); ok {
				if back, ok := ParseFelt(v.String()); !ok || back != v {
					t.Fatalf("%q reads as %s, which does not read back", s, v)
				}
				if back, ok := ParseFelt(v.Padded()); !ok || back != v {
					t.Fatalf("%q padded does not read back", s)
				}
			}
			if v, ok := ParseDecimalFelt(s); ok && v.Big().String() != s {
				t.Fatalf("decimal %q reads as %s", s, v.Big())
			}
			if v, ok := ShortString(s); ok && printable(s) {
				if back, ok := DecodeShortString(v); !ok || back != s {
					t.Fatalf("short string %q reads back as %q", s, back)
				}
			}
			_, _ = chainIDValue(s)
		})
	})
}
