package agreementseller

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"sync"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/permit2seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// The x402/exact/eip155/erc7710 seller (docs/erc7710.md): the payer's
// account delegates through an ERC-7710 manager other than MetaMask's
// DelegationManager, whose redemption event the gate cannot read H from,
// so nothing signed carries H and the agreement exchange runs first.

// OtherManager stands for that manager: a deployment of the delegation
// framework's DelegationManager at another address, signing delegations
// under its own EIP-712 domain. No contract runs in the demo; the seller
// checks the delegation as that manager would before redeeming it.
const OtherManager = "0x0000000000000000000000000000000000E77100"

const (
	usdc  = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
	payTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
)

// ERC7710Option is the option the ERC-7710 seller offers: 0.01 USDC on Base
// Sepolia, exact, paid by a delegation (the vector file's option).
func ERC7710Option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", "eip155:84532", "amount", "10000", "asset", usdc, "payTo", payTo,
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("name", "USDC", "version", "2", "assetTransferMethod", "erc7710"))
}

// NewERC7710 returns a seller of body under terms atrBytes whose one
// option is ERC7710Option: served once an agreement to the terms was paid,
// the payment echoes their hash, and its delegation redeems through
// OtherManager for the offered token and amount, once.
func NewERC7710(atrBytes, body []byte) *Seller {
	option := ERC7710Option()
	var mu sync.Mutex
	redeemed := map[atr.Hash]bool{}
	check := func(payment *jsonv.Object) (string, error) {
		payload, _ := payment.GetObject("payload")
		leaf, err := permit2seller.RedeemedLeaf(option, payload, OtherManager)
		if err != nil {
			return "", err
		}
		// The manager disables a delegation it redeemed (by its hash), so
		// the same one redeems once.
		digest, err := evm.TypedDataDigest(evm.DelegationTypedData(84532, OtherManager, unsigned(leaf)))
		if err != nil {
			return "", err
		}
		mu.Lock()
		defer mu.Unlock()
		if redeemed[digest] {
			return "", errors.New("the delegation was redeemed before")
		}
		redeemed[digest] = true
		return leaf.Delegator, nil
	}
	return newSeller(atrBytes, body, option, evm.ExactERC7710{}.Bound, check)
}

func unsigned(d evm.Delegation) evm.Delegation { d.Signature = nil; return d }

// otherManagerWallet is the payer's smart-account wallet: it issues the
// delegation the gate asks for, but under its own manager, OtherManager
// (the request names MetaMask's; a wallet of another framework answers with
// its own, and the pairing takes any manager).
type otherManagerWallet struct{ *signer.Local }

func (w otherManagerWallet) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if kind, _ := req.GetString("kind"); kind == evm.KindERC7710 {
		req = req.Clone()
		req.Set("delegationManager", OtherManager)
	}
	return w.Local.Sign(ctx, req)
}

func init() {
	demo.Register(demo.Row{Pairing: evm.ExactERC7710ID,
		About: "0.01 USDC by an ERC-7710 delegation through another manager than MetaMask's, so no public proof: the agreement exchange (an EIP-3009 agreement payment with nonce H, its receipt) first; the seller redeems the delegation as that manager would",
		Run:   demoERC7710})
}

// demoERC7710 pays the ERC-7710 seller: approval of the agreement payment
// with nothing signed, the agreement paid by EIP-3009 with nonce H and its
// receipt read, then the delegation, which echoes H only in the payment's
// legal context, checked by the seller as its manager redeems it.
func demoERC7710(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	seller := NewERC7710(demo.ATR, []byte(`{"quote":"BTC/USD","price":"97000.00"}`))
	h := seller.Hash()
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local sellers:", err)
	}
	defer srv.Close()
	client := srv.Client()
	key, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		return fail(err)
	}
	wallet := demo.Count(otherManagerWallet{key.WithDelegations(permit2seller.DemoIssuer)})
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{
		Network: "eip155:84532", Asset: usdc, MaxAmount: big.NewInt(50_000), Budget: big.NewInt(1_000_000),
	}}})
	if err != nil {
		return fail(err)
	}
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}, Policy: policy} // the shipped registry

	resource := seller.ResourceURL()
	say("termsgate demo: %s against a seller on %s (TLS, loopback only)", evm.ExactERC7710ID, srv.Listener.Addr())
	say("payer: %s (the published Anvil development key; never hold value with it)", wallet.Account())
	say("its wallet delegates through %s, an ERC-7710 manager other than MetaMask's DelegationManager", OtherManager)
	say("")
	say("1. GET %s", resource)
	resp, _, err := demo.Get(ctx, client, resource, "", "")
	if err != nil {
		return fail(err)
	}
	header := resp.Header.Get("PAYMENT-REQUIRED")
	doc, err := x402.DecodeHeader(header)
	if resp.StatusCode != http.StatusPaymentRequired || err != nil {
		return fail("the seller did not answer 402 with a readable PAYMENT-REQUIRED:", err)
	}
	say("   402: 0.01 USDC on eip155:84532 by an ERC-7710 delegation, with terms H = %s and an agreement URL", h)
	say("2. the gate fetches the terms and compares SHA-256 with H; the delegation will carry nothing of H, so it asks")
	say("   the agreement URL what an agreement costs, and returns that for approval, signing nothing")
	opts := &gate.TransactOptions{}
	first, err := g.Transact(ctx, doc, evm.ExactERC7710ID, wallet, opts)
	if err != nil || first.Approve == nil {
		return fail("no approval asked:", err)
	}
	a := first.Approve
	amount, _ := a.Option.GetString("amount")
	network, _ := a.Option.GetString("network")
	say("   approval asked: %s atomic units of %s on %s, at %s (signer calls so far: %d)", amount, usdc, network, a.URL, wallet.Calls())
	say("3. the payer approves; the gate pays the agreement by EIP-3009 with nonce H, reads its receipt for H, and")
	say("   only then asks the wallet for the delegation")
	opts.Approved = a
	paid, err := g.Transact(ctx, doc, evm.ExactERC7710ID, wallet, opts)
	if err != nil {
		return err // a decline is a decline (exit 1)
	}
	if paid.Agreement == nil {
		return fail("no agreement receipt")
	}
	say("   receipt: agreed to %s, recorded in %s on %s (agreement payments: %d)",
		paid.Agreement.ATRHash, paid.Agreement.Transaction, paid.Agreement.Network, seller.Agreements.Paid.Load())
	inside, err := evm.ExactERC7710{}.Bound(paid.Signed)
	if err != nil {
		return fail(err)
	}
	say("   signed: a root delegation to the facilitator under %s, one caveat holding it to 0.01 USDC (signer calls: %d)", OtherManager, wallet.Calls())
	say("4. the payment echoes the terms' legal context, H = %s; GET again with PAYMENT-SIGNATURE", inside)
	resp, body, err := demo.Get(ctx, client, resource, "PAYMENT-SIGNATURE", x402.EncodeHeader(paid.Signed))
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode != http.StatusOK {
		return fail("the seller refused the payment:", seller.LastRejection())
	}
	say("   the seller checked the echoed hash and the recorded agreement, redeemed the delegation as its manager")
	say("   would (delegator %s, the leaf's signature, its caveat), and answered %d: %s", seller.LastPayer(), resp.StatusCode, body)
	if err := s.KeepPayment(paid.Bytes, header, paid.Signed); err != nil {
		return err
	}
	s.Paid(demo.Amount("10000", 6, "USDC", "eip155:84532") + " by an ERC-7710 delegation, after an agreement payment of " +
		demo.Amount(amount, 6, "USDC", network))
	return nil
}
