package cost

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// BenchmarkCalibration is what a machine charges for the primitives the
// pairings' budgets are spent on, so that a figure taken on one machine can
// be read on another (docs/performance.md, "Reading a figure on another
// machine"): the pairing benchmarks are mostly these, plus decoding.
func BenchmarkCalibration(b *testing.B) {
	seed := make([]byte, ed25519.SeedSize)
	edKey := ed25519.NewKeyFromSeed(seed)
	msg := make([]byte, 256)
	edSig := ed25519.Sign(edKey, msg)
	k1, err := crypto.ToECDSA(append(make([]byte, 31), 1))
	if err != nil {
		b.Fatal(err)
	}
	digest := sha256.Sum256(msg)
	k1Sig, _ := crypto.Sign(digest[:], k1)
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p256Sig, _ := ecdsa.SignASN1(rand.Reader, p256, digest[:])
	kib := make([]byte, 1024)
	for _, c := range []struct {
		name string
		fn   func()
	}{
		{"ed25519-sign", func() { ed25519.Sign(edKey, msg) }},
		{"ed25519-verify", func() { ed25519.Verify(edKey.Public().(ed25519.PublicKey), msg, edSig) }},
		{"secp256k1-sign", func() { _, _ = crypto.Sign(digest[:], k1) }},
		{"secp256k1-recover", func() { _, _ = crypto.Ecrecover(digest[:], k1Sig) }},
		{"p256-verify", func() { ecdsa.VerifyASN1(&p256.PublicKey, digest[:], p256Sig) }},
		{"sha256-1KiB", func() { sha256.Sum256(kib) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			cpu0 := cpu()
			for b.Loop() {
				c.fn()
			}
			b.ReportMetric(float64((cpu()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
