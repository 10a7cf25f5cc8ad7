package mcpserver

import (
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
)

// FuzzSealedValues: a value the fuzzer makes never opens unsealed (it
// cannot know the key); sealed by this server, it opens to the same
// members, and what is behind the seal is read by gate.ParseChosen and
// ParseHold without a panic; all within the fuzz bound.
func FuzzSealedValues(f *testing.F) {
	for _, s := range []string{
		`{"pairing":"x402/exact/eip155/eip3009","choice":{},"ref":"AAAA","mac":"0x00"}`,
		`{"pairing":"x","channel":"0x00","signedMax":"1"}`, `[]`, `{"mac":1}`, `{"a":{"mac":"x"}}`,
	} {
		f.Add([]byte(s))
	}
	s := &sealer{key: make([]byte, SealKeySize)}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := jsonv.Parse(raw)
		if err != nil {
			return
		}
		cost.Bound(t, len(raw), func() {
			for _, l := range []label{labelChosen, labelHold, labelOpening} {
				if _, d := s.open(l, v); d == nil {
					t.Fatalf("%s: %s opened without being sealed", l, raw)
				}
				o, ok := jsonv.AsObject(v)
				if !ok {
					continue
				}
				o = o.Clone()
				o.Delete("mac")
				members, d := s.open(l, s.seal(l, o))
				if d != nil || string(jsonv.Canonical(members)) != string(jsonv.Canonical(o)) {
					t.Fatalf("%s: %s sealed does not open to itself: %v", l, raw, d)
				}
				_, _ = gate.ParseChosen(members)
				_, _ = gate.ParseHold(members)
			}
		})
	})
}
