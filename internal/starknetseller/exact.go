// Package starknetseller is the loopback seller paid on Starknet and its
// demo row. It checks a payment as a facilitator and the account contract
// would before submitting it as the fee payer: the payment is bound to the
// terms served (the signed nonce is the terms' hash's low 250 bits), the
// typed data is SNIP-9 v2's OutsideExecution of the option's transfer with
// this seller's fee payer as Caller, and the loopback node's account
// contract verifies the Stark-curve signature over its SNIP-12 hash when
// the seller submits it; the seller then reads the transaction settled by
// its receipt and trace.
package starknetseller

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
	"github.com/termsgate/termsgate/rails/starknet"
	"github.com/termsgate/termsgate/rails/starknet/starknetrpc"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: starknet.ExactID, Aliases: []string{"starknet"},
		About: "0.00001 STRK on Starknet Sepolia: H's low 250 bits as the SNIP-9 nonce of the payer's signed outside execution; the seller submits it as fee payer to a loopback node", Run: demoExact})
}

// The demo's network, asset (STRK), fee payer and payee.
const (
	Network  = "starknet:SN_SEPOLIA"
	STRK     = "0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d"
	FeePayer = "0x5f2e02acd59f37f1e19da7ea1db6bf31d49e6e5ba66a7f1c2f0e2ba1be36f81"
	PayTo    = "0x2dd1b492765c064eac4039e3841aa5f382773b598097a40073bd8b48170ab57"
)

// Exact sells one resource under x402/exact/starknet.
type Exact struct {
	exactseller.Seller
	Node   *starknetrpc.Node
	RPC    *starknetrpc.Client
	Amount string
	Now    func() time.Time
}

func newExact(node *starknetrpc.Node, rpc *starknetrpc.Client, amount string) *Exact {
	s := &Exact{Node: node, RPC: rpc, Amount: amount, Now: time.Now}
	s.Body = []byte(`{"quote":"STRK/USD 0.14","as_of":"2026-12-01"}`)
	s.Option, s.Bound, s.Verify = s.option, starknet.Exact{}.Bound, s.verify
	return s
}

func (s *Exact) option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", Network, "amount", s.Amount, "asset", STRK, "payTo", PayTo,
		"maxTimeoutSeconds", 300, "extra", jsonv.Obj("feePayer", FeePayer))
}

// verify checks the outside execution pays the option through this
// seller's fee payer, submits it to the loopback node (whose account
// contract checks the signature) and returns the transaction once read
// settled.
func (s *Exact) verify(payment *jsonv.Object) (string, error) {
	ref, err := starknet.PaymentReference(payment)
	if err != nil {
		return "", err
	}
	signed, err := starknet.ReadSigned(payment)
	if err != nil {
		return "", err
	}
	oe, tr, err := starknet.ReadTypedData(signed.TypedData, Network)
	if err != nil {
		return "", err
	}
	feePayer, _ := starknet.ParseFelt(FeePayer)
	want, _ := new(big.Int).SetString(s.Amount, 10)
	if oe.Caller != feePayer || tr.Asset.String() != STRK || tr.PayTo.String() != PayTo || tr.Amount.Cmp(want) != 0 {
		return "", errors.New("the outside execution does not pay the option through this seller's fee payer")
	}
	tx, err := s.Node.ExecuteFromOutside(feePayer, signed.From, oe, signed.Signature, s.Now().Unix())
	if err != nil {
		return "", fmt.Errorf("the node refused the outside execution: %w", err)
	}
	ref.Transaction = &tx
	if st := starknet.PaymentStatus(context.Background(), ref, s.RPC); st.State != "settled" {
		return "", fmt.Errorf("submitted %s but its status reads %s %s", tx, st.State, st.Why)
	}
	return tx.String(), nil
}

// demoExact pays the seller from the published devnet key's account on
// Sepolia's chain id: the wallet reads the account's public key and the
// nonce's freshness from the loopback node, signs the outside execution,
// the seller submits it as fee payer and reads it settled; then a lying
// link is declined unsigned.
func demoExact(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	node := &starknetrpc.Node{Net: Network, Block: 900}
	nodeSrv, err := loopback.Start(node, "starknet-node.example")
	if err != nil {
		return fail("cannot start the local node:", err)
	}
	defer nodeSrv.Close()
	rpc := &starknetrpc.Client{URL: "https://starknet-node.example", Net: Network}
	rpc.HTTP.HTTP = nodeSrv.Client()
	payer, err := signer.NewStarknet(signer.StarknetDevKey, signer.StarknetDevAccount, Network, rpc)
	if err != nil {
		return fail(err)
	}
	account, _ := starknet.ParseFelt(signer.StarknetDevAccount)
	strk, _ := starknet.ParseFelt(STRK)
	node.Deploy(account, payer.PublicKey())
	node.Mint(strk, account, big.NewInt(1_000_000_000_000_000))
	seller := newExact(node, rpc, "10000000000000")
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{
		Network: Network, Asset: STRK, MaxAmount: big.NewInt(20_000_000_000_000), Budget: big.NewInt(1_000_000_000_000_000), // 0.00002 STRK a payment, 0.001 in all
	}}})
	if err != nil {
		return fail(err)
	}
	d := &exactseller.Demo{Seller: &seller.Seller, Wallet: demo.Count(payer), Policy: policy,
		Pairing: starknet.ExactID, Price: "0.00001 STRK", Payer: "the published starknet-devnet key; never hold value with it",
		Amount: demo.Amount(seller.Amount, 18, "STRK", Network),
		BeforeSign: func(sm pay.Summary) {
			say("   the policy allows it: %s of %s on %s from %s to %s, until %s", sm.Amount, sm.Asset, sm.Network, sm.Payer, sm.Payee,
				sm.PayableUntil.UTC().Format(time.RFC3339))
			say("   the wallet reads its account's public key and the nonce's freshness from the node (starknet_call)")
		},
		AfterSign: func(r *pay.Result) {
			ref, _ := starknet.PaymentReference(r.Signed)
			say("   signed the SNIP-12 outside execution, nonce %s (H's low 250 bits), executable until %d", ref.Nonce, ref.SettleBy)
		},
		Checked: func(paid string, status int, body []byte) {
			say("   the seller checked the binding and the transfer, submitted execute_from_outside_v2 as fee payer (the account")
			say("   contract verified the Stark signature), read %s settled; it answered %d: %s", paid, status, body)
		},
	}
	return d.Run(ctx, s)
}
