package signer_test

import (
	"context"
	"errors"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/sui"
	"github.com/termsgate/termsgate/signer"
)

type suiNode struct {
	coins []sui.Coin
	fail  bool
	calls int
}

func (*suiNode) Network() string { return "sui:testnet" }
func (n *suiNode) ReferenceGasPrice(context.Context) (uint64, error) {
	n.calls++
	if n.fail {
		return 0, errors.New("down")
	}
	return 1000, nil
}
func (n *suiNode) Epoch(context.Context) (uint64, error) { n.calls++; return 10, nil }
func (n *suiNode) Coins(context.Context, sui.Address, string, int) ([]sui.Coin, error) {
	n.calls++
	return n.coins, nil
}

func suiRequest(sender string, amount string) *jsonv.Object {
	return jsonv.Obj("kind", sui.KindTransaction, "network", "sui:testnet", "sender", sender, "asset", sui.SUI, "amount", amount,
		"payTo", "0x209693bc6afc0c5328ba36faf03c514ef312287c209693bc6afc0c5328ba36fa",
		"pureInput", "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "expiration", "epoch-bounded")
}

// The wallet builds the asked transfer bounded by the next epoch and signs
// it; it refuses another sender, another kind, a node failure and coins
// that do not cover amount and gas, each before signing.
func TestSuiWallet(t *testing.T) {
	node := &suiNode{coins: []sui.Coin{{Ref: sui.ObjectRef{ID: sui.Address{1}, Version: 3}, Balance: 6_000_000}}}
	s, err := signer.SuiFromSeed(signer.SuiDevSeed, "sui:testnet", node)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, err := s.Sign(ctx, suiRequest(s.Address().String(), "10000"))
	if err != nil {
		t.Fatal(err)
	}
	o := a.(*jsonv.Object)
	txText, _ := o.GetString("transaction")
	sig, _ := o.GetString("signature")
	tx, raw, err := sui.DecodeTransaction(txText)
	if err != nil || !sui.VerifySignature(sig, raw, s.Address()) {
		t.Fatalf("answer does not verify: %v", err)
	}
	if e, _ := tx.UntilEpoch(); e != 11 || tx.GasBudget != signer.SuiGasBudget || len(tx.GasPayment) != 1 {
		t.Fatalf("epoch %d, budget %d", e, tx.GasBudget)
	}
	if h, err := sui.CarriedH(tx); err != nil || h.String() != "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("H %v, %v", h, err)
	}
	for name, req := range map[string]*jsonv.Object{
		"another sender": suiRequest("0x209693bc6afc0c5328ba36faf03c514ef312287c209693bc6afc0c5328ba36fa", "10000"),
		"more than held": suiRequest(s.Address().String(), "1000001"),
		"another kind":   jsonv.Obj("kind", "eip712"),
		"no epoch-bounded": func() *jsonv.Object {
			r := suiRequest(s.Address().String(), "1")
			r.Set("expiration", "none")
			return r
		}(),
	} {
		if _, err := s.Sign(ctx, req); err == nil {
			t.Fatalf("%s: signed", name)
		}
	}
	node.fail = true
	if _, err := s.Sign(ctx, suiRequest(s.Address().String(), "1")); err == nil {
		t.Fatal("signed with the node down")
	}
	if _, err := signer.SuiFromSeed(signer.SuiDevSeed, "sui:localnet", node); err == nil {
		t.Fatal("a network that is not Sui's")
	}
}
