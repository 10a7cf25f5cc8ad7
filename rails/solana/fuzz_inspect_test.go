package solana

import (
	"encoding/base64"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/vectors"
)

// FuzzInspectWire: inspect's reader of a bare wire transaction (run without
// its guard; the input as base64 and as base58) and the x402/exact/solana,
// mpp/session/solana, mpp/charge/solana and mpp/charge/usdc/solana Inspect
// with it in their vector payment's place never panic and stay within the time bound; a pairing's inspection names
// the H its Bound reads. Seeded with the vectors' wire transactions.
func FuzzInspectWire(f *testing.F) {
	for _, file := range []string{"x402-exact-solana.json", "mpp-session-hedera-solana-xrpl.json", "x402-batch-settlement.json", "mpp-charge-solana.json"} {
		seeds, err := vectors.Strings(file, "wireBase64", "transaction")
		if err != nil {
			f.Fatal(err)
		}
		for _, s := range seeds {
			if b, err := base64.StdEncoding.DecodeString(s); err == nil {
				f.Add(b)
			}
		}
	}
	payments, err := vectors.Payments()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, wire []byte) {
		cost.Bound(t, len(wire), func() {
			text := base64.StdEncoding.EncodeToString(wire)
			for _, s := range []string{text, Base58(wire)} {
				if in, err := inspectWire(s); err == nil {
					_ = jsonv.Marshal(in.JSON())
				}
			}
			for _, p := range []rails.Pairing{Exact{}, Session{}, Charge{}, ChargeUSDC{}} {
				pay := jsonv.Clone(payments[p.ID()]).(*jsonv.Object)
				payload, _ := pay.GetObject("payload")
				payload.Set("transaction", text)
				in, err := p.(rails.Inspector).Inspect(pay)
				if err != nil {
					continue
				}
				if h, err := p.Bound(pay); err != nil || h != in.H {
					t.Fatalf("%s: inspect says H %q, bound %q (%v)", p.ID(), in.H, h, err)
				}
				_ = jsonv.Marshal(in.JSON())
			}
		})
	})
}
