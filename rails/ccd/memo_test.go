package ccd

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/termsgate/termsgate/atr"
)

// TestAccountMemoAgrees: past the memos' bound every address reads and
// writes as the uncached codec does (a miss, then a hit), a changed
// character is refused as from scratch, a caller writing into what
// AccountBytes returned changes nothing remembered, and neither memo grows
// past its bound.
func TestAccountMemoAgrees(t *testing.T) {
	for i := range 3 * memoSize {
		var a [32]byte
		a[0], a[31] = byte(i), byte(i>>8)
		s := Address(a[:])
		if s != encodeAddress(a[:]) {
			t.Fatalf("%d: the memo wrote %s", i, s)
		}
		for range 2 {
			got, err := AccountBytes(s)
			fresh, ok := decodeAccount(s)
			if err != nil || !ok || !bytes.Equal(got, a[:]) || fresh != a {
				t.Fatalf("%d: %s read as %x (%v), from scratch %x", i, s, got, err, fresh)
			}
			got[0] ^= 0xff // the caller's copy, not the memo's
		}
		bad := []byte(s)
		bad[len(bad)-1] = map[bool]byte{true: '2', false: '1'}[bad[len(bad)-1] == '1']
		_, err := AccountBytes(string(bad))
		_, ok := decodeAccount(string(bad))
		if (err == nil) != ok {
			t.Fatalf("%d: %s: memo %v, from scratch %v", i, bad, err, ok)
		}
	}
	if accounts.Len() > memoSize || addresses.Len() > memoSize {
		t.Fatalf("memos hold %d and %d", accounts.Len(), addresses.Len())
	}
}

// TestMemoCarrierFastAgrees: MemoCarrier's in-place reading of Memo(H)
// answers as the reading from scratch on every memo and on each of its
// one-byte changes and cuts, value and refusal code alike.
func TestMemoCarrierFastAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(m []byte) {
		t.Helper()
		h1, e1 := MemoCarrier(m)
		h2, e2 := memoCarrier(m)
		if h1 != h2 || (e1 == nil) != (e2 == nil) || e1 != nil && e1.Error() != e2.Error() {
			t.Fatalf("%x: %v %v, from scratch %v %v", m, h1, e1, h2, e2)
		}
	}
	for i := range 200 {
		h := atr.Sum([]byte{byte(i), byte(i >> 8)})
		m := Memo(h)
		if got, err := MemoCarrier(m); err != nil || got != h {
			t.Fatalf("%d: %v, %v", i, got, err)
		}
		check(m)
		for range 8 {
			c := bytes.Clone(m)
			c[r.IntN(len(c))] = byte(r.IntN(256))
			check(c)
			check(c[:r.IntN(len(c))])
		}
		check(append(bytes.Clone(m), 0))
		check(bytes.ToUpper(m))
	}
}
