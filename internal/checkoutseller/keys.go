package checkoutseller

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math/big"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
)

// The two published development keys the demo signs with, as ES256 (P-256)
// keys: the merchant's is RFC 7517's example private EC key (Appendix A.2,
// https://www.rfc-editor.org/rfc/rfc7517#appendix-A.2); the user's trusted
// surface, which signs the closed Checkout Mandates, uses the scalar of
// Anvil's second published development account, 0x59c6…690d. Both secrets are
// public: they sign nothing outside tests and demos.
const (
	merchantD = "870MB6gfuTJ4HtUnUvYMyJpr5eUZNP4Bk43bVdj3eAE"
	userD     = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
)

// MerchantKey and UserKey are those keys.
var (
	MerchantKey = mustKey(mustB64(merchantD))
	UserKey     = mustKey(mustHex(userD))
)

func mustB64(s string) []byte {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func mustKey(d []byte) *ecdsa.PrivateKey {
	k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d)
	if err != nil {
		panic(err)
	}
	return k
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// signES256 is the JWS signature (r ‖ s, 32 bytes each) of input.
func signES256(k *ecdsa.PrivateKey, input string) string {
	d := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, k, d[:])
	if err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return b64(sig)
}

// JWS writes a compact JWS of payload under header, signed with k.
func JWS(k *ecdsa.PrivateKey, header *jsonv.Object, payload []byte) string {
	input := b64(jsonv.Marshal(header)) + "." + b64(payload)
	return input + "." + signES256(k, input)
}

var errSignature = errors.New("the ES256 signature does not verify")

// verifyES256 checks a compact JWS's ES256 signature under pub.
func verifyES256(pub *ecdsa.PublicKey, jws string) error {
	parts := strings.Split(jws, ".")
	if len(parts) != 3 {
		return errors.New("not a compact JWS")
	}
	hb, err := base64.RawURLEncoding.Strict().DecodeString(parts[0])
	if err != nil {
		return errors.New("the JWS header is not base64url")
	}
	hv, err := jsonv.Parse(hb)
	h, _ := jsonv.AsObject(hv)
	if alg, _ := h.GetString("alg"); err != nil || alg != "ES256" {
		return errors.New("the JWS is not ES256")
	}
	sig, err := base64.RawURLEncoding.Strict().DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return errSignature
	}
	d := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, d[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return errSignature
	}
	return nil
}
