package mpp

import (
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
)

// FuzzParseCredential: an Authorization: Payment credential as a seller
// reads it. No input panics it or costs more than the fuzz bound, and an
// accepted credential is an object (its shape is checked later, by
// ChallengeBound and Echoed).
func FuzzParseCredential(f *testing.F) {
	for _, s := range []string{"Payment eyJjaGFsbGVuZ2UiOnsiaWQiOiJ4In0sInBheWxvYWQiOnt9fQ", "payment e30", "Payment", "Bearer x", "Payment ____"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		cost.Bound(t, len(value), func() {
			if o, err := ParseHeader(value); err == nil {
				if o == nil {
					t.Fatalf("accepted %q as no object", value)
				}
				_, _ = ChallengeBound(o)
			}
		})
	})
}

// FuzzDecodeObject: base64url JSON objects, as a challenge's request and an
// MPP Payment-Receipt are read: no panic, within the fuzz bound, and what
// is accepted encodes back to a value that decodes the same.
func FuzzDecodeObject(f *testing.F) {
	for _, s := range []string{"e30", "eyJhIjoxfQ", "", "e30=", "W10", "eyJhIjpbMS4wLDFlMzAwXX0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			o, ok := DecodeObject(s)
			if !ok {
				return
			}
			again, ok := DecodeObject(EncodeObject(o))
			if !ok || EncodeObject(again) != EncodeObject(o) {
				t.Fatalf("%q: not stable through its encoding", s)
			}
			_, _ = DecodeStringMap(s)
		})
	})
}
