package polkadot

import "testing"

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
	if len(decoded.m) > memoSize || len(encoded.m) > memoSize {
		t.Fatalf("memos hold %d and %d", len(decoded.m), len(encoded.m))
	}
}
