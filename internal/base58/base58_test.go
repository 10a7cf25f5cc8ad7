package base58

import (
	"bytes"
	"math/rand/v2"
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

// refEncode and refDecode are base58 digit by digit, byte by byte: the
// plain arithmetic the limb version must agree with.
func refEncode(a *Alphabet, b []byte) string {
	zeros := 0
	for zeros < len(b) && b[zeros] == 0 {
		zeros++
	}
	var digits []byte
	for _, c := range b[zeros:] {
		carry := int(c)
		for i := range digits {
			carry += int(digits[i]) << 8
			digits[i] = byte(carry % 58)
			carry /= 58
		}
		for carry > 0 {
			digits = append(digits, byte(carry%58))
			carry /= 58
		}
	}
	out := make([]byte, zeros+len(digits))
	for i := 0; i < zeros; i++ {
		out[i] = a.chars[0]
	}
	for i, d := range digits {
		out[len(out)-1-i] = a.chars[d]
	}
	return string(out)
}

func refDecode(a *Alphabet, s string) ([]byte, bool) {
	zeros := 0
	for zeros < len(s) && s[zeros] == a.chars[0] {
		zeros++
	}
	var le []byte
	for i := zeros; i < len(s); i++ {
		v := a.index[s[i]]
		if v < 0 {
			return nil, false
		}
		carry := int(v)
		for j := range le {
			carry += int(le[j]) * 58
			le[j] = byte(carry)
			carry >>= 8
		}
		for carry > 0 {
			le = append(le, byte(carry))
			carry >>= 8
		}
	}
	out := make([]byte, zeros+len(le))
	for i, c := range le {
		out[len(out)-1-i] = c
	}
	return out, true
}

// Every length from 0 to 100 bytes, with and without leading zeros and
// 0xff runs, in both alphabets, encodes and decodes as the plain arithmetic
// does; so do strings of random alphabet characters (leading 1s included)
// and strings with a character outside the alphabet.
func TestLimbsAgreeWithPlainArithmetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xrpl := New("rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz")
	for _, a := range []*Alphabet{Bitcoin, xrpl} {
		for n := 0; n <= 100; n++ {
			for trial := 0; trial < 20; trial++ {
				b := make([]byte, n)
				for i := range b {
					b[i] = byte(rng.IntN(256))
				}
				switch trial {
				case 1:
					for i := 0; i < n/3; i++ {
						b[i] = 0
					}
				case 2:
					for i := range b {
						b[i] = 0xff
					}
				case 3:
					for i := range b {
						b[i] = 0
					}
				}
				enc := a.Encode(b)
				if want := refEncode(a, b); enc != want {
					t.Fatalf("Encode(%x) = %q, want %q", b, enc, want)
				}
				dec, ok := a.Decode(enc)
				if !ok || !bytes.Equal(dec, b) {
					t.Fatalf("Decode(%q) = %x %v, want %x", enc, dec, ok, b)
				}
				s := make([]byte, n)
				for i := range s {
					s[i] = a.chars[rng.IntN(58)]
				}
				if trial == 1 {
					for i := 0; i < n/3; i++ {
						s[i] = a.chars[0]
					}
				}
				if trial == 4 && n > 0 {
					s[rng.IntN(n)] = "0OIl+/ \x00\xff"[rng.IntN(9)]
				}
				got, okGot := a.Decode(string(s))
				want, okWant := refDecode(a, string(s))
				if okGot != okWant || !bytes.Equal(got, want) {
					t.Fatalf("Decode(%q) = %x %v, want %x %v", s, got, okGot, want, okWant)
				}
			}
		}
	}
}

func BenchmarkKey(b *testing.B) {
	key := bytes.Repeat([]byte{0x9c}, 32)
	s := Bitcoin.Encode(key)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Bitcoin.Decode(Bitcoin.Encode(key)); !ok {
			b.Fatal(s)
		}
	}
}
