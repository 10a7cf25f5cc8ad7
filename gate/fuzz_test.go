package gate_test

import (
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
)

// FuzzParseHeld: the values an agent hands back (chosen, holds, agreement
// payments), read before any seal is checked: no input panics the readers
// or costs more than the fuzz bound. (mcpserver's FuzzSealedValues reads
// them behind the seal.)
func FuzzParseHeld(f *testing.F) {
	for _, s := range []string{
		`{"pairing":"x402/exact/eip155/eip3009","choice":{},"ref":"AAAA"}`,
		`{"url":"https://api.seller.example/a","option":{},"required":{}}`,
		`{"pairing":"x","channel":"0x00","signedMax":"1"}`, `[]`, `null`, `{"pairing":1}`,
	} {
		for _, ns := range []string{"eip155", "x"} {
			f.Add([]byte(s), ns)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte, ns string) {
		v, err := jsonv.Parse(raw)
		if err != nil {
			return
		}
		cost.Bound(t, len(raw), func() {
			_, _ = gate.ParseChosen(v)
			_, _ = gate.ParseHold(v)
			_, _ = gate.ParseAgreementPayment(v, ns)
		})
	})
}
