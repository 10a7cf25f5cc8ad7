package signer

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
)

// permit2Request is the request the x402/exact/eip155/permit2 pairing asks
// a signer to sign: a witness transfer under Permit2's version-less domain.
func permit2Request(t *testing.T) *jsonv.Object {
	t.Helper()
	h := atr.Sum([]byte("abc"))
	p := evm.Permit2Permit{
		ChainID:   84532,
		Permitted: []evm.Permit2Token{{Token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", Amount: "10000"}},
		Spender:   evm.ExactPermit2Proxy, Nonce: evm.NonceDecimal(h), Deadline: "1790000060",
		Witness: &evm.Permit2Witness{Type: "Witness", Fields: []string{"to", "address", "validAfter", "uint256"},
			Value: jsonv.Obj("to", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "validAfter", "0")},
	}
	td, err := p.TypedData()
	if err != nil {
		t.Fatal(err)
	}
	return jsonv.Obj("kind", "eip712", "typedData", td)
}

// The x402 Permit2 requests are signed alike by the local key and by Clef
// (go-ethereum's apitypes reading the three-field domain), to the signature
// x402-exact-eip155-permit2.json's EV1 fixes.
func TestPermit2SignedByLocalAndClef(t *testing.T) {
	const want = "0x198054b2ff7bdaab96da2d7c1f68abce92cb30dafa475392a44c942fb37f03f922f6a26ad3c3bb243aab0d38184d7eec8d63fa3f7c934f3c7c90b0ef1bb2053f1c"
	req := permit2Request(t)
	l, _ := FromHex(AnvilKey, "eip155:84532")
	got, err := l.Sign(context.Background(), req)
	if err != nil || got != want {
		t.Fatalf("local %v (%v)", got, err)
	}
	fc := newFakeClef(t)
	srv := httptest.NewServer(fc)
	defer srv.Close()
	c, err := NewClef(srv.URL, fc.address().Hex(), "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	got, err = c.Sign(context.Background(), req)
	if err != nil || got != want {
		t.Fatalf("clef %v (%v)", got, err)
	}
	fc.mu.Lock()
	asked := fc.asked
	fc.mu.Unlock()
	if asked.PrimaryType != "PermitWitnessTransferFrom" || asked.Domain.Version != "" || asked.Domain.Name != "Permit2" {
		t.Fatalf("clef was asked %+v", asked)
	}
}
