package starknet

import (
	"math/big"
	"testing"
)

// The parts BenchmarkStarknetBuildSignFinish spends its time in: one
// Hades permutation (a message hash takes 13), one field multiplication
// and squaring, and one signature (k·G, the inversions, RFC 6979's HMACs).

func BenchmarkPermute(b *testing.B) {
	s := [3]fe{toFE(Felt{1}), toFE(Felt{2}), toFE(Felt{3})}
	for b.Loop() {
		permute(&s)
	}
}

func BenchmarkFeMul(b *testing.B) {
	x, y := toFE(Felt{1, 2, 3, 4}), toFE(Felt{5, 6, 7, 8})
	for b.Loop() {
		feMul(&x, &x, &y)
	}
}

func BenchmarkFeSquare(b *testing.B) {
	x := toFE(Felt{1, 2, 3, 4})
	for b.Loop() {
		feSquare(&x, &x)
	}
}

func BenchmarkSign(b *testing.B) {
	priv, _ := new(big.Int).SetString("71d7bb07b9a64f6f78ac4c816aff4da9", 16)
	z := mustFelt("0x6a787debc79af74005cf96e7323999a93496225609a2372645db6bd5968e22d")
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Sign(priv, z); err != nil {
			b.Fatal(err)
		}
	}
}
