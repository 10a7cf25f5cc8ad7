package stacks

import "testing"

// TestAddressMemoAgrees: past the memos' bound every address reads and
// writes as the uncached codec does, a changed character is still refused
// (or read) as without the memo, and the memos never grow past the bound.
func TestAddressMemoAgrees(t *testing.T) {
	for i := range 3 * memoSize {
		var h [20]byte
		h[0], h[19] = byte(i), byte(i>>8)
		version := []byte{22, 26, 20, 21}[i%4]
		s := Address(version, h)
		if s != writeAddress(version, h) {
			t.Fatalf("%d: the memo wrote %s", i, s)
		}
		for range 2 { // a miss, then a hit
			v, got, ok := ParseAddress(s)
			if rv, rh, rok := readAddress(s); !ok || !rok || v != version || rv != version || got != h || rh != h {
				t.Fatalf("%d: %s read as %d %x %v", i, s, v, got, ok)
			}
		}
		for _, c := range "0AZ" {
			changed := s[:len(s)-1] + string(c)
			_, _, ok := ParseAddress(changed)
			if _, _, rok := readAddress(changed); ok != rok {
				t.Fatalf("%d: %s read %v through the memo, %v without", i, changed, ok, rok)
			}
		}
	}
	if read.Len() > memoSize || written.Len() > memoSize {
		t.Fatalf("memos hold %d and %d", read.Len(), written.Len())
	}
}
