package agreementseller

import (
	"context"
	"errors"
	"net/http"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/cloudflare"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: cloudflare.ID, Aliases: []string{"agreement"},
		About: "Cloudflare pay-per-crawl: the agreement exchange (approval, an EIP-3009 agreement payment with nonce H, its receipt) before the main payment", Run: demoAgreement})
}

// agentKey is a cloudflare:402 agent: its registered HTTP message signature
// key signs the requests; the gate never asks it to sign a payment.
type agentKey struct{ calls int }

func (*agentKey) Account() string { return AgentAccount }
func (a *agentKey) Sign(context.Context, rails.Request) (jsonv.Value, error) {
	a.calls++
	return nil, errors.New("the agent's key signs HTTP requests, not payments")
}

// demoAgreement pays an x402/batch-settlement/cloudflare seller, whose
// payment is no public proof: the gate asks for approval of the agreement
// payment, pays it by EIP-3009 with H as the nonce, waits for the agreement
// URL's receipt for H, and only then releases the main payment.
func demoAgreement(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	seller := New(demo.ATR, []byte(`{"article":"Agentic terms, explained","words":1200}`))
	h := seller.Hash()
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local sellers:", err)
	}
	defer srv.Close()
	client := srv.Client()
	wallet, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		return fail(err)
	}
	payer := demo.Count(wallet)
	agent := &agentKey{}
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}} // the shipped registry

	resource := seller.ResourceURL()
	say("termsgate demo: a Cloudflare pay-per-crawl seller (%s) on %s, TLS, loopback only", cloudflare.ID, srv.Listener.Addr())
	say("agent: %s (its HTTP signature key pays; the gate signs nothing for it)", agent.Account())
	say("agreement payer: %s (the published Anvil development key)", wallet.Account())
	say("")
	say("1. GET %s", resource)
	resp, _, err := demo.Get(ctx, client, resource, "", "")
	if err != nil {
		return fail(err)
	}
	doc, err := x402.DecodeHeader(resp.Header.Get("PAYMENT-REQUIRED"))
	if resp.StatusCode != http.StatusPaymentRequired || err != nil {
		return fail("the seller did not answer 402 with a readable PAYMENT-REQUIRED:", err)
	}
	say("   402: %s, with terms H = %s and an agreement URL", cloudflare.Network, h)
	say("2. the gate fetches the terms and compares SHA-256 with H; the payment is no public proof, so it asks the")
	say("   agreement URL what an agreement costs, and returns that for approval, signing nothing")
	opts := &gate.TransactOptions{AgreementSigner: payer}
	first, err := g.Transact(ctx, doc, cloudflare.ID, agent, opts)
	if err != nil || first.Approve == nil {
		return fail("no approval asked:", err)
	}
	a := first.Approve
	amount, _ := a.Option.GetString("amount")
	asset, _ := a.Option.GetString("asset")
	network, _ := a.Option.GetString("network")
	payTo, _ := a.Option.GetString("payTo")
	say("   approval asked: %s atomic units of %s on %s to %s, at %s (signer calls so far: %d)", amount, asset, network, payTo, a.URL, payer.Calls())
	say("3. the agent approves; the gate pays the agreement by EIP-3009 with nonce H and waits for its receipt")
	opts.Approved = a
	paid, err := g.Transact(ctx, doc, cloudflare.ID, agent, opts)
	if err != nil {
		return fail("not paid:", err)
	}
	if paid.Agreement == nil {
		return fail("no agreement receipt")
	}
	say("   receipt: agreed to %s, recorded in %s on %s (agreement signatures: %d)",
		paid.Agreement.ATRHash, paid.Agreement.Transaction, paid.Agreement.Network, payer.Calls())
	inside, _ := cloudflare.Batch{}.Bound(paid.Signed)
	say("4. the main payment echoes the terms' legal context, H = %s; the agent's HTTP stack signs the request", inside)
	resp, body, err := demo.Get(ctx, client, resource, "PAYMENT-SIGNATURE", x402.EncodeHeader(paid.Signed))
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode != http.StatusOK {
		return fail("the seller refused the payment:", seller.LastRejection())
	}
	say("   the seller checked the echoed hash against its terms and the recorded agreement, and answered %d: %s", resp.StatusCode, body)
	say("   gate signer calls for the main payment: %d", agent.calls)
	if err := s.KeepPayment(paid.Bytes, x402.EncodeHeader(doc), paid.Signed); err != nil {
		return err
	}
	s.Paid("5 USD through " + cloudflare.Network + " (the agent's identity), after an agreement payment of " + demo.Amount(amount, 6, "USDC", network))
	return nil
}
