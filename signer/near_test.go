package signer_test

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/signer"
)

// The NEAR key is the vectors' implicit account, and signs only a request
// whose hash is its delegate action's, for its own account and key.
func TestNearKey(t *testing.T) {
	s, err := signer.NearFromSeed(signer.NearDevSeed, "near:testnet", "")
	if err != nil || s.Account() != "near:testnet:8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c" ||
		s.PublicKey() != "ed25519:AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9" {
		t.Fatalf("%v %v", s, err)
	}
	for name, req := range map[string]*jsonv.Object{
		"another kind": jsonv.Obj("kind", "eip712"),
		"no action":    jsonv.Obj("kind", "near-delegate", "network", "near:testnet", "hash", "0x"+string(make([]byte, 0))),
	} {
		if _, err := s.Sign(context.Background(), req); err == nil {
			t.Fatalf("%s: signed", name)
		}
	}
	if _, err := signer.NearFromSeed(signer.NearDevSeed, "near:betanet", ""); err == nil {
		t.Fatal("betanet")
	}
	if _, err := signer.NearFromSeed(signer.NearDevSeed, "near:testnet", "Bad.Account"); err == nil {
		t.Fatal("an account id with capitals")
	}
}
