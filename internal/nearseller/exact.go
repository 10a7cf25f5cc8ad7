// Package nearseller is the loopback seller paid on NEAR and its demo row.
// It checks a payment as a facilitator and the runtime would before
// relaying it: the signed delegate action decodes canonically, its
// signature verifies under the payer's access key as the node holds it,
// its nonce is above the key's, its block height bound is not past, and
// its one ft_transfer moves the asked amount of the token to the seller
// with the terms' hash as the memo, 1 yoctoNEAR attached. It then relays it
// on the loopback node and reads the outcome back through the relayer.
package nearseller

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/exactseller"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/near"
	"github.com/termsgate/termsgate/rails/near/nearrpc"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: near.ExactID, Aliases: []string{"near"},
		About: "1 USDC on NEAR testnet: an ft_transfer whose memo is lcp:sha256:H inside a NEP-366 delegate action; key nonce and final height from a loopback RPC node", Run: demoExact})
}

// Exact sells one resource under x402/exact/near.
type Exact struct {
	exactseller.Seller
	Node         *nearrpc.Node
	RPC          *nearrpc.Client
	asset, payTo string
	amount       int64
	relayer      string
}

func newExact(node *nearrpc.Node, rpc *nearrpc.Client, asset, payTo string, amount int64, relayer string) *Exact {
	s := &Exact{Node: node, RPC: rpc, asset: asset, payTo: payTo, amount: amount, relayer: relayer}
	s.Body = []byte(`{"report":"NEAR/USD 2.40","as_of":"2026-12-01"}`)
	s.Option, s.Bound, s.Verify = s.option, near.Exact{}.Bound, s.verify
	return s
}

func (s *Exact) option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", s.RPC.Net, "amount", fmt.Sprint(s.amount), "asset", s.asset, "payTo", s.payTo,
		"maxTimeoutSeconds", 60)
}

// verify checks the signed delegate action as the runtime would, relays
// it on the loopback node and returns its hash once its outcome reads
// settled.
func (s *Exact) verify(payment *jsonv.Object) (string, error) {
	text, _ := jsonv.AsString(demo.Path(payment, "payload", "signedDelegateAction"))
	c, err := near.DecodeSDA(text)
	if err != nil {
		return "", err
	}
	d := c.Signed.Action
	keyNonce, ok := s.Node.KeyNonce(d.SenderID, d.PublicKey.String())
	if !ok || d.PublicKey.Type != near.KeyEd25519 || c.Signed.SigType != near.KeyEd25519 {
		return "", errors.New("the delegate action's key is not an Ed25519 access key of its sender")
	}
	h := d.SigningHash()
	if !ed25519.Verify(d.PublicKey.Data, h[:], c.Signed.Sig) {
		return "", errors.New("the signature does not verify under the access key")
	}
	ctx := context.Background()
	height, err := s.RPC.FinalHeight(ctx)
	if err != nil || d.Nonce <= keyNonce || d.MaxBlockHeight < height {
		return "", fmt.Errorf("nonce %d (key at %d) or height bound %d (final %d) refused: %v", d.Nonce, keyNonce, d.MaxBlockHeight, height, err)
	}
	to, _ := c.Args.GetString("receiver_id")
	amount, _ := c.Args.GetString("amount")
	a := d.Actions[0]
	if d.ReceiverID != s.asset || to != s.payTo || amount != fmt.Sprint(s.amount) || a.Deposit.Cmp(big.NewInt(1)) != 0 {
		return "", errors.New("the transfer is not the asked amount of the token to this seller with 1 yoctoNEAR")
	}
	txHash := hex.EncodeToString(h[:8])
	s.Node.Relay(txHash, s.relayer, c.Signed, false)
	ref, _ := near.PaymentReference(payment)
	ref.Transaction = txHash
	if st := near.PaymentStatus(ctx, ref, s.RPC); st.State != "settled" {
		return "", fmt.Errorf("relayed %s but its status reads %s %s", txHash, st.State, st.Why)
	}
	return txHash, nil
}

// demoExact pays the seller from the vectors' NEAR seed's implicit account
// on testnet: the key's nonce and the final height from the loopback RPC
// node, a delegate action whose ft_transfer memo carries the terms' hash,
// the seller's checks and relay, then a lying link declined unsigned.
func demoExact(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	const network = "near:testnet"
	payer, err := signer.NearFromSeed(signer.NearDevSeed, network, "")
	if err != nil {
		return fail(err)
	}
	node := &nearrpc.Node{Height: 200_000_000}
	account := payer.Account()[len(network)+1:]
	node.SetKey(account, payer.PublicKey(), 100)
	nodeSrv, err := loopback.Start(node, "rpc.near.example")
	if err != nil {
		return fail("cannot start the local RPC node:", err)
	}
	defer nodeSrv.Close()
	rpc := &nearrpc.Client{URL: "https://rpc.near.example", Net: network, HTTP: nodeSrv.Client(), Published: []string{"relayer.testnet"}}
	seller := newExact(node, rpc, "usdc.testnet", "merchant.testnet", 1_000_000, "relayer.testnet")
	inputs := &nearrpc.Inputs{Client: rpc, Account: account, PublicKey: payer.PublicKey()}
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{
		Network: network, Asset: seller.asset, MaxAmount: big.NewInt(2_000_000), Budget: big.NewInt(10_000_000),
	}}})
	if err != nil {
		return fail(err)
	}
	d := &exactseller.Demo{Seller: &seller.Seller, Wallet: demo.Count(payer), Policy: policy, Inputs: inputs.For, InputsErr: inputs.Err,
		Pairing: near.ExactID, Price: "1 USDC", Payer: "the vectors' published seed; never hold value with it",
		Amount: demo.Amount(fmt.Sprint(seller.amount), 6, "USDC", network),
		BeforeSign: func(sm pay.Summary) {
			say("   the key's nonce and the final height from the RPC node (view_access_key, block): 100, %d", node.Height)
			say("   the policy allows it: %s units of %s on %s from %s to %s, until %s", sm.Amount, sm.Asset, sm.Network, sm.Payer, sm.Payee,
				sm.PayableUntil.UTC().Format(time.RFC3339))
		},
		AfterSign: func(r *pay.Result) {
			ref, _ := near.PaymentReference(r.Signed)
			say("   signed the delegate action (nonce %d, valid to height %d) whose ft_transfer memo is lcp:sha256:H", ref.Nonce, ref.MaxBlockHeight)
		},
		Checked: func(paid string, status int, body []byte) {
			say("   the seller decoded the delegate action canonically, verified it under the access key, checked nonce, height,")
			say("   transfer and memo, relayed it as %s and read it settled; it answered %d: %s", paid, status, body)
		},
	}
	return d.Run(ctx, s)
}
