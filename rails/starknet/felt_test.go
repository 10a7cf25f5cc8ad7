package starknet

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// The limb arithmetic agrees with math/big on random elements and at the
// edges (0, 1, P-1).
func TestFieldAgreesWithBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pm1 := feltOfBig(new(big.Int).Sub(PBig, big.NewInt(1)))
	vals := []Felt{{}, {1}, pm1, {2}}
	for range 200 {
		var b [32]byte
		for j := 0; j < 4; j++ {
			w := rng.Uint64()
			for k := 0; k < 8; k++ {
				b[8*j+k] = byte(w >> (8 * k))
			}
		}
		v := new(big.Int).SetBytes(b[:])
		vals = append(vals, feltOfBig(v.Mod(v, PBig)))
	}
	for i, a := range vals {
		b := vals[(i*7+3)%len(vals)]
		x, y := toFE(a), toFE(b)
		var z fe
		check := func(op string, got fe, want *big.Int) {
			t.Helper()
			want.Mod(want, PBig)
			if g := got.felt(); g.Big().Cmp(want) != 0 {
				t.Fatalf("%s(%s, %s) = %s, want %x", op, a, b, g, want)
			}
		}
		feMul(&z, &x, &y)
		check("mul", z, new(big.Int).Mul(a.Big(), b.Big()))
		feAdd(&z, &x, &y)
		check("add", z, new(big.Int).Add(a.Big(), b.Big()))
		feSub(&z, &x, &y)
		check("sub", z, new(big.Int).Sub(a.Big(), b.Big()))
		feNeg(&z, &x)
		check("neg", z, new(big.Int).Neg(a.Big()))
		if !x.isZero() {
			feInv(&z, &x)
			feMul(&z, &z, &x)
			if z != feOne {
				t.Fatalf("inv(%s)", a)
			}
		}
	}
}

func TestFeltText(t *testing.T) {
	for _, c := range []struct {
		in   string
		ok   bool
		want string
	}{
		{"0x0", true, "0x0"}, {"0x00ab", true, "0xab"}, {"0XAB", true, "0xab"},
		{"0x", false, ""}, {"ab", false, ""}, {"0xg", false, ""},
		{"0x0800000000000011000000000000000000000000000000000000000000000001", false, ""}, // P
		{"0x0800000000000011000000000000000000000000000000000000000000000000", true, "0x800000000000011000000000000000000000000000000000000000000000000"},
		{"0x00000000000000000000000000000000000000000000000000000000000000001", false, ""}, // 65 digits
	} {
		f, ok := ParseFelt(c.in)
		if ok != c.ok || ok && f.String() != c.want {
			t.Errorf("%s: %s %v", c.in, f, ok)
		}
	}
	s, ok := ShortString("SN_SEPOLIA")
	if !ok || s.String() != "0x534e5f5345504f4c4941" {
		t.Fatalf("SN_SEPOLIA %s", s)
	}
	if d, ok := DecodeShortString(s); !ok || d != "SN_SEPOLIA" {
		t.Fatalf("decode %q", d)
	}
	if _, ok := ShortString("0123456789012345678901234567890123"); ok {
		t.Fatal("32 characters")
	}
}

// poseidon_hash(1, 2) and poseidon_hash_many of none, one and two felts, as
// cairo-lang's poseidon_hash.py computes them; the derivation of the round
// constants is what they test.
func TestPoseidon(t *testing.T) {
	if h := PoseidonHash(Felt{1}, Felt{2}); h.String() != "0x5d44a3decb2b2e0cc71071f7b802f45dd792d064f0fc7316c46514f70f9891a" {
		t.Fatalf("hash(1, 2) = %s", h)
	}
	// hash_many pads (1, 2) to (1, 2, 1, 0): two permutations; (1) to (1, 1).
	s := [3]fe{toFE(Felt{1}), toFE(Felt{2}), {}}
	permute(&s)
	one := toFE(Felt{1})
	feAdd(&s[0], &s[0], &one)
	permute(&s)
	if got := PoseidonHashMany(Felt{1}, Felt{2}); got != s[0].felt() {
		t.Fatalf("hash_many(1, 2) = %s", got)
	}
	if PoseidonHashMany(Felt{1}) != Permute(Felt{1}, Felt{1}, Felt{})[0] || PoseidonHashMany() != Permute(Felt{1}, Felt{}, Felt{})[0] {
		t.Fatal("hash_many padding")
	}
}
