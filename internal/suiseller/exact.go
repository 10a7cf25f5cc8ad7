// Package suiseller is the loopback seller paid on Sui and its demo row.
// It checks a payment as a facilitator and the network would before
// executing it: the transaction decodes canonically, carries the terms'
// hash as its one unused Pure input, is bounded by an epoch not yet past,
// is signed by its sender's Ed25519 key over the intent message, and moves
// the asked amount of SUI to the seller; it then executes it on the
// loopback node and reads its status back by digest.
package suiseller

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/exactseller"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/sui"
	"github.com/termsgate/termsgate/rails/sui/suirpc"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: sui.ExactID, Aliases: []string{"sui"},
		About: "0.00001 SUI on Sui testnet: H as the one unused Pure input of the payer's transaction; gas, epoch and coins from a loopback full node", Run: demoExact})
}

// Exact sells one resource under x402/exact/sui.
type Exact struct {
	exactseller.Seller
	Node   *suirpc.Node
	RPC    *suirpc.Client
	payTo  string
	amount uint64
}

func newExact(node *suirpc.Node, rpc *suirpc.Client, payTo string, amount uint64) *Exact {
	s := &Exact{Node: node, RPC: rpc, payTo: payTo, amount: amount}
	s.Body = []byte(`{"report":"SUI/USD 3.10","as_of":"2026-12-01"}`)
	s.Option, s.Bound, s.Verify = s.option, sui.Exact{}.Bound, s.verify
	return s
}

func (s *Exact) option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", s.RPC.Net, "amount", fmt.Sprint(s.amount), "asset", sui.SUI, "payTo", s.payTo,
		"maxTimeoutSeconds", 60)
}

// verify checks the transaction as the network would, executes it on the
// loopback node and returns its digest once its status reads settled.
func (s *Exact) verify(payment *jsonv.Object) (string, error) {
	ref, err := sui.PaymentReference(payment)
	if err != nil {
		return "", err
	}
	ctx := context.Background()
	epoch, err := s.RPC.Epoch(ctx)
	if err != nil || ref.UntilEpoch < epoch {
		return "", fmt.Errorf("the transaction's epoch bound %d has passed (epoch %d, %v)", ref.UntilEpoch, epoch, err)
	}
	text, _ := jsonv.AsString(demo.Path(payment, "payload", "transaction"))
	sig, _ := jsonv.AsString(demo.Path(payment, "payload", "signature"))
	tx, raw, err := sui.DecodeTransaction(text)
	if err != nil {
		return "", err
	}
	if !sui.VerifySignature(sig, raw, tx.Sender) {
		return "", errors.New("the signature is not the sender's over the transaction")
	}
	if !sui.Pays(tx, s.option()) || tx.GasOwner != tx.Sender || len(tx.GasPayment) == 0 {
		return "", errors.New("the transaction does not move the asked SUI to this seller from the sender's own gas")
	}
	rawSig, _ := base64.StdEncoding.DecodeString(sig)
	digest := s.Node.Execute(raw, rawSig, true, 7)
	if st := sui.PaymentStatus(ctx, ref, s.Hash(), s.RPC); st.State != "settled" {
		return "", fmt.Errorf("executed %s but its status reads %s %s", digest, st.State, st.Why)
	}
	return digest, nil
}

// demoExact pays the seller from the published Sui development key on
// testnet's id: gas price, epoch and a gas coin from the loopback node, a
// transfer carrying the terms' hash as an unused input, the seller's
// checks and execution, then a lying link declined unsigned.
func demoExact(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	const network = "sui:testnet"
	node := &suirpc.Node{GasPrice: 1000, Epoch: 1233}
	nodeSrv, err := loopback.Start(node, "fullnode.sui.example")
	if err != nil {
		return fail("cannot start the local full node:", err)
	}
	defer nodeSrv.Close()
	rpc := &suirpc.Client{URL: "https://fullnode.sui.example", Net: network, HTTP: nodeSrv.Client()}
	payer, err := signer.SuiFromSeed(signer.SuiDevSeed, network, rpc)
	if err != nil {
		return fail(err)
	}
	node.AddCoin(payer.Address(), sui.SUI, sui.Coin{Ref: sui.ObjectRef{ID: sui.Address{0x5c}, Version: 42, Digest: [32]byte{0xd1}}, Balance: 1_000_000_000})
	seller := newExact(node, rpc, "0x209693bc6afc0c5328ba36faf03c514ef312287c209693bc6afc0c5328ba36fa", 10_000)
	// A Sui signature stays good until the epoch after the current one has
	// passed: up to two epochs, which the policy must allow.
	policy, err := pay.NewPolicy(pay.PolicyConfig{MaxPayable: 2 * sui.EpochSeconds * time.Second, Limits: []pay.Limit{{
		Network: network, Asset: sui.SUI, MaxAmount: big.NewInt(20_000), Budget: big.NewInt(1_000_000), // 0.00002 SUI a payment, 0.001 in all
	}}})
	if err != nil {
		return fail(err)
	}
	d := &exactseller.Demo{Seller: &seller.Seller, Wallet: demo.Count(payer), Policy: policy,
		Pairing: sui.ExactID, Price: "0.00001 SUI", Payer: "the published Sui development key; never hold value with it",
		Amount: demo.Amount(fmt.Sprint(seller.amount), 9, "SUI", network),
		BeforeSign: func(sm pay.Summary) {
			say("   the policy allows it: %s MIST of %s on %s from %s to %s, until %s", sm.Amount, sm.Asset, sm.Network, sm.Payer, sm.Payee,
				sm.PayableUntil.UTC().Format(time.RFC3339))
			say("   the wallet reads the gas price %d, epoch %d and its gas coin from the full node (JSON-RPC)", node.GasPrice, node.Epoch)
		},
		AfterSign: func(r *pay.Result) {
			ref, _ := sui.PaymentReference(r.Signed)
			say("   signed transaction %s, valid until epoch %d, H as its one unused Pure input", ref.Digest, ref.UntilEpoch)
		},
		Checked: func(paid string, status int, body []byte) {
			say("   the seller decoded the transaction canonically, verified the sender's signature over its intent message,")
			say("   checked the epoch bound and the transfer, executed %s and read it settled; it answered %d: %s", paid, status, body)
		},
	}
	return d.Run(ctx, s)
}
