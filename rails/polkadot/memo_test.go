package polkadot

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/rails/mpp"
)

// TestSS58MemoAgrees: past the memo's bound, every address still reads and
// writes as the uncached codec does, and the memos never grow past it.
func TestSS58MemoAgrees(t *testing.T) {
	for i := range 3 * memoSize {
		var a [32]byte
		a[0], a[31] = byte(i), byte(i>>8)
		prefix := byte(i % 64)
		s := EncodeSS58(a, prefix)
		if s != encodeSS58(a, prefix) {
			t.Fatalf("%d: the memo wrote %s", i, s)
		}
		for range 2 { // a miss, then a hit
			got, p, ok := DecodeSS58(s)
			if !ok || got != a || p != prefix {
				t.Fatalf("%d: %s read as %x/%d/%v", i, s, got, p, ok)
			}
		}
		if _, _, ok := DecodeSS58(s[:len(s)-1] + "1"); ok && s[len(s)-1] != '1' {
			t.Fatalf("%d: a changed checksum read", i)
		}
	}
	if decoded.Len() > memoSize || encoded.Len() > memoSize {
		t.Fatalf("memos hold %d and %d", decoded.Len(), encoded.Len())
	}
}

// TestLowerHexAsHexBytes holds lowerHex to its first form: upper-case
// letters anywhere refused, then mpp.HexBytes.
func TestLowerHexAsHexBytes(t *testing.T) {
	ref := func(s string, max int) ([]byte, bool) {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c >= 'A' && c <= 'Z' {
				return nil, false
			}
		}
		return mpp.HexBytes(s, 0, max)
	}
	const chars = "0123456789abcdefABCDEFxXg \xff"
	r := rand.New(rand.NewPCG(23, 24))
	inputs := []string{"", "0", "0x", "0X", "0x0", "0x00", "0xAA", "0xaa", "1x00", "0x" + strings.Repeat("ab", 40)}
	for range 5000 {
		b := []byte("0x")
		if r.IntN(10) == 0 {
			b = []byte{chars[r.IntN(len(chars))], chars[r.IntN(len(chars))]}
		}
		for range r.IntN(90) {
			if r.IntN(30) == 0 {
				b = append(b, chars[r.IntN(len(chars))])
			} else {
				b = append(b, chars[r.IntN(16)])
			}
		}
		inputs = append(inputs, string(b))
	}
	read := 0
	for _, s := range inputs {
		for _, max := range []int{0, 20, 64} {
			got, ok := lowerHex(s, max)
			want, wok := ref(s, max)
			if ok != wok || string(got) != string(want) {
				t.Fatalf("lowerHex(%q, %d) = %x %v; the first form %x %v", s, max, got, ok, want, wok)
			}
			if ok {
				read++
			}
		}
	}
	if read < 2000 {
		t.Fatalf("only %d inputs read", read)
	}
}
