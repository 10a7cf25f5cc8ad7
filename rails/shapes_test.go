package rails

import (
	"strings"
	"testing"
)

func TestShapes(t *testing.T) {
	for s, want := range map[string]bool{
		"0x" + strings.Repeat("aF", 20): true, "0x" + strings.Repeat("a", 39): false, "0X" + strings.Repeat("a", 40): false,
		"0x" + strings.Repeat("g", 40): false, strings.Repeat("a", 42): false, "": false,
	} {
		if IsHex(s, 40) != want {
			t.Errorf("IsHex(%q, 40) = %v", s, !want)
		}
	}
	for s, want := range map[string]bool{
		"0": true, "007": true, strings.Repeat("9", 78): true, strings.Repeat("9", 79): false,
		"": false, "-1": false, "1.5": false, "1e3": false, " 1": false,
	} {
		if IsDecimal(s) != want {
			t.Errorf("IsDecimal(%q) = %v", s, !want)
		}
	}
}
