package signer_test

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/vectors"
)

// v2Request is the stellar-auth request of x402-exact-stellar.json's V2.
func v2Request(t *testing.T) *jsonv.Object {
	f, err := vectors.Load("x402-exact-stellar.json")
	if err != nil {
		t.Fatal(err)
	}
	v2, _ := f.GetObject("V2")
	sim, _ := v2.GetString("simulatedXdr")
	s, err := stellar.SigningFor(sim, stellar.Testnet, 1000, false)
	if err != nil {
		t.Fatal(err)
	}
	return jsonv.Obj("kind", stellar.KindAuth, "preimage", "0x"+hexOf(s.Preimage))
}

func hexOf(b []byte) string {
	const d = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = d[c>>4], d[c&15]
	}
	return string(out)
}

func TestStellarSignsOnlyItsOwnTransfer(t *testing.T) {
	req := v2Request(t)
	payer, err := signer.StellarFromSecret(signer.StellarDevSeed, stellar.Testnet)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := payer.Sign(context.Background(), req)
	if err != nil || !strings.HasPrefix(sig.(string), "0x00d382ce85917661") {
		t.Fatalf("signature %v (%v)", sig, err)
	}
	other, _ := signer.StellarFromSecret(strings.Repeat("07", 32), stellar.Testnet)
	if _, err := other.Sign(context.Background(), req); err == nil || !strings.Contains(err.Error(), "not of this key") {
		t.Fatalf("another key signed: %v", err)
	}
	pubnet, _ := signer.StellarFromSecret(signer.StellarDevSeed, stellar.Pubnet)
	if _, err := pubnet.Sign(context.Background(), req); err == nil {
		t.Fatal("signed a testnet authorization on pubnet")
	}
	for _, bad := range []*jsonv.Object{
		jsonv.Obj("kind", "eip712"),
		jsonv.Obj("kind", stellar.KindAuth, "preimage", "0x0000000900"),
		jsonv.Obj("kind", stellar.KindAuth, "preimage", "0x"+strings.Repeat("00", stellar.MaxPreimageBytes+1)),
	} {
		if _, err := payer.Sign(context.Background(), bad); err == nil {
			t.Fatalf("signed %s", jsonv.String(bad)[:40])
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := payer.Sign(ctx, req); err == nil {
		t.Fatal("signed after cancel")
	}
}
