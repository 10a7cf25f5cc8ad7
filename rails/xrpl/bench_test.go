package xrpl

import (
	"testing"

	"github.com/termsgate/termsgate/jsonv"
)

// BenchmarkXRPLDecodeXC5 decodes decoder-caps.json's largest blob (4096 hex
// characters, nested past the cap): the work a hostile blob can cost.
func BenchmarkXRPLDecodeXC5(b *testing.B) {
	rows, _ := jsonv.AsArray(path(b, load(b, "decoder-caps.json"), "xrpl", "rows"))
	blob := mustHex(b, pathString(b, rows[4], "blob"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(blob); err == nil {
			b.Fatal("XC5 accepted")
		}
	}
}

// BenchmarkXRPLDecodeV2 decodes x402-exact-xrpl.json V2's signed payment.
func BenchmarkXRPLDecodeV2(b *testing.B) {
	blob := mustHex(b, pathString(b, load(b, "x402-exact-xrpl.json"), "V2", "blob"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(blob); err != nil {
			b.Fatal(err)
		}
	}
}
