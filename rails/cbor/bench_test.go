package cbor

import (
	"encoding/hex"
	"testing"
)

// BenchmarkDecode: the CIP-20 auxiliary data of x402-exact-cardano.json's
// V1 (95 bytes, 10 items), decoded and written back.
func BenchmarkDecode(b *testing.B) {
	raw, _ := hex.DecodeString(auxHex)
	b.ReportAllocs()
	for b.Loop() {
		v, err := Decode(raw)
		if err != nil {
			b.Fatal(err)
		}
		_ = Encode(v)
	}
}
