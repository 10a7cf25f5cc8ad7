package signer_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	ethcrypto "github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/casper"
	"github.com/termsgate/termsgate/signer"
)

type casperChain string

func (c casperChain) ChainspecName(context.Context) (string, error) { return string(c), nil }

func casperOption() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", "casper:casper-test", "amount", "7500000000",
		"asset", "17be3c3dc67ddf193b8f64bfc2421826407470f88b3dab68184ebffebdd57f59",
		"payTo", "007a9f9948cb7b258d18f3c5e85780372971b5b40096e724c9e596c284a01445fa", "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("name", "Casper X402 Token", "version", "1"))
}

func casperBuild(t *testing.T, from string) (rails.Unsigned, rails.Request) {
	t.Helper()
	o := casperOption()
	req := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{o})
	h := atr.Sum([]byte("abc"))
	u, err := casper.Exact{}.Build(jsonv.Obj("required", req, "accepted", o, "from", from, "now", 1790000000), []byte("abc"), h)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := casper.Exact{}.Request(u)
	return u, r
}

// Both key types sign a request the pairing completes: the key's account
// hash is from and the signature verifies over the digest.
func TestCasperSignsBothKeyTypes(t *testing.T) {
	ed, err := signer.CasperFromSeed(signer.CasperDevSeed, "casper:casper-test", casperChain("casper-test"))
	if err != nil {
		t.Fatal(err)
	}
	// The keystore serves Casper's secp256k1 accounts.
	file, err := signer.EncryptKeystore(ethcrypto.ToECDSAUnsafe(unhexT(t, strings.Repeat("0a", 32))), "p", 1<<4)
	if err != nil {
		t.Fatal(err)
	}
	kl, err := signer.FromKeystore(file, "p", "casper:casper-test")
	if err != nil {
		t.Fatal(err)
	}
	secp, err := signer.CasperFromLocal(kl, "casper:casper-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*signer.Casper{ed, secp} {
		from := strings.TrimPrefix(s.Account(), "casper:casper-test:")
		u, req := casperBuild(t, from)
		answer, err := s.Sign(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		c, err := casper.Exact{}.Complete(u, answer, rails.Chosen{Ref: "ref"})
		if err != nil {
			t.Fatalf("%s: %v", s.PublicKey(), err)
		}
		if h, err := (casper.Exact{}).Bound(c.Signed); err != nil || h != atr.Sum([]byte("abc")).String() {
			t.Fatalf("bound %s, %v", h, err)
		}
		// A signature of another digest is refused before the payment leaves.
		a, _ := jsonv.AsObject(answer)
		other := s.SignDigest(make([]byte, 32))
		pk, _ := a.Get("publicKey")
		if _, err := (casper.Exact{}).Complete(u, jsonv.Obj("publicKey", pk, "signature", other), rails.Chosen{}); !refused(err, casper.CodeSignatureInvalid) {
			t.Fatalf("another digest's signature: %v", err)
		}
		// Another key's answer is not the payer's.
		_, req2 := casperBuild(t, "00"+strings.Repeat("ab", 32))
		if _, err := s.Sign(context.Background(), req2); err == nil {
			t.Fatal("signed for another account")
		}
	}
	// The secp256k1 signature is Casper's: ECDSA over SHA-256 of the
	// digest, which go-ethereum's independent verifier accepts.
	_, req := casperBuild(t, secp.PublicKey().AccountAddress())
	a, _ := casper.RequestAuthorization(req)
	d := a.Digest()
	sig, _ := hex.DecodeString(secp.SignDigest(d[:]))
	h := sha256.Sum256(d[:])
	if !ethcrypto.VerifySignature(secp.PublicKey().Data, h[:], sig[1:]) {
		t.Fatal("go-ethereum does not verify the secp256k1 signature")
	}
	// A node on another chain stops the signature.
	wrong, _ := signer.CasperFromSeed(signer.CasperDevSeed, "casper:casper-test", casperChain("casper"))
	_, req = casperBuild(t, wrong.PublicKey().AccountAddress())
	if _, err := wrong.Sign(context.Background(), req); err == nil {
		t.Fatal("signed for a node on another chain")
	}
}

func refused(err error, code string) bool {
	r, ok := err.(*rails.Refusal)
	return ok && r.Code == code
}

func unhexT(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
