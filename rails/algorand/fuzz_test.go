package algorand_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/algorand"
	"github.com/termsgate/termsgate/vectors"
)

// seeds are the vector file's group entries and refusal entries, and
// decoder-caps.json's msgpack rows, as bytes.
func seeds(t testing.TB) [][]byte {
	f, err := vectors.Load("x402-exact-algorand.json")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	add := func(v jsonv.Value) {
		list, _ := jsonv.AsArray(v)
		for _, e := range list {
			if s, ok := e.(string); ok {
				if b, err := base64.StdEncoding.DecodeString(s); err == nil {
					out = append(out, b)
				}
			}
		}
	}
	v2, _ := f.GetObject("V2")
	add(must(v2.Get("expectPaymentGroup")))
	v3, _ := f.GetObject("V3")
	refusals, _ := v3.Get("refusals")
	for _, r := range refusals.([]jsonv.Value) {
		add(must(r.(*jsonv.Object).Get("paymentGroup")))
	}
	caps, err := vectors.Load("decoder-caps.json")
	if err != nil {
		t.Fatal(err)
	}
	mp, _ := caps.GetObject("msgpack")
	rows, _ := mp.Get("rows")
	for _, r := range rows.([]jsonv.Value) {
		s, _ := r.(*jsonv.Object).GetString("hex")
		b, _ := hex.DecodeString(s)
		out = append(out, b)
	}
	return out
}

func must(v jsonv.Value, _ bool) jsonv.Value { return v }

// FuzzDecode: the caps scan and the decoder never panic; what the decoder
// accepts the scan accepted and re-encodes to exactly its bytes (one
// spelling per value), and a signed transaction read from it re-encodes
// too.
func FuzzDecode(f *testing.F) {
	for _, b := range seeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			within := algorand.WithinCaps(b)
			v, err := algorand.Decode(b)
			if err != nil {
				return
			}
			if !within {
				t.Fatalf("decoded %x beyond the caps", b)
			}
			if got := algorand.Encode(v); !bytes.Equal(got, b) {
				t.Fatalf("accepted %x but re-encodes to %x", b, got)
			}
			s, err := algorand.DecodeSigned(b)
			if err != nil {
				return
			}
			txn, err := algorand.ReadTxn(s.Txn)
			if err != nil {
				return
			}
			if got := algorand.EncodeSigned(txn, s.Sig); s.AuthKey == ([32]byte{}) && !bytes.Equal(got, b) {
				t.Fatalf("signed transaction %x re-encodes to %x", b, got)
			}
		})
	})
}

// FuzzExactPayment: any bytes as the payment group entry of the vector
// payment never panic Bound, PaymentReference or Inspect; what Bound
// accepts Inspect states with the same H.
func FuzzExactPayment(f *testing.F) {
	payments, err := vectors.Payments()
	if err != nil {
		f.Fatal(err)
	}
	base := payments[algorand.ExactID].(*jsonv.Object)
	for _, b := range seeds(f) {
		f.Add(b, 0)
	}
	f.Add([]byte{}, 1)
	f.Fuzz(func(t *testing.T, entry []byte, index int) {
		cost.Bound(t, len(entry), func() {
			pay := base.Clone()
			payload, _ := pay.GetObject("payload")
			group, _ := jsonv.AsArray(must(payload.Get("paymentGroup")))
			group = append([]jsonv.Value(nil), group...)
			group[index&1] = base64.StdEncoding.EncodeToString(entry)
			payload.Set("paymentGroup", group)
			payload.Set("paymentIndex", jsonv.Number(index%3))
			h, errB := algorand.Exact{}.Bound(pay)
			_, errR := algorand.PaymentReference(pay)
			in, errI := algorand.Exact{}.Inspect(pay)
			if (errB == nil) != (errR == nil) {
				t.Fatalf("bound %v, reference %v", errB, errR)
			}
			if errB == nil && errI == nil && in.H != h {
				t.Fatalf("inspect H %s, bound %s", in.H, h)
			}
		})
	})
}

// FuzzInspectSignedTxn: the bare reader never panics on any text.
func FuzzInspectSignedTxn(f *testing.F) {
	for _, b := range seeds(f) {
		f.Add(base64.StdEncoding.EncodeToString(b))
	}
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			in, err := algorand.InspectSignedTxn(s)
			if err == nil && in.Grant.Payer == "" {
				t.Fatalf("inspected %q with no payer", s)
			}
		})
	})
}

// FuzzSigningRequest: the strict request reader the spend policy and the
// signer use never panics, and what it reads states a grant or an error.
func FuzzSigningRequest(f *testing.F) {
	for _, b := range seeds(f) {
		f.Add(append([]byte("TX"), b...))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			req := jsonv.Obj("kind", algorand.KindTxn, "network", algorand.TestNet, "bytes", "0x"+hex.EncodeToString(b))
			g, err := algorand.Exact{}.Summarize(req)
			if err == nil && (g.Amount == nil || g.Payer == "" || g.Payee == "") {
				t.Fatalf("summarized %x as %+v", b, g)
			}
		})
	})
}
