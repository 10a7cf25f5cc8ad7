package casper

import (
	"encoding/hex"
	"math/big"
	"testing"
)

// TestDigestMemoAgrees: with the memos warm and past their bound, every
// digest is the one hashed from scratch.
func TestDigestMemoAgrees(t *testing.T) {
	fresh := func(a *Authorization) [32]byte {
		n, v, c := keccak([]byte(a.Name)), keccak([]byte(a.Version)), keccak([]byte(a.ChainName))
		d := keccak(DomainTypeHash[:], n[:], v[:], c[:], a.ContractPackageHash[:])
		w := a.structWords()
		fb, _ := hex.DecodeString(a.From)
		tb, _ := hex.DecodeString(a.To)
		f, to := keccak(fb), keccak(tb)
		if [32]byte(w[:32]) != f || [32]byte(w[32:64]) != to {
			t.Fatal("address words differ")
		}
		s := keccak(TransferTypeHash[:], w[:])
		return keccak([]byte{0x19, 0x01}, d[:], s[:])
	}
	for i := range 3 * memoSize {
		a := &Authorization{From: "00" + hexOf(byte(i)), To: "01" + hexOf(byte(i/3)), Value: big.NewInt(int64(i)),
			ValidAfter: new(big.Int), ValidBefore: big.NewInt(1790000060), Name: "T" + string(rune('a'+i%26)), Version: "1",
			ChainName: "casper:casper-test"}
		a.Nonce[0], a.ContractPackageHash[0] = byte(i), byte(i%5)
		for range 2 {
			if a.Digest() != fresh(a) {
				t.Fatalf("%d: the digest differs", i)
			}
		}
	}
	if domains.Len() > memoSize || words.Len() > memoSize || digests.Len() > memoSize {
		t.Fatal("a memo grew past its bound")
	}
}

func hexOf(b byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 64)
	for i := range out {
		out[i] = digits[(int(b)+i)%16]
	}
	return string(out)
}
