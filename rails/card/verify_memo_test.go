package card

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"testing"

	"github.com/termsgate/termsgate/rails/sdjwt"
)

// TestVerifyMemoAgrees: what the memo answers is what verifying answers. A
// signature that verified once still verifies; the same signature over other
// bytes, another signature over the same bytes and the same pair under
// another key are refused although the first was remembered; the memo never
// grows past its size.
func TestVerifyMemoAgrees(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	jwk, err := JWK(&key.PublicKey, "")
	if err != nil {
		t.Fatal(err)
	}
	otherJWK, _ := JWK(&other.PublicKey, "")
	sign := func(signed string) *sdjwt.JWT {
		sum := sha256.Sum256([]byte(signed))
		r, s, err := ecdsa.Sign(rand.Reader, key, sum[:])
		if err != nil {
			t.Fatal(err)
		}
		sig := make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
		return &sdjwt.JWT{Signed: signed, Signature: sig}
	}
	j := sign("header.payload")
	for i := 0; i < 2; i++ {
		if err := verifyES256(j, jwk); err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
	}
	if err := verifyES256(&sdjwt.JWT{Signed: "header.payload2", Signature: j.Signature}, jwk); err == nil {
		t.Fatal("the signature verified over other bytes")
	}
	bad := append([]byte(nil), j.Signature...)
	bad[63] ^= 1
	if err := verifyES256(&sdjwt.JWT{Signed: j.Signed, Signature: bad}, jwk); err == nil {
		t.Fatal("a changed signature verified")
	}
	if err := verifyES256(j, otherJWK); err == nil {
		t.Fatal("the signature verified under another key")
	}
	for i := 0; i < es256MemoSize+10; i++ {
		if err := verifyES256(sign("layer."+string(rune('a'+i%26))+string(rune('a'+i/26))), jwk); err != nil {
			t.Fatal(err)
		}
		if n := verifiedES256.Len(); n > es256MemoSize {
			t.Fatalf("the memo holds %d", n)
		}
	}
	if err := verifyES256(j, jwk); err != nil {
		t.Fatalf("after the memo started again: %v", err)
	}
}
