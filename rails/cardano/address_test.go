package cardano

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The BIP-173 reference as first written here (checksum over an expanded
// copy, characters found with strings.IndexByte, bits regrouped by
// convertBits): the one-pass bech32Decode and bech32Encode must agree
// with it on every input.

func refPolymod(values []byte) uint32 {
	gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := uint32(1)
	for _, v := range values {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ uint32(v)
		for i := 0; i < 5; i++ {
			if (top>>i)&1 == 1 {
				chk ^= gen[i]
			}
		}
	}
	return chk
}

func refHrpExpand(hrp string) []byte {
	out := make([]byte, 0, 2*len(hrp)+1)
	for i := 0; i < len(hrp); i++ {
		out = append(out, hrp[i]>>5)
	}
	out = append(out, 0)
	for i := 0; i < len(hrp); i++ {
		out = append(out, hrp[i]&31)
	}
	return out
}

func refConvertBits(in []byte, from, to uint, pad bool) ([]byte, bool) {
	var acc, bits uint
	out := make([]byte, 0, len(in)*int(from)/int(to)+1)
	maxv := uint(1)<<to - 1
	for _, v := range in {
		acc = acc<<from | uint(v)
		bits += from
		for bits >= to {
			bits -= to
			out = append(out, byte(acc>>bits&maxv))
		}
	}
	if pad {
		if bits > 0 {
			out = append(out, byte(acc<<(to-bits)&maxv))
		}
	} else if bits >= from || acc<<(to-bits)&maxv != 0 {
		return nil, false
	}
	return out, true
}

func refDecode(s string) (string, []byte, bool) {
	pos := strings.LastIndexByte(s, '1')
	if pos < 1 || pos+7 > len(s) {
		return "", nil, false
	}
	hrp := s[:pos]
	for i := 0; i < len(hrp); i++ {
		if hrp[i] < 33 || hrp[i] > 126 {
			return "", nil, false
		}
	}
	words := make([]byte, 0, len(s)-pos-1)
	for i := pos + 1; i < len(s); i++ {
		c := strings.IndexByte(charset, s[i])
		if c < 0 {
			return "", nil, false
		}
		words = append(words, byte(c))
	}
	if refPolymod(append(refHrpExpand(hrp), words...)) != 1 {
		return "", nil, false
	}
	data, ok := refConvertBits(words[:len(words)-6], 5, 8, false)
	if !ok {
		return "", nil, false
	}
	return hrp, data, true
}

func refEncode(hrp string, data []byte) string {
	words, _ := refConvertBits(data, 8, 5, true)
	values := append(refHrpExpand(hrp), words...)
	mod := refPolymod(append(values, 0, 0, 0, 0, 0, 0)) ^ 1
	var b strings.Builder
	b.WriteString(hrp)
	b.WriteByte('1')
	for _, w := range words {
		b.WriteByte(charset[w])
	}
	for i := 0; i < 6; i++ {
		b.WriteByte(charset[(mod>>(5*(5-i)))&31])
	}
	return b.String()
}

func TestBech32AgreesWithReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	hrps := []string{"addr", "addr_test", "a", "stake_test"}
	parsed := 0
	decoded := 0
	check := func(s string) {
		t.Helper()
		hrp, data, err := bech32Decode(s)
		rhrp, rdata, ok := refDecode(s)
		if (err == nil) != ok || hrp != rhrp || string(data) != string(rdata) {
			t.Fatalf("bech32Decode(%q) = %q %x %v; the reference reads %q %x %v", s, hrp, data, err, rhrp, rdata, ok)
		}
		if ok {
			decoded++
		}
		// Build keeps the payer as written: a text ParseAddress reads is
		// the one Address.String writes
		if a, err := ParseAddress(s); err == nil && a.String() != s {
			t.Fatalf("ParseAddress(%q).String() = %q", s, a.String())
		}
	}
	for n := 0; n < 4000; n++ {
		hrp := hrps[r.IntN(len(hrps))]
		data := make([]byte, r.IntN(70))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		if r.IntN(2) == 0 { // a Shelley address's shape: header, 28 or 56 bytes
			data = data[:0]
			typ, net := byte(r.IntN(8)), byte(r.IntN(2))
			data = append(data, typ<<4|net)
			n := 28
			if typ < 4 {
				n = 56
			}
			for range n {
				data = append(data, byte(r.Uint32()))
			}
			if typ == 4 || typ == 5 {
				data = append(data, 1, 2, 3)
			}
			hrp = addressPrefix(net)
			if _, err := ParseAddress(bech32Encode(hrp, data)); err != nil {
				t.Fatalf("the address %x does not parse: %v", data, err)
			}
			parsed++
		}
		s := bech32Encode(hrp, data)
		if want := refEncode(hrp, data); s != want {
			t.Fatalf("bech32Encode(%q, %x) = %q, want %q", hrp, data, s, want)
		}
		check(s)
		// one character changed, dropped or added: most fail the checksum,
		// some the regrouping's leftover bits
		b := []byte(s)
		i := r.IntN(len(b))
		switch r.IntN(3) {
		case 0:
			b[i] = charset[r.IntN(32)]
			if r.IntN(8) == 0 {
				b[i] = byte(r.Uint32())
			}
		case 1:
			b = append(b[:i], b[i+1:]...)
		case 2:
			b = append(b[:i], append([]byte{charset[r.IntN(32)]}, b[i:]...)...)
		}
		check(string(b))
	}
	for _, s := range []string{"", "1", "a1", "a1qqqqqq", "1qqqqqqq", "A1QQQQQQ", "addr1\x00qqqqqq", "addr_test1vqxk54m7j3q6mrkevcunryrwf4p7e68c93cjk8gzxkhlkpsffv7s0"} {
		check(s)
	}
	if parsed < 1000 {
		t.Fatalf("only %d Shelley addresses: the comparison must cover them", parsed)
	}
	if decoded < 4000 {
		t.Fatalf("only %d inputs decoded: the comparison must cover valid addresses", decoded)
	}
}
