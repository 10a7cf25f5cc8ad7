// Package cardanoseller is the loopback seller paid on Cardano and its demo
// row. It checks a payment as a facilitator and the ledger would before
// submitting it: the transaction decodes strictly, its body commits to
// auxiliary data whose CIP-20 message carries the terms' hash, its TTL has
// not passed, it pays the asked lovelace to the seller, and it is
// witnessed by its inputs' keys over its id; it then submits it to the
// loopback node (whose ledger checks inputs, witnesses, balance and fee)
// and reads its status back by transaction id.
package cardanoseller

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/exactseller"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/cardano"
	"github.com/termsgate/termsgate/rails/cardano/cardanorpc"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: cardano.ExactID, Aliases: []string{"cardano"},
		About: "2 ADA on Cardano preprod: H as a CIP-20 message (label 674) under the body's auxiliary data hash; outputs, fees and tip from a loopback Blockfrost-compatible node", Run: demoExact})
}

// Exact sells one resource under x402/exact/cardano.
type Exact struct {
	exactseller.Seller
	Node   *cardanorpc.Node
	RPC    *cardanorpc.Client
	payTo  string
	amount uint64
}

func newExact(node *cardanorpc.Node, rpc *cardanorpc.Client, payTo string, amount uint64) *Exact {
	s := &Exact{Node: node, RPC: rpc, payTo: payTo, amount: amount}
	s.Body = []byte(`{"report":"ADA/USD 0.41","as_of":"2026-12-01"}`)
	s.Option, s.Bound, s.Verify = s.option, cardano.Exact{}.Bound, s.verify
	return s
}

func (s *Exact) option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", s.RPC.Net, "amount", fmt.Sprint(s.amount), "asset", cardano.Lovelace, "payTo", s.payTo,
		"maxTimeoutSeconds", 60)
}

// verify checks the transaction as the ledger would, submits it to the
// loopback node and returns its id once it reads settled with H.
func (s *Exact) verify(payment *jsonv.Object) (string, error) {
	ref, err := cardano.PaymentReference(payment)
	if err != nil {
		return "", err
	}
	ctx := context.Background()
	tip, err := s.RPC.Tip(ctx)
	if err != nil || tip.Slot >= ref.TTLSlot {
		return "", fmt.Errorf("the transaction's TTL %d has passed (slot %d, %v)", ref.TTLSlot, tip.Slot, err)
	}
	text, _ := jsonv.AsString(demo.Path(payment, "payload", "transaction"))
	tx, err := cardano.DecodeTransaction(text)
	if err != nil {
		return "", err
	}
	if !cardano.Pays(tx, s.option()) {
		return "", errors.New("the transaction does not pay the asked lovelace to this seller")
	}
	ws := tx.VKeyWitnesses()
	if len(ws) == 0 || !cardano.WitnessedBy(tx, cardano.KeyHash(ws[0].VKey)) {
		return "", errors.New("the transaction has no witness over its id")
	}
	id, err := s.RPC.Submit(ctx, tx.Raw)
	if err != nil {
		return "", fmt.Errorf("the node refused the transaction: %v", err)
	}
	if st := cardano.PaymentStatus(ctx, ref, s.RPC); st.State != "settled" {
		return "", fmt.Errorf("submitted %s but its status reads %s %s", id, st.State, st.Why)
	}
	if h, err := cardano.Recover(ctx, ref.Network, ref.TxID, s.RPC); err != nil || h != s.Hash() {
		return "", fmt.Errorf("the included transaction does not read back the terms' hash: %v", err)
	}
	return ref.TxID, nil
}

// demoExact pays the seller from the published Cardano development key on
// preprod: the tip, the protocol parameters and an unspent output from the
// loopback node, a transfer carrying the terms' hash in its metadata, the
// seller's checks, submission and status, then a lying link declined unsigned.
func demoExact(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	const network = "cardano:preprod"
	node := cardanorpc.NewNode(cardano.Params{MinFeeA: 44, MinFeeB: 155381, CoinsPerUTxOByte: 4310}, cardano.Tip{BlockHeight: 5216538, Slot: 134617495})
	nodeSrv, err := loopback.Start(node, "cardano-preprod.blockfrost.example")
	if err != nil {
		return fail("cannot start the local node:", err)
	}
	defer nodeSrv.Close()
	rpc := &cardanorpc.Client{URL: "https://cardano-preprod.blockfrost.example/api/v0", Net: network, HTTP: nodeSrv.Client()}
	payer, err := signer.CardanoFromSeed(signer.CardanoDevSeed, network, rpc)
	if err != nil {
		return fail(err)
	}
	node.Fund(payer.Address(), cardano.Input{TxID: [32]byte{0x5c, 0xad}, Index: 0}, 10_000_000)
	seller := newExact(node, rpc, "addr_test1vqxk54m7j3q6mrkevcunryrwf4p7e68c93cjk8gzxkhlkpsffv7s0", 2_000_000)
	policy, err := pay.NewPolicy(pay.PolicyConfig{MaxPayable: 10 * time.Minute, Limits: []pay.Limit{{
		Network: network, Asset: cardano.Lovelace, MaxAmount: big.NewInt(3_000_000), Budget: big.NewInt(20_000_000), // 3 ADA a payment, 20 in all
	}}})
	if err != nil {
		return fail(err)
	}
	d := &exactseller.Demo{Seller: &seller.Seller, Wallet: demo.Count(payer), Policy: policy,
		Pairing: cardano.ExactID, Price: "2 ADA", Payer: "the published Cardano development key; never hold value with it",
		Amount: demo.Amount(fmt.Sprint(seller.amount), 6, "ADA", network),
		BeforeSign: func(sm pay.Summary) {
			say("   the policy allows it: %s lovelace on %s from %s to %s, until %s", sm.Amount, sm.Network, sm.Payer, sm.Payee,
				sm.PayableUntil.UTC().Format(time.RFC3339))
			say("   the wallet reads the tip, the protocol parameters and its unspent outputs from the node (Blockfrost API)")
		},
		AfterSign: func(r *pay.Result) {
			ref, _ := cardano.PaymentReference(r.Signed)
			say("   signed transaction %s, TTL slot %d, H in its CIP-20 message under the auxiliary data hash", ref.TxID, ref.TTLSlot)
		},
		Checked: func(paid string, status int, body []byte) {
			say("   the seller decoded the transaction strictly, checked the message under key 7, the TTL, the payment and the witness,")
			say("   submitted %s (the node's ledger checked inputs, witnesses, balance and fee), read it settled and read H back;", paid)
			say("   it answered %d: %s", status, body)
		},
	}
	return d.Run(ctx, s)
}
