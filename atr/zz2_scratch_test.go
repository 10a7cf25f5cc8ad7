package atr

import "testing"

func TestPuny(t *testing.T) {
	for _, s := range []string{"n3hxn--mnchen-3ya", "axn--n3hhttps", "mnchen-3yaab--curn", "n3h", "a1xn--n3h", "mnchen-3yaxn--mnchen-3yahttps"} {
		d, ok := punycodeDecode(s)
		t.Logf("%s %q %U %v", s, string(d), d, ok)
	}
}
