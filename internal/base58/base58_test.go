package base58

import (
	"bytes"
	"testing"
)

func TestBitcoinKnownAnswers(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want string
	}{
		{nil, ""},
		{[]byte{0}, "1"},
		{[]byte{0, 0, 1}, "112"},
		{[]byte("hello world"), "StV1DL6CwTryKyV"},
		{[]byte{0xff, 0xff}, "LUv"},
	} {
		got := Bitcoin.Encode(c.in)
		if got != c.want {
			t.Errorf("Encode(%x) = %q, want %q", c.in, got, c.want)
		}
		back, ok := Bitcoin.Decode(got)
		if !ok || !bytes.Equal(back, c.in) && len(c.in) != 0 {
			t.Errorf("Decode(%q) = %x, %v; want %x", got, back, ok, c.in)
		}
	}
	if _, ok := Bitcoin.Decode("10OIl"); ok {
		t.Error("0, O, I and l are not base58")
	}
}
