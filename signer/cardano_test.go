package signer_test

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/cardano"
	"github.com/termsgate/termsgate/rails/cardano/cardanorpc"
	"github.com/termsgate/termsgate/signer"
)

// The Cardano wallet builds, from a loopback node's tip, parameters and
// outputs, a transfer that carries the request's auxiliary data under key
// 7, pays the payee, returns change, is witnessed by its key and passes the
// node's ledger checks; it refuses what it must not sign before reading
// the node.
func TestCardanoWallet(t *testing.T) {
	node := cardanorpc.NewNode(cardano.Params{MinFeeA: 44, MinFeeB: 155381, CoinsPerUTxOByte: 4310}, cardano.Tip{BlockHeight: 10, Slot: 1000})
	srv, err := loopback.Start(node, "node.cardano.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	rpc := &cardanorpc.Client{URL: "https://node.cardano.example", Net: "cardano:preprod", HTTP: srv.Client()}
	w, err := signer.CardanoFromSeed(signer.CardanoDevSeed, "cardano:preprod", rpc)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(w.Account(), "cardano:preprod:addr%5Ftest1") {
		t.Fatalf("account %s", w.Account())
	}
	node.Fund(w.Address(), cardano.Input{TxID: [32]byte{7}, Index: 3}, 4_000_000)
	h := atr.Sum([]byte("abc"))
	payTo := "addr_test1vqxk54m7j3q6mrkevcunryrwf4p7e68c93cjk8gzxkhlkpsffv7s0"
	req := func(mod func(*jsonv.Object)) *jsonv.Object {
		r := jsonv.Obj("kind", cardano.KindTransaction, "network", "cardano:preprod", "payer", w.Address().String(), "payTo", payTo,
			"asset", cardano.Lovelace, "amount", "2000000", "auxiliaryData", "0x"+hex.EncodeToString(cardano.AuxiliaryData(h)), "validitySeconds", 60)
		if mod != nil {
			mod(r)
		}
		return r
	}
	ctx := context.Background()
	for name, mod := range map[string]func(*jsonv.Object){
		"another payer":   func(r *jsonv.Object) { r.Set("payer", payTo) },
		"another network": func(r *jsonv.Object) { r.Set("network", "cardano:preview") },
		"a native asset":  func(r *jsonv.Object) { r.Set("asset", strings.Repeat("ab", 28)) },
		"other aux data":  func(r *jsonv.Object) { r.Set("auxiliaryData", "0xa0") },
		"another kind":    func(r *jsonv.Object) { r.Set("kind", "sui-transaction") },
	} {
		if _, err := w.Sign(ctx, req(mod)); err == nil {
			t.Fatalf("%s: signed", name)
		}
	}
	if n := node.Calls.Load(); n != 0 {
		t.Fatalf("%d node calls before a request it signs", n)
	}
	if _, err := w.Sign(ctx, req(func(r *jsonv.Object) { r.Set("amount", "3900000") })); err == nil || !strings.Contains(err.Error(), "do not cover") {
		t.Fatalf("more than it holds: %v", err)
	}
	a, err := w.Sign(ctx, req(nil))
	if err != nil {
		t.Fatal(err)
	}
	o, _ := jsonv.AsObject(a)
	text, _ := o.GetString("transaction")
	nonce, _ := o.GetString("nonce")
	tx, err := cardano.DecodeTransaction(text)
	if err != nil || nonce != "07"+strings.Repeat("00", 31)+"#3" {
		t.Fatalf("decode %v, nonce %s", err, nonce)
	}
	if got, err := tx.CarriedH(); err != nil || got != h || tx.TTL != 1060 || !cardano.WitnessedBy(tx, w.Address().PaymentKeyHash()) {
		t.Fatalf("H %v %v, TTL %d", got, err, tx.TTL)
	}
	if _, err := rpc.Submit(ctx, tx.Raw); err != nil {
		t.Fatalf("the node refused it: %v", err)
	}
}
