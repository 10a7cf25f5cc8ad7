// Package polkadotseller is the loopback seller paid on Polkadot Asset Hub
// and its demo row. It checks a payment as the profile's facilitator
// would before submitting it: the extrinsic is a signed v4 one that ends
// with payload.call, the call is exactly the profile's batch of the asked
// transfer to the seller and the terms' hash as the remark, the era is
// mortal; it then submits it to the loopback Sidecar, whose chain checks
// it as the runtime does (signature over the signing payload, era, nonce)
// and lands it, and reads it settled by its timepoint.
package polkadotseller

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
	"github.com/termsgate/termsgate/rails/polkadot"
	"github.com/termsgate/termsgate/rails/polkadot/polkadotrpc"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: polkadot.ExactID, Aliases: []string{"polkadot"},
		About: "0.01 USDC on Polkadot Asset Hub: a transfer batched with a remark lcp:sha256:H in one signed extrinsic; nonce, runtime versions and the era's block from a loopback Sidecar", Run: demoExact})
}

// Exact sells one resource under x402/exact/polkadot/lcp-assets-remark.
type Exact struct {
	exactseller.Seller
	Node   *polkadotrpc.Node
	RPC    *polkadotrpc.Client
	asset  uint32
	payTo  string
	amount int64
}

func newExact(node *polkadotrpc.Node, rpc *polkadotrpc.Client, asset uint32, payTo string, amount int64) *Exact {
	s := &Exact{Node: node, RPC: rpc, asset: asset, payTo: payTo, amount: amount}
	s.Body = []byte(`{"report":"DOT/USD 4.20","as_of":"2026-12-01"}`)
	s.Option, s.Bound, s.Verify = s.option, polkadot.Exact{}.Bound, s.verify
	return s
}

func (s *Exact) option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", s.RPC.Net, "amount", fmt.Sprint(s.amount), "asset", fmt.Sprint(s.asset), "payTo", s.payTo,
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("assetTransferMethod", polkadot.TransferMethod))
}

// verify checks the payment as the profile's facilitator would, submits
// it to the loopback chain and returns its timepoint once its status reads
// settled and finalized.
func (s *Exact) verify(payment *jsonv.Object) (string, error) {
	c, err := polkadot.Carry(payment)
	if err != nil {
		return "", err
	}
	if !polkadot.Pays(c.Call, s.option()) {
		return "", errors.New("the call does not move the asked amount of the asset to this seller")
	}
	if x, ok := polkadot.ExtraOf(c.Extrinsic, c.Signed, len(c.CallBytes)); !ok || x.Era.Immortal {
		return "", errors.New("the extrinsic is not mortal, or has extensions this seller does not read")
	}
	ctx := context.Background()
	hash, err := s.RPC.Submit(ctx, c.Extrinsic)
	if err != nil {
		return "", fmt.Errorf("the chain refused the extrinsic: %w", err)
	}
	ref, _ := polkadot.PaymentReference(payment)
	tp := s.Node.Landed(ref.ExtrinsicHash)
	if st := polkadot.PaymentStatus(ctx, ref, s.Hash(), tp, s.RPC); st.State != "settled" || st.Finality != "finalized" {
		return "", fmt.Errorf("submitted %s but its status reads %s %s", hash, st.State, st.Why)
	}
	return tp, nil
}

// demoExact pays the seller from the published Polkadot development key on
// Polkadot Asset Hub: nonce, runtime versions and the era's block from the
// loopback Sidecar, an extrinsic batching the transfer with the terms'
// hash as a remark, the seller's checks and submission, then a lying link
// declined unsigned.
func demoExact(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	const network = "polkadot:68d56f15f85d3136970ec16946040bc1"
	node := polkadotrpc.NewNode(network, 9_000_000)
	nodeSrv, err := loopback.Start(node, "sidecar.polkadot.example")
	if err != nil {
		return fail("cannot start the local Sidecar:", err)
	}
	defer nodeSrv.Close()
	// The stand-in answers the node's JSON-RPC too: the wallet's nonce is
	// system_accountNextIndex, which counts what waits in the pool.
	rpc := &polkadotrpc.Client{URL: "https://sidecar.polkadot.example", RPC: "https://sidecar.polkadot.example", Net: network, HTTP: nodeSrv.Client()}
	payer, err := signer.PolkadotFromSeed(signer.PolkadotDevSeed, network, rpc)
	if err != nil {
		return fail(err)
	}
	seller := newExact(node, rpc, 1337, "15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5", 10_000)
	node.Fund(seller.asset, payer.AccountID(), big.NewInt(1_000_000))
	node.SetNonce(payer.AccountID(), 7)
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{
		Network: network, Asset: "1337", MaxAmount: big.NewInt(20_000), Budget: big.NewInt(1_000_000), // 0.02 USDC a payment, 1 in all
	}}})
	if err != nil {
		return fail(err)
	}
	d := &exactseller.Demo{Seller: &seller.Seller, Wallet: demo.Count(payer), Policy: policy,
		Pairing: polkadot.ExactID, Price: "0.01 USDC", Payer: "the published Polkadot development key, Ed25519; never hold value with it",
		Amount: demo.Amount(fmt.Sprint(seller.amount), 6, "USDC", network),
		BeforeSign: func(sm pay.Summary) {
			say("   the policy allows it: %s units of asset %s on %s from %s to %s, until %s", sm.Amount, sm.Asset, sm.Network, sm.Payer, sm.Payee,
				sm.PayableUntil.UTC().Format(time.RFC3339))
			say("   the wallet reads its nonce, the runtime versions and the finalized block %d from Sidecar", node.Head())
		},
		AfterSign: func(r *pay.Result) {
			ref, _ := polkadot.PaymentReference(r.Signed)
			say("   signed extrinsic %s: utility.batch_all of the transfer and system.remark_with_event(lcp:sha256:H)", ref.ExtrinsicHash)
		},
		Checked: func(paid string, status int, body []byte) {
			say("   the seller checked the call, the remark and the era; the chain checked the signature and nonce and landed it")
			say("   at %s, read settled (Assets.Transferred and System.Remarked); it answered %d: %s", paid, status, body)
		},
	}
	return d.Run(ctx, s)
}
