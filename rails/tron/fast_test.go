package tron

import (
	"math/big"
	mathrand "math/rand"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/base58"
	"github.com/termsgate/termsgate/jsonv"
)

// TestShapeAsBase58 holds shape's fixed-size reading to the generic
// decoder's: 25 bytes beginning 0x41 from 34 characters, over addresses,
// their one-character changes and random strings of the alphabet.
func TestShapeAsBase58(t *testing.T) {
	ref := func(s string) ([]byte, bool) {
		if len(s) != 34 {
			return nil, false
		}
		b, ok := base58.Bitcoin.Decode(s)
		return b, ok && len(b) == 25 && b[0] == 0x41
	}
	r := rand.New(rand.NewPCG(7, 8))
	var inputs []string
	for range 3000 {
		var a Address
		a[0] = 0x41
		for i := 1; i < len(a); i++ {
			a[i] = byte(r.Uint32())
		}
		s := a.String()
		inputs = append(inputs, s)
		b := []byte(s)
		b[r.IntN(len(b))] = base58Chars[r.IntN(58)]
		inputs = append(inputs, string(b))
		if r.IntN(4) == 0 {
			b[r.IntN(len(b))] = byte(r.Uint32())
		}
		inputs = append(inputs, string(b), "1"+s[1:], s[:33], s+"1")
		c := make([]byte, 34)
		for i := range c {
			c[i] = base58Chars[r.IntN(58)]
		}
		inputs = append(inputs, string(c))
	}
	// the largest and smallest 34-character strings, and a leading zero
	// digit before a 25-byte value beginning 0x41
	inputs = append(inputs, strings.Repeat("z", 34), strings.Repeat("2", 34), "1"+strings.Repeat("z", 33))
	read := 0
	for _, s := range inputs {
		got, ok := shape(s)
		want, wok := ref(s)
		if ok != wok || ok && string(got[:]) != string(want) {
			t.Fatalf("shape(%q) = %x %v; the generic decoder reads %x %v", s, got, ok, want, wok)
		}
		if ok {
			read++
		}
	}
	if read < 3000 {
		t.Fatalf("only %d inputs read: the comparison must cover addresses", read)
	}
}

// TestAmountOKAsAmountOf holds amountOK to big.Int's reading below 2^256.
func TestAmountOKAsAmountOf(t *testing.T) {
	max := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	cases := []string{"", "0", "00", "01", "1", "-1", "+1", "1.0", "1e3", " 1", max.String(), new(big.Int).Add(max, big.NewInt(1)).String(),
		new(big.Int).Sub(max, big.NewInt(1)).String(), "1" + strings.Repeat("0", 77), "9" + strings.Repeat("9", 76), "0" + max.String(),
		strings.Repeat("9", 78), strings.Repeat("9", 79), "115792089237316195423570985008687907853269984665640564039457584007913129639934"}
	r := mathrand.New(mathrand.NewSource(9))
	for range 2000 {
		v := new(big.Int).Rand(r, new(big.Int).Lsh(big.NewInt(1), uint(1+r.Intn(262))))
		cases = append(cases, v.String())
	}
	accepted := 0
	for _, s := range cases {
		_, want := amountOf(jsonv.Obj("amount", s))
		if got := amountOK(s); got != want {
			t.Fatalf("amountOK(%q) = %v, amountOf says %v", s, got, want)
		}
		if want {
			accepted++
		}
	}
	if accepted < 1000 || accepted == len(cases) {
		t.Fatalf("%d of %d amounts accepted: the comparison must cover both sides of 2^256", accepted, len(cases))
	}
}

// TestEncodeAsNested holds Encode, which writes each nested message's length
// before its fields, to writing each message on its own and nesting it, as
// the first version did, over random fields, empty ones included.
func TestEncodeAsNested(t *testing.T) {
	nested := func(r *Raw) []byte {
		trigger := appendBytes(appendBytes(appendBytes(nil, 1, r.Owner), 2, r.ContractAddress), 4, r.CallData)
		anyMsg := appendBytes(appendBytes(nil, 1, []byte(TriggerURL)), 2, trigger)
		contract := appendBytes(appendInt(nil, 1, TriggerSmartContract), 2, anyMsg)
		var out []byte
		out = appendBytes(out, 1, r.RefBlockBytes)
		out = appendBytes(out, 4, r.RefBlockHash)
		out = appendInt(out, 8, r.Expiration)
		out = appendBytes(out, 10, r.Data)
		out = appendBytes(out, 11, contract)
		out = appendInt(out, 14, r.Timestamp)
		out = appendInt(out, 18, r.FeeLimit)
		return out
	}
	r := rand.New(rand.NewPCG(11, 12))
	bs := func(max int) []byte {
		b := make([]byte, r.IntN(max+1))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	u := func() uint64 {
		if r.IntN(4) == 0 {
			return 0
		}
		return r.Uint64() >> r.IntN(64)
	}
	for range 3000 {
		raw := &Raw{RefBlockBytes: bs(3), RefBlockHash: bs(9), Expiration: u(), Data: bs(200), Owner: bs(22),
			ContractAddress: bs(22), CallData: bs(300), Timestamp: u(), FeeLimit: u()}
		got, want := raw.Encode(), nested(raw)
		if string(got) != string(want) {
			t.Fatalf("Encode(%+v) = %x, nested %x", raw, got, want)
		}
		if len(got) != raw.encodedLen() || cap(got) != len(got) {
			t.Fatalf("Encode wrote %d bytes into %d, encodedLen says %d", len(got), cap(got), raw.encodedLen())
		}
		if d, err := DecodeRaw(got); err == nil && string(d.Encode()) != string(got) {
			t.Fatalf("DecodeRaw(%x) reads what does not write back", got)
		}
	}
}

// TestAddressMemoAgrees: past the memos' bound every address reads and
// writes as the uncached codec does, a changed checksum is still refused,
// and the memos never grow past the bound.
func TestAddressMemoAgrees(t *testing.T) {
	for i := range 3 * memoSize {
		var a Address
		a[0], a[1], a[20] = 0x41, byte(i), byte(i>>8)
		s := a.String()
		if s != writeAddress(a) {
			t.Fatalf("%d: the memo wrote %s", i, s)
		}
		for range 2 { // a miss, then a hit
			got, ok := ParseAddress(s)
			if want, wok := readAddress(s); !ok || !wok || got != a || want != a {
				t.Fatalf("%d: %s read as %x %v", i, s, got, ok)
			}
		}
		for _, c := range base58Chars[:3] {
			changed := s[:33] + string(c)
			if _, ok := ParseAddress(changed); ok != func() bool { _, ok := readAddress(changed); return ok }() {
				t.Fatalf("%d: %s read otherwise through the memo", i, changed)
			}
		}
	}
	if read.Len() > memoSize || written.Len() > memoSize {
		t.Fatalf("memos hold %d and %d", read.Len(), written.Len())
	}
}
