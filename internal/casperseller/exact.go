// Package casperseller is the loopback seller paid on Casper and its demo
// row. It checks a payment as the CEP-3009 token contract would before
// executing it: the authorization is the option's transfer (to, value,
// the token's domain), valid now, its nonce the terms' hash and not used
// before, its key the payer's (the key's account hash is from) and its
// signature the key's over the typed data's digest; it then executes
// transfer_with_authorization on the loopback node and reads the payment
// settled back over the node's JSON-RPC.
package casperseller

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/exactseller"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/casper"
	"github.com/termsgate/termsgate/rails/casper/casperrpc"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: casper.ExactID, Aliases: []string{"casper"},
		About: "0.01 of a CEP-18 token on Casper testnet: H as the CEP-3009 nonce the payer's Ed25519 key signs; executed and read back over a loopback node's JSON-RPC", Run: demoExact})
}

// Exact sells one resource under x402/exact/casper.
type Exact struct {
	exactseller.Seller
	Node  *casperrpc.Node
	RPC   *casperrpc.Client
	Now   func() time.Time
	payTo string
	asset string

	mu   sync.Mutex
	used map[atr.Hash]bool // the nonces the token has seen (CEP-3009's NonceAlreadyUsed)
}

const (
	amount    = 10_000 // 0.01 of a 6-decimal token
	tokenName = "Casper X402 Token"
)

func newExact(node *casperrpc.Node, rpc *casperrpc.Client, payTo, asset string) *Exact {
	s := &Exact{Node: node, RPC: rpc, Now: time.Now, payTo: payTo, asset: asset}
	s.Body = []byte(`{"report":"CSPR/USD 0.011","as_of":"2026-12-01"}`)
	s.Option, s.Bound, s.Verify = s.option, casper.Exact{}.Bound, s.verify
	return s
}

func (s *Exact) option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", s.RPC.Net, "amount", fmt.Sprint(amount), "asset", s.asset, "payTo", s.payTo,
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("name", tokenName, "version", "1"))
}

// verify checks the authorization as the CEP-3009 token would, executes it
// on the loopback node and returns its transaction once read settled.
func (s *Exact) verify(payment *jsonv.Object) (string, error) {
	ref, err := casper.PaymentReference(payment)
	if err != nil {
		return "", err
	}
	c, err := casper.ReadPayment(payment)
	if err != nil {
		return "", err
	}
	a, ok := casper.PaymentAuthorization(c)
	if !ok {
		return "", errors.New("the authorization does not read")
	}
	now := s.Now().Unix()
	switch {
	case a.To != s.payTo || a.Value.Cmp(big.NewInt(amount)) != 0:
		return "", errors.New("the authorization does not pay the asked amount to this seller")
	case a.ValidAfter.Cmp(big.NewInt(now)) > 0 || ref.SettleBy <= now:
		return "", fmt.Errorf("the authorization is not valid now (after %s, before %d, now %d)", a.ValidAfter, ref.SettleBy, now)
	}
	key, err := casper.ParsePublicKey(c.PublicKey)
	if err != nil {
		return "", err
	}
	if key.AccountAddress() != a.From {
		return "", errors.New("the key is not the payer's: its account hash is not from")
	}
	d := a.Digest()
	if !key.Verify(d[:], c.Signature) {
		return "", errors.New("the signature is not the key's over the authorization's digest")
	}
	s.mu.Lock()
	if s.used[a.Nonce] {
		s.mu.Unlock()
		return "", errors.New("the nonce was used before (CEP-3009's NonceAlreadyUsed)")
	}
	if s.used == nil {
		s.used = map[atr.Hash]bool{}
	}
	s.used[a.Nonce] = true
	s.mu.Unlock()
	height := uint64(4242)
	ref.Transaction = s.Node.Execute(casperrpc.Execution{PackageHash: s.asset, EntryPoint: "transfer_with_authorization",
		From: a.From, To: a.To, Value: a.Value, Nonce: a.Nonce, BlockHeight: &height})
	if st := casper.PaymentStatus(context.Background(), ref, s.RPC); st.State != "settled" {
		return "", fmt.Errorf("executed %s but its status reads %s %s", ref.Transaction, st.State, st.Why)
	}
	return ref.Transaction, nil
}

// demoExact pays the seller from the published Casper development key on
// casper-test: the signer checks the node's chainspec, signs the
// authorization with H as its nonce, the seller checks and executes it and
// reads it back; then a lying link is declined unsigned.
func demoExact(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	const network = "casper:casper-test"
	node := &casperrpc.Node{}
	nodeSrv, err := loopback.Start(node, "node.casper.example")
	if err != nil {
		return fail("cannot start the local node:", err)
	}
	defer nodeSrv.Close()
	rpc := &casperrpc.Client{URL: "https://node.casper.example/rpc", Net: network, HTTP: nodeSrv.Client()}
	payer, err := signer.CasperFromSeed(signer.CasperDevSeed, network, rpc)
	if err != nil {
		return fail(err)
	}
	seller := newExact(node, rpc, "007a9f9948cb7b258d18f3c5e85780372971b5b40096e724c9e596c284a01445fa",
		"17be3c3dc67ddf193b8f64bfc2421826407470f88b3dab68184ebffebdd57f59")
	policy, err := pay.NewPolicy(pay.PolicyConfig{MaxPayable: 10 * time.Minute, Limits: []pay.Limit{{
		Network: network, Asset: seller.asset, MaxAmount: big.NewInt(20_000), Budget: big.NewInt(1_000_000),
	}}})
	if err != nil {
		return fail(err)
	}
	d := &exactseller.Demo{Seller: &seller.Seller, Wallet: demo.Count(payer), Policy: policy,
		Pairing: casper.ExactID, Price: "0.01 of a CEP-18 token", Payer: "the published Casper development key; never hold value with it",
		Amount: demo.Amount(fmt.Sprint(amount), 6, "tokens", network),
		BeforeSign: func(sm pay.Summary) {
			say("   the policy allows it: %s of %s on %s from %s to %s, until %s", sm.Amount, sm.Asset, sm.Network, sm.Payer, sm.Payee,
				sm.PayableUntil.UTC().Format(time.RFC3339))
			say("   the wallet checks the node's chainspec (info_get_status) before it signs")
		},
		AfterSign: func(r *pay.Result) {
			in, _ := (casper.Exact{}).Inspect(r.Signed)
			digest, _ := in.Details.GetString("digest")
			say("   signed CEP-3009 TransferWithAuthorization, digest %s, H as its nonce", digest)
		},
		Checked: func(paid string, status int, body []byte) {
			say("   the seller checked the transfer, the validity window, that the key's account hash is from and its signature")
			say("   over the digest, executed transfer_with_authorization as %s and read it settled; it answered %d: %s", paid, status, body)
		},
	}
	return d.Run(ctx, s)
}
