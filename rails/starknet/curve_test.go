package starknet

import (
	"math/big"
	"testing"
)

// The generator is on the curve and of order N.
func TestCurveParameters(t *testing.T) {
	if !onCurve(generator) {
		t.Fatal("G is not on the curve")
	}
	nm1 := new(big.Int).Sub(CurveOrder, big.NewInt(1))
	j := mul(generator, nm1)
	a, ok := j.affine()
	g1 := generator.jac()
	if !ok || a.x != generator.x || j.add(&g1).z != (fe{}) {
		t.Fatal("(N-1)·G + G is not the point at infinity")
	}
}

// starknet-devnet's first predeployed account of seed 0
// (https://github.com/0xSpaceShard/starknet-devnet, its README's example
// output): private key 0x71d7bb07b9a64f6f78ac4c816aff4da9, public key
// 0x39d9e6ce352ad4530a0ef5d5a18fd3303c3606a7fa6ac5b620020ad681cc33b.
func TestDevnetPublicKey(t *testing.T) {
	priv, _ := new(big.Int).SetString("71d7bb07b9a64f6f78ac4c816aff4da9", 16)
	pub, ok := PublicKey(priv)
	if !ok || pub.String() != "0x39d9e6ce352ad4530a0ef5d5a18fd3303c3606a7fa6ac5b620020ad681cc33b" {
		t.Fatalf("public key %s", pub)
	}
}

func TestSignVerify(t *testing.T) {
	priv, _ := new(big.Int).SetString("71d7bb07b9a64f6f78ac4c816aff4da9", 16)
	pub, _ := PublicKey(priv)
	z := mustFelt("0x6a787debc79af74005cf96e7323999a93496225609a2372645db6bd5968e22d")
	r, s, err := Sign(priv, z)
	if err != nil || !Verify(pub, z, r, s) {
		t.Fatalf("sign: %v", err)
	}
	r2, s2, _ := Sign(priv, z)
	if r2 != r || s2 != s {
		t.Fatal("not deterministic")
	}
	other := z
	other[0] ^= 1
	if Verify(pub, other, r, s) {
		t.Fatal("verifies another message")
	}
	otherKey, _ := PublicKey(big.NewInt(12345))
	if Verify(otherKey, z, r, s) {
		t.Fatal("verifies under another key")
	}
	if Verify(pub, z, s, r) {
		t.Fatal("verifies swapped")
	}
}

// The generator's fixed-base table gives what the windowed ladder gives,
// for small scalars, nibble edges and N-1.
func TestMulBaseAgrees(t *testing.T) {
	for _, s := range []string{"1", "2", "f", "10", "11", "ff", "100", "7a28ae3bd4ed8c0ce0fc0b38c1b2c8d4e18d4c9e0d4e3f1a2b3c4d5e6f708192",
		"800000000000010ffffffffffffffffb781126dcae7b2321e66a241adc64d2e"} {
		k, _ := new(big.Int).SetString(s, 16)
		a, b := mul(generator, k), mulBase(k)
		pa, okA := a.affine()
		pb, okB := b.affine()
		if !okA || !okB || pa != pb {
			t.Fatalf("%s·G: the table gives another point", s)
		}
	}
}
