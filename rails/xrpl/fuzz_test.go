package xrpl

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
)

// FuzzDecode: the decoder never panics, and whatever it accepts re-encodes
// to exactly its bytes and its JSON encodes back to them too.
func FuzzDecode(f *testing.F) {
	x := load(f, "x402-exact-xrpl.json")
	s := load(f, "mpp-session-hedera-solana-xrpl.json")
	for _, b := range []string{pathString(f, x, "V2", "blob"), pathString(f, x, "plant", "blob"), pathString(f, s, "XS2", "blob"), pathString(f, s, "XS5", "blob")} {
		raw, _ := hex.DecodeString(b)
		f.Add(raw)
	}
	f.Add([]byte{0x12, 0x00, 0x00, 0xF9, 0xEA, 0xE1, 0xF1})
	// The codec's canonical serialization rows and the other vector blobs
	// (xrplSeeds), the UNLModify among them.
	for _, b := range xrplSeeds(f) {
		if raw, err := hex.DecodeString(b); err == nil {
			f.Add(raw)
		}
	}
	f.Fuzz(func(t *testing.T, blob []byte) {
		cost.Bound(t, len(blob), func() {
			fs, err := Decode(blob)
			if err != nil {
				return
			}
			if got := Encode(fs); !bytes.Equal(got, blob) {
				t.Fatalf("accepted %X but re-encodes to %X", blob, got)
			}
			_ = fs.JSON()
		})
	})
}

// FuzzBase58: decoding never panics and stays within its size; what
// decodes encodes back to the same text.
func FuzzBase58(f *testing.F) {
	f.Add("r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC")
	f.Add("rrrrrrrrrrrrrrrrrrrrrhoLvTp")
	f.Add("sEd7rBGm5kxzauRTAV2hbsNz7N45X91")
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			b, err := Base58Decode(s, 25)
			if err != nil {
				return
			}
			if len(b) > 25 {
				t.Fatalf("%d bytes", len(b))
			}
			if Base58Encode(b) != s {
				t.Fatalf("%q decodes to %X, which encodes to %q", s, b, Base58Encode(b))
			}
			if id, err := ParseAddress(s); err == nil && id.Address() != s {
				t.Fatalf("address %q reads back as %q", s, id.Address())
			}
		})
	})
}

// FuzzReadClaim: claim bytes read back only when they are exactly a claim,
// and a claim written from what was read is the same bytes.
func FuzzReadClaim(f *testing.F) {
	f.Add(ClaimBytes([32]byte{1}, 100))
	f.Add([]byte("CLM\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			ch, drops, ok := ReadClaim(b)
			if !ok {
				return
			}
			if !bytes.Equal(ClaimBytes(ch, drops), b) {
				t.Fatalf("claim %X does not round-trip", b)
			}
		})
	})
}
