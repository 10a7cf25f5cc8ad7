package hedera_test

import (
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/vectors"
)

// executorPayment is the vector file's B6 payment (the pairing is not
// registered, so vectors.Payments does not hold it).
func executorPayment(t testing.TB) *jsonv.Object {
	v, err := vectors.Load("x402-exact-hedera-transfer-executor.json")
	if err != nil {
		t.Fatal(err)
	}
	f, _ := jsonv.AsObject(v)
	rows, _ := f.Get("buyer")
	b, _ := jsonv.AsObject(rows)
	list, _ := b.Get("rows")
	for _, r := range list.([]jsonv.Value) {
		o, _ := jsonv.AsObject(r)
		if n, _ := o.GetString("name"); n == "B6" {
			in, _ := o.GetObject("input")
			p, _ := in.GetObject("presented")
			return p
		}
	}
	t.Fatal("no B6")
	return nil
}

// Inspect reads the vector payment: H, the payer's grant, the idDigest.
func TestExecutorInspect(t *testing.T) {
	in, err := hedera.Executor{}.Inspect(executorPayment(t))
	if err != nil || in.Grant.Payer != "0.0.5001" || in.Grant.Payee != "0.0.4001" || in.Grant.Amount.Int64() != 100000000 ||
		in.Grant.Decimals != 8 || in.H != "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("inspect %+v, %v", in, err)
	}
	if d, _ := in.Details.GetString("idDigest"); d != "0xe3c70ca164e2edb9392b9914239c506f3d4e6bcbcbe701819c7c3b2721c935c3" {
		t.Fatalf("idDigest %s", d)
	}
}

// FuzzHederaExecutorPayment: x402/exact/hedera/transfer-executor's Bound,
// Reference and Inspect with the input as the payment's JSON never panic and
// stay within the time bound; Inspect's H is Bound's. Seeded with the
// vector payment.
func FuzzHederaExecutorPayment(f *testing.F) {
	f.Add(jsonv.Marshal(executorPayment(f)))
	f.Fuzz(func(t *testing.T, raw []byte) {
		cost.Bound(t, len(raw), func() {
			v, err := jsonv.ParseDepth(raw, 16)
			if err != nil {
				return
			}
			p := hedera.Executor{}
			h, errB := p.Bound(v)
			_, _ = p.Reference(v)
			in, errI := p.Inspect(v)
			if errI == nil && (errB != nil || h != in.H) {
				t.Fatalf("inspect says H %q, bound %q (%v)", in.H, h, errB)
			}
		})
	})
}
