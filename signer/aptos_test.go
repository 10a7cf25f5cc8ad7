package signer

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/aptos"
)

type aptosNode struct {
	chain uint8
	fail  bool
	calls int
}

func (aptosNode) Network() string { return "aptos:2" }
func (n *aptosNode) SequenceNumber(context.Context, aptos.Address) (uint64, error) {
	n.calls++
	if n.fail {
		return 0, errors.New("no answer")
	}
	return 4, nil
}
func (n *aptosNode) GasUnitPrice(context.Context) (uint64, error) { n.calls++; return 100, nil }
func (n *aptosNode) ChainID(context.Context) (uint8, error)       { n.calls++; return n.chain, nil }

// The wallet signs the transfer asked of its own key on its network, and
// refuses another kind, network or sender, a node of another chain and a
// failed read, each before signing.
func TestAptosSigns(t *testing.T) {
	node := &aptosNode{chain: 2}
	w, err := AptosFromSeed(AptosDevSeed, "aptos:2", node)
	if err != nil {
		t.Fatal(err)
	}
	req := func() *jsonv.Object {
		return jsonv.Obj("kind", aptos.KindTransaction, "network", "aptos:2", "sender", w.Address().String(),
			"asset", aptos.APT.String(), "amount", "100", "payTo", aptos.Address{31: 9}.String(), "expiresAt", jsonv.Number(1790000060))
	}
	a, err := w.Sign(context.Background(), req())
	if err != nil {
		t.Fatal(err)
	}
	text, _ := jsonv.AsObject(a)
	tx, _ := text.GetString("transaction")
	s, err := aptos.DecodePayload(tx)
	if err != nil || !s.Verifies() || s.Tx.SequenceNumber != 4 || s.Tx.Expiration != 1790000060 || s.Tx.ChainID != 2 {
		t.Fatalf("signed %+v, %v", s, err)
	}
	for name, edit := range map[string]func(*jsonv.Object){
		"kind":    func(o *jsonv.Object) { o.Set("kind", "sui-transaction") },
		"network": func(o *jsonv.Object) { o.Set("network", "aptos:1") },
		"sender":  func(o *jsonv.Object) { o.Set("sender", aptos.Address{1}.String()) },
		"amount":  func(o *jsonv.Object) { o.Set("amount", "01") },
	} {
		r := req()
		edit(r)
		if _, err := w.Sign(context.Background(), r); err == nil {
			t.Fatalf("%s: signed", name)
		}
	}
	node.chain = 1
	if _, err := w.Sign(context.Background(), req()); err == nil || !strings.Contains(err.Error(), "chain 1") {
		t.Fatalf("another chain: %v", err)
	}
	node.chain, node.fail = 2, true
	if _, err := w.Sign(context.Background(), req()); err == nil {
		t.Fatal("a failed read signed")
	}
	if _, err := NewAptos([32]byte{}, "aptos:0", node); err == nil {
		t.Fatal("aptos:0 accepted")
	}
}
