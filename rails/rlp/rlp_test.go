package rlp

import (
	"bytes"
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	gethrlp "github.com/ethereum/go-ethereum/rlp"

	"github.com/termsgate/termsgate/internal/cost"
)

var wide = Limits{MaxDepth: 8, MaxItems: 1 << 16}

func unhexT(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeCanonical(t *testing.T) {
	for _, s := range []string{
		"00", "7f", "80", "8180", "81ff", "c0", "c180", "c3010203", "c5c1c0c1c0c0",
		"b838" + strings.Repeat("aa", 56), "f838" + strings.Repeat("01", 56),
		"b90100" + strings.Repeat("aa", 256),
	} {
		in := unhexT(t, s)
		it, err := Decode(in, wide)
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		if !bytes.Equal(it.Raw, in) {
			t.Errorf("%s: raw %x", s, it.Raw)
		}
	}
}

func TestDecodeRefusesNonCanonical(t *testing.T) {
	for name, s := range map[string]string{
		"empty input":                     "",
		"a byte below 0x80 with a prefix": "8100",
		"7f with a prefix":                "817f",
		"long form for 55 bytes":          "b837" + strings.Repeat("aa", 55),
		"long form for a short list":      "f801c0",
		"a length with a leading zero":    "b90038" + strings.Repeat("aa", 56),
		"a length beyond the input":       "83aabb",
		"a list length beyond the input":  "c301",
		"an item overrunning its list":    "c28301",
		"trailing bytes":                  "8000",
		"two items":                       "c0c0",
		"a length of length beyond":       "bb01",
		"an absurd length":                "bfffffffffffffffff",
	} {
		if _, err := Decode(unhexT(t, s), wide); err == nil {
			t.Errorf("%s (%s) decoded", name, s)
		}
	}
}

func TestDecodeBounds(t *testing.T) {
	nest := func(n int) []byte { // n lists inside one another: depths 0..n-1
		b := []byte{0xc0}
		for i := 1; i < n; i++ {
			b = append([]byte{0xc0 + byte(len(b))}, b...)
		}
		return b
	}
	if _, err := Decode(nest(9), Limits{MaxDepth: 8, MaxItems: 100}); err != nil {
		t.Fatalf("depth 8: %v", err)
	}
	if _, err := Decode(nest(10), Limits{MaxDepth: 8, MaxItems: 100}); err == nil {
		t.Fatal("depth 9 decoded")
	}
	// Strings are no deeper than their list.
	if _, err := Decode(append([]byte{0xc0 + 10}, nest(9)...)[:1], Limits{MaxDepth: 8, MaxItems: 100}); err == nil {
		t.Fatal("a truncated list decoded")
	}
	many, _ := gethrlp.EncodeToBytes(make([]uint64, 99))
	if _, err := Decode(many, Limits{MaxDepth: 8, MaxItems: 100}); err != nil {
		t.Fatalf("100 items: %v", err)
	}
	if _, err := Decode(many, Limits{MaxDepth: 8, MaxItems: 99}); err == nil {
		t.Fatal("100 items under a bound of 99")
	}
}

func TestUint(t *testing.T) {
	for s, want := range map[string]string{"80": "0", "01": "1", "7f": "127", "8180": "128", "820100": "256",
		"a0" + strings.Repeat("ff", 32): new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)).String()} {
		it, err := Decode(unhexT(t, s), wide)
		n, ok := it.Uint()
		if err != nil || !ok || n.String() != want {
			t.Errorf("%s: %v %v %v", s, n, ok, err)
		}
	}
	for _, s := range []string{"00", "820001", "a1" + strings.Repeat("ff", 33), "c0"} {
		it, err := Decode(unhexT(t, s), wide)
		if err == nil && it.IsUint() {
			t.Errorf("%s is an integer", s)
		}
	}
}

// FuzzDecodeRLP: never a panic; what decodes is canonical, so re-encoding
// the tree gives the input back, and go-ethereum agrees on it.
func FuzzDecodeRLP(f *testing.F) {
	for _, s := range []string{"c0", "8180", "f838" + strings.Repeat("01", 56), "c5c1c0c1c0c0", "8100", "b90038"} {
		b, _ := hex.DecodeString(s)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		cost.Bound(t, len(in), func() {
			it, err := Decode(in, Limits{MaxDepth: 8, MaxItems: 4096})
			if err != nil {
				return
			}
			if !bytes.Equal(reencode(t, it), in) {
				t.Fatalf("%x does not re-encode to itself", in)
			}
			var raw gethrlp.RawValue
			if err := gethrlp.DecodeBytes(in, &raw); err != nil {
				t.Fatalf("go-ethereum refuses what the strict reader took: %x: %v", in, err)
			}
		})
	})
}

func reencode(t *testing.T, it Item) []byte {
	if !it.List {
		out, err := gethrlp.EncodeToBytes(it.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	items := make([]gethrlp.RawValue, len(it.Items))
	for i, c := range it.Items {
		items[i] = reencode(t, c)
	}
	out, err := gethrlp.EncodeToBytes(items)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
