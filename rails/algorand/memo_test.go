package algorand

import "testing"

// TestAddressMemoAgrees: past the memos' bound every address reads and
// writes as the uncached codec does, a changed character is still refused
// (or read) as without the memo, and the memos never grow past the bound.
func TestAddressMemoAgrees(t *testing.T) {
	for i := range 3 * memoSize {
		var pub [32]byte
		pub[0], pub[31] = byte(i), byte(i>>8)
		s := Address(pub)
		if s != writeAddress(pub) {
			t.Fatalf("%d: the memo wrote %s", i, s)
		}
		for range 2 { // a miss, then a hit
			got, ok := ParseAddress(s)
			if want, wok := readAddress(s); !ok || !wok || got != pub || want != pub {
				t.Fatalf("%d: %s read as %x %v", i, s, got, ok)
			}
		}
		for _, c := range "AQ7" {
			changed := s[:len(s)-1] + string(c)
			_, ok := ParseAddress(changed)
			if _, rok := readAddress(changed); ok != rok {
				t.Fatalf("%d: %s read %v through the memo, %v without", i, changed, ok, rok)
			}
		}
	}
	if read.Len() > memoSize || written.Len() > memoSize {
		t.Fatalf("memos hold %d and %d", read.Len(), written.Len())
	}
}
