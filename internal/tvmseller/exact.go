// Package tvmseller is the loopback seller paid on TON and its demo row. It
// checks a payment as the facilitator and the payer's W5 wallet would
// before relaying it: the message goes to the payer's wallet, its request's
// Ed25519 signature verifies under the wallet's key over the request cell's
// hash, the wallet id and seqno are the wallet's, the request has not
// expired, and its one action sends the asked amount out of the payer's
// Jetton wallet to the seller with the terms' comment as forward payload.
// It relays nothing.
package tvmseller

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/exactseller"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/tvm"
	"github.com/termsgate/termsgate/rails/tvm/tvmrpc"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: tvm.ExactID, Aliases: []string{"tvm", "ton"},
		About: "0.01 USDT on TON: a W5 wallet's signed Jetton transfer whose forward payload is the comment lcp:sha256:H; seqno, wallet id and Jetton wallet from a loopback TON Center", Run: demoExact})
}

// Exact sells one resource under x402/exact/tvm.
type Exact struct {
	exactseller.Seller
	Node                  *tvmrpc.Node
	PublicKey             ed25519.PublicKey // the payer wallet's key, as its contract holds it
	network, asset, payTo string
	amount                int64
	Now                   func() time.Time
}

func newExact(node *tvmrpc.Node, key ed25519.PublicKey, network, asset, payTo string, amount int64, now func() time.Time) *Exact {
	s := &Exact{Node: node, PublicKey: key, network: network, asset: asset, payTo: payTo, amount: amount, Now: now}
	s.Body = []byte(`{"report":"TON/USD 5.40","as_of":"2026-12-01"}`)
	s.Option, s.Bound, s.Verify = s.option, tvm.Exact{}.Bound, s.verify
	// The offer carries the terms' comment in the option itself.
	s.Place = func(doc *jsonv.Object, h atr.Hash) error { return tvm.Place(doc, 0, h) }
	return s
}

func (s *Exact) option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", s.network, "amount", fmt.Sprint(s.amount), "asset", s.asset, "payTo", s.payTo,
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("areFeesSponsored", true))
}

// verify checks the message as the payer's W5 wallet would and returns
// its request's hash; it relays nothing.
func (s *Exact) verify(payment *jsonv.Object) (string, error) {
	boc, _ := jsonv.AsString(demo.Path(payment, "payload", "settlementBoc"))
	op, err := tvm.Open(boc)
	if err != nil {
		return "", err
	}
	wallet, _ := tvm.ParseAddress(s.Node.Wallet)
	if *op.Wallet != *wallet {
		return "", errors.New("the message is not to the payer's wallet")
	}
	h := op.Request.Hash()
	if !ed25519.Verify(s.PublicKey, h[:], op.Signature) {
		return "", errors.New("the signature does not verify under the wallet's key")
	}
	sent := op.Sent
	if sent.WalletID != s.Node.WalletID || sent.Seqno != s.Node.Seqno {
		return "", fmt.Errorf("wallet id %d seqno %d, the wallet's are %d and %d", sent.WalletID, sent.Seqno, s.Node.WalletID, s.Node.Seqno)
	}
	if now := uint64(s.Now().Unix()); sent.ValidUntil <= now {
		return "", fmt.Errorf("expired: valid until %d, now %d", sent.ValidUntil, now)
	}
	payTo, _ := tvm.ParseAddress(s.payTo)
	jw, _ := tvm.ParseAddress(s.Node.JettonWallet)
	if *sent.JettonWallet != *jw || *sent.PayTo != *payTo || sent.Amount.Cmp(big.NewInt(s.amount)) != 0 || sent.H != s.Hash().String() {
		return "", errors.New("the transfer is not the asked amount out of the payer's Jetton wallet to this seller with the terms' comment")
	}
	return fmt.Sprintf("%x", h), nil
}

// demoExact pays the seller from the vectors' Ed25519 seed (01 × 32) on TON
// mainnet's id: seqno, wallet id and Jetton wallet from the loopback TON
// Center, a W5 request whose transfer carries the terms' comment, the
// seller's checks, then a lying link declined unsigned.
func demoExact(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	const (
		network = "tvm:-239"
		wallet  = "0:1da21a6e33ef22840029ae77900f61ba820b94e813a3b7bef4e3ea471007645f"
		usdt    = "0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe"
		seed    = "0101010101010101010101010101010101010101010101010101010101010101"
	)
	payer, err := signer.TVMFromSeedHex(seed, wallet, network)
	if err != nil {
		return fail(err)
	}
	node := &tvmrpc.Node{Wallet: wallet, Jetton: usdt, JettonWallet: "0:1111111111111111111111111111111111111111111111111111111111111111",
		Seqno: 5, WalletID: 2147483409}
	seller := newExact(node, payer.PublicKey(), network, usdt, "0:92433a576cbe56c4dcc86d94b497a2cf18a9baa9c8283fea28ea43eb3c25cfed", 10_000, time.Now)
	nodeSrv, err := loopback.Start(node, "toncenter.example")
	if err != nil {
		return fail("cannot start the local TON Center:", err)
	}
	defer nodeSrv.Close()
	inputs := &tvmrpc.Inputs{Client: &tvmrpc.Client{URL: "https://toncenter.example", HTTP: nodeSrv.Client(), Wallet: wallet, Jetton: usdt}}
	// The grant names the Jetton wallet the request sends from, so the limit does too.
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{
		Network: network, Asset: node.JettonWallet, MaxAmount: big.NewInt(20_000), Budget: big.NewInt(1_000_000),
	}}})
	if err != nil {
		return fail(err)
	}
	d := &exactseller.Demo{Seller: &seller.Seller, Wallet: demo.Count(payer), Policy: policy, Inputs: inputs.For, InputsErr: inputs.Err,
		Pairing: tvm.ExactID, Price: "0.01 USDT on TON", Payer: "the vectors' development seed 01×32; never hold value with it",
		Offer:  "the terms' hash, link and comment (extra.forwardPayload)",
		Amount: demo.Amount(fmt.Sprint(seller.amount), 6, "USDT", network),
		BeforeSign: func(sm pay.Summary) {
			say("   from TON Center (GET /api/v3/walletInformation, /api/v3/jetton/wallets): seqno %d, wallet id %d, Jetton wallet %s",
				node.Seqno, node.WalletID, node.JettonWallet)
			say("   the policy allows it: %s units out of %s on %s from %s to %s, until %s", sm.Amount, sm.Asset, sm.Network, sm.Payer, sm.Payee,
				sm.PayableUntil.UTC().Format(time.RFC3339))
		},
		AfterSign: func(r *pay.Result) {
			ref, _ := tvm.PaymentReference(r.Signed)
			say("   signed the W5 request whose transfer body %s carries the comment lcp:sha256:H", ref.TransferBodyHash)
		},
		Checked: func(paid string, status int, body []byte) {
			say("   the seller took the message apart, verified the Ed25519 signature over the request hash %s,", paid)
			say("   checked wallet id, seqno, expiry, the transfer and its comment, and answered %d: %s", status, body)
		},
	}
	return d.Run(ctx, s)
}
