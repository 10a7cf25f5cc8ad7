package xrpl

import (
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAddressMemoAgrees: past the memos' bound every address reads and
// writes as the uncached codec does, a changed character is still refused
// (or read) as without the memo, and the memos never grow past the bound.
func TestAddressMemoAgrees(t *testing.T) {
	for i := range 3 * memoSize {
		var id AccountID
		id[0], id[19] = byte(i), byte(i>>8)
		s := id.Address()
		if s != EncodeChecked([]byte{0}, id[:]) {
			t.Fatalf("%d: the memo wrote %s", i, s)
		}
		for range 2 { // a miss, then a hit
			got, err := ParseAddress(s)
			if want, werr := readAddress(s); err != nil || werr != nil || got != id || want != id {
				t.Fatalf("%d: %s read as %x %v", i, s, got, err)
			}
		}
		for _, c := range "rpx" {
			changed := s[:len(s)-1] + string(c)
			_, err := ParseAddress(changed)
			if _, rerr := readAddress(changed); (err == nil) != (rerr == nil) {
				t.Fatalf("%d: %s read %v through the memo, %v without", i, changed, err, rerr)
			}
		}
	}
	if read.Len() > memoSize || written.Len() > memoSize {
		t.Fatalf("memos hold %d and %d", read.Len(), written.Len())
	}
}

// TestUpperHexAsToUpper holds upperHex to strings.ToUpper of the hex, over
// lengths either side of its 64-byte chunk.
func TestUpperHexAsToUpper(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for n := range 300 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		if got, want := upperHex(b), strings.ToUpper(hex.EncodeToString(b)); got != want {
			t.Fatalf("upperHex(%x) = %s, want %s", b, got, want)
		}
	}
}
