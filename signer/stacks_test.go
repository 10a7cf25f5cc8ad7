package signer

import (
	"context"
	"encoding/hex"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/stacks"
)

// A Stacks signer signs only a guarded SIP-010 transfer from its own key on
// its own network, with the nonce and fee the request names; it refuses a
// request that leaves them to a node it does not have, and other kinds.
func TestStacksSignsOnlyItsTransfer(t *testing.T) {
	s, err := StacksFromHex(StacksDevKey, "stacks:2147483648", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Address() != "ST1THWXQ8368SDN2MJGE4BMDKMCHZ2GSVTSQDA7QF" {
		t.Fatalf("address %s", s.Address())
	}
	contract, _ := stacks.Testnet.ParseContract("ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM.usdcx")
	to, _ := stacks.Testnet.ParseStandard("ST3FBR2AGK5H9QBDH3EEN6DF8EK8JY7RX8NQXMNRQ")
	from, _ := stacks.Testnet.ParseStandard(s.Address())
	spec := stacks.TransferSpec{Chain: stacks.Testnet, Origin: from.Hash, Contract: contract, AssetName: "usdcx-token",
		Amount: 5, Recipient: to, H: atr.Sum([]byte("abc")), Nonce: 3, Fee: 400}
	req := func(tx *stacks.Tx, network string, fixed bool) *jsonv.Object {
		r := jsonv.Obj("kind", stacks.KindContractCall, "network", network, "transaction", "0x"+hex.EncodeToString(tx.Encode()))
		if fixed {
			r.Set("nonce", "3")
			r.Set("fee", "400")
		}
		return r
	}
	ctx := context.Background()
	answer, err := s.Sign(ctx, req(spec.Build(), "stacks:2147483648", true))
	if err != nil {
		t.Fatal(err)
	}
	signed, _, ok := stacks.SignedOf(answer)
	if !ok || signed.Nonce != 3 || signed.Fee != 400 || !stacks.VerifySignature(signed) || !stacks.SameBut(spec.Build(), signed, true, true) {
		t.Fatalf("signed %v", answer)
	}
	other := spec
	other.Origin = to.Hash
	mainnet := spec
	mainnet.Chain = stacks.Mainnet
	for name, r := range map[string]*jsonv.Object{
		"another key's transfer":   req(other.Build(), "stacks:2147483648", true),
		"another network":          req(spec.Build(), "stacks:1", true),
		"a mainnet transfer":       req(mainnet.Build(), "stacks:1", true),
		"nonce and fee to a node":  req(spec.Build(), "stacks:2147483648", false),
		"a nonce the tx disagrees": func() *jsonv.Object { r := req(spec.Build(), "stacks:2147483648", true); r.Set("nonce", "4"); return r }(),
		"another kind":             jsonv.Obj("kind", "eip712"),
	} {
		if _, err := s.Sign(ctx, r); err == nil {
			t.Fatalf("%s: signed", name)
		}
	}
	if _, err := NewStacks(make([]byte, 32), "stacks:1", nil); err == nil {
		t.Fatal("a zero key")
	}
	if _, err := StacksFromHex(StacksDevKey, "stacks:5", nil); err == nil {
		t.Fatal("an unknown network")
	}
}
