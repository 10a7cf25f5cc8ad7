package x402

import (
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
)

// TestLowerHashIsString: whatever case the seller wrote the hash in, the
// read's H is the one form the gate emits.
func TestLowerHashIsString(t *testing.T) {
	lower := "0x8b1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e39310072938"
	for _, v := range []string{lower, "0x" + strings.ToUpper(lower[2:]), "0x8B1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e39310072938",
		"0x8b1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e3931007293F", "0x" + strings.Repeat("0", 64)} {
		h, err := atr.ParseHash(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := lowerHash(v, h); got != h.String() {
			t.Errorf("%s read as %s, want %s", v, got, h.String())
		}
	}
}
