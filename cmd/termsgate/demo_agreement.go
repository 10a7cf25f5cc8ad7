package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/x402seller"
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

// cloudflareSeller is a pay-per-crawl seller on cloudflare:402: its 402
// names an agreement URL, and it serves a request whose payment echoes its
// terms' hash only once the agreement URL has recorded a paid agreement for
// that hash (what Cloudflare and the seller's agreement service would share).
type cloudflareSeller struct {
	h        atr.Hash
	link     string
	agreeURL string
	agreed   func() bool
	body     []byte
	paid     atomic.Int64
	lastErr  atomic.Value
}

func (s *cloudflareSeller) required() (*jsonv.Object, error) {
	option := jsonv.Obj("scheme", "batch-settlement", "network", cloudflare.Network, "amount", "5", "asset", "USD",
		"payTo", "merchant", "maxTimeoutSeconds", 30, "extra", jsonv.Obj("version", "1.0.0"))
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://api.seller.example/v1/article"),
		"accepts", []jsonv.Value{option})
	return x402.Advertise(doc, s.h, s.link, s.agreeURL)
}

func (s *cloudflareSeller) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	doc, err := s.required()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if header := r.Header.Get("PAYMENT-SIGNATURE"); header != "" {
		err := s.verify(header, doc)
		if err == nil {
			s.paid.Add(1)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(s.body)
			return
		}
		s.lastErr.Store(err)
	}
	w.Header().Set("PAYMENT-REQUIRED", x402.EncodeHeader(doc))
	w.WriteHeader(http.StatusPaymentRequired)
}

// verify is the seller's side: the payment is for its option and echoes the
// hash of the terms it serves, and an agreement to those terms was paid.
func (s *cloudflareSeller) verify(header string, doc *jsonv.Object) error {
	payment, err := x402.DecodeHeader(header)
	if err != nil {
		return err
	}
	h, err := cloudflare.Batch{}.Bound(payment)
	if err != nil {
		return err
	}
	if !atr.EqualText(h, s.h) {
		return errors.New("the payment names other terms")
	}
	accepted, _ := payment.GetObject("accepted")
	accepts, _ := doc.Get("accepts")
	if list, _ := jsonv.AsArray(accepts); !x402.OptionInDocument(accepted, list) {
		return errors.New("the payment is for an option not offered")
	}
	if !s.agreed() {
		return errors.New("no agreement to these terms was recorded")
	}
	return nil
}

// agentKey is a cloudflare:402 agent: its registered HTTP message signature
// key signs the requests; the gate never asks it to sign a payment.
type agentKey struct{ calls int }

func (*agentKey) Account() string { return "cloudflare:402:agent.example" }
func (a *agentKey) Sign(context.Context, rails.Request) (jsonv.Value, error) {
	a.calls++
	return nil, errors.New("the agent's key signs HTTP requests, not payments")
}

// demoAgreement pays an x402/batch-settlement/cloudflare seller, whose
// payment is no public proof: the gate asks for approval of the agreement
// payment, pays it by EIP-3009 with H as the nonce, waits for the agreement
// URL's receipt for H, and only then releases the main payment.
func demoAgreement(ctx context.Context, s *demo.Session) error {
	say, fail := demoPrinters(s)
	// The agreement URL is an x402 seller of a receipt: 1 atomic unit of
	// USDC, bound to the same terms, answered with {atrHash, agreed, …}.
	h := atr.Sum(demoATR)
	receipt := jsonv.Marshal(jsonv.Obj("atrHash", h.String(), "agreed", true, "network", "eip155:84532",
		"transaction", "0x"+strings.Repeat("ab", 32)))
	agreements := x402seller.New(demoATR, receipt)
	agreements.APIHost, agreements.ResourcePath = "pay.seller.example", "/agree"
	agreements.Option.Set("amount", "1")
	seller := &cloudflareSeller{h: h, link: agreements.Link(h), agreeURL: agreements.ResourceURL(),
		agreed: func() bool { return agreements.Paid.Load() > 0 },
		body:   []byte(`{"article":"Agentic terms, explained","words":1200}`)}
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "api.seller.example") {
			seller.ServeHTTP(w, r)
			return
		}
		agreements.ServeHTTP(w, r)
	}))
	if err != nil {
		return fail("cannot start the local sellers:", err)
	}
	defer srv.Close()
	client := srv.Client()
	wallet, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		return fail(err)
	}
	payer := &countingSigner{Signer: wallet}
	agent := &agentKey{}
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}} // the shipped registry

	const resource = "https://api.seller.example/v1/article"
	say("termsgate demo: a Cloudflare pay-per-crawl seller (%s) on %s, TLS, loopback only", cloudflare.ID, srv.Listener.Addr())
	say("agent: %s (its HTTP signature key pays; the gate signs nothing for it)", agent.Account())
	say("agreement payer: %s (the published Anvil development key)", wallet.Account())
	say("")
	say("1. GET %s", resource)
	resp, err := client.Get(resource)
	if err != nil {
		return fail(err)
	}
	drain(resp)
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
	say("   approval asked: %s atomic units of %s on %s to %s, at %s (signer calls so far: %d)", amount, asset, network, payTo, a.URL, payer.n)
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
		paid.Agreement.ATRHash, paid.Agreement.Transaction, paid.Agreement.Network, payer.n)
	inside, _ := cloudflare.Batch{}.Bound(paid.Signed)
	say("4. the main payment echoes the terms' legal context, H = %s; the agent's HTTP stack signs the request", inside)
	req, _ := http.NewRequest(http.MethodGet, resource, nil)
	req.Header.Set("PAYMENT-SIGNATURE", x402.EncodeHeader(paid.Signed))
	resp, err = client.Do(req)
	if err != nil {
		return fail(err)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fail("the seller refused the payment:", seller.lastErr.Load())
	}
	say("   the seller checked the echoed hash against its terms and the recorded agreement, and answered %d: %s", resp.StatusCode, body)
	say("   gate signer calls for the main payment: %d", agent.calls)
	if err := s.KeepPayment(paid.Bytes, x402.EncodeHeader(doc), paid.Signed); err != nil {
		return err
	}
	s.Paid("5 USD through " + cloudflare.Network + " (the agent's identity), after an agreement payment of " + demo.Amount(amount, 6, "USDC", network))
	return nil
}
