package solana_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/signer"
)

// A paid x402/exact/solana payment inspects, and marshals, as a payment and
// as its bare wire transaction in base64 and in base58: the same transfer
// and the same H.
func TestInspectPaymentAndBareWire(t *testing.T) {
	s, _ := signer.SolanaFromSeedHex(signer.SolanaDevSeed, devnet)
	signed := pay(t, doc(t), s)
	in, err := (solana.Exact{}).Inspect(signed)
	if err != nil {
		t.Fatal(err)
	}
	whole := string(jsonv.Marshal(in.JSON())) // it once held a Go int, which does not marshal
	text, _ := jsonv.AsString(mustGet(signed, "payload", "transaction"))
	wire, _ := base64.StdEncoding.DecodeString(text)
	for _, form := range []string{text, solana.Base58(wire)} {
		bare, err := solana.InspectWire(form)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"h", "amount", "asset", "decimals", "payer", "payee", "details.digest"} {
			a, b := member(in.JSON(), k), member(bare.JSON(), k)
			if a == nil || jsonv.String(a) != jsonv.String(b) {
				t.Fatalf("%s: payment %v, bare %v", k, a, b)
			}
		}
	}
	if !strings.Contains(whole, `"decimals":6`) {
		t.Fatalf("inspect: %s", whole)
	}
	if _, err := solana.InspectWire(base64.StdEncoding.EncodeToString(wire[:len(wire)-1])); err == nil {
		t.Fatal("a truncated transaction inspected")
	}
}

// member is o's member at a dotted path.
func member(o *jsonv.Object, path string) jsonv.Value {
	var v jsonv.Value = o
	for _, k := range strings.Split(path, ".") {
		obj, _ := jsonv.AsObject(v)
		v, _ = obj.Get(k)
	}
	return v
}
