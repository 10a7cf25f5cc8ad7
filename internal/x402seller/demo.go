package x402seller

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// DemoBody is what the demo's seller sells.
var DemoBody = []byte(`{"report":"ETH/USD 3150.42","as_of":"2026-12-01"}`)

func init() {
	demo.Register(demo.Row{Pairing: evm.ExactEIP3009ID, Aliases: []string{"x402"},
		About: "0.01 USDC on Base Sepolia through pay.Transport: an EIP-3009 authorization whose nonce is H; a lying link declined unsigned",
		Run:   runDemo})
}

// runDemo pays the seller through pay.Transport, as an agent's HTTP client
// would, then shows the lying link declined with no signer call.
func runDemo(ctx context.Context, s *demo.Session) error {
	seller := New(demo.ATR, DemoBody)
	srv, err := loopback.Start(seller)
	if err != nil {
		return fmt.Errorf("cannot start the local seller: %w", err)
	}
	defer srv.Close()
	payer, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		return err
	}
	wallet := demo.Count(payer)
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{
		Network: "eip155:84532", Asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
		MaxAmount: big.NewInt(50_000), Budget: big.NewInt(1_000_000), // 0.05 USDC a payment, 1 USDC in all
	}}})
	if err != nil {
		return err
	}
	var signed jsonv.Value
	transport := &pay.Transport{
		Base:   srv.Transport(),
		Gate:   &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}},
		Signer: wallet,
		Policy: policy,
		Hooks: pay.Hooks{
			BeforeSign: func(_ context.Context, _ *http.Request, sum pay.Summary) error {
				s.Say("   fetched the terms; SHA-256 matches the advertised H = %s", sum.H)
				s.Say("   the policy allows it; the signature would grant %s atomic units of %s (%s) on %s to %s, payable until %s",
					sum.Amount, sum.AssetName, sum.Asset, sum.Network, sum.Payee, sum.PayableUntil.UTC().Format(time.RFC3339))
				return nil
			},
			AfterSign: func(_ context.Context, _ *http.Request, r *pay.Result) {
				signed = r.Signed
				nonce, _ := jsonv.AsString(demo.Path(r.Signed, "payload", "authorization", "nonce"))
				s.Say("   signed an EIP-3009 authorization whose nonce is H: %s", nonce)
				s.Say("3. the same GET again, with PAYMENT-SIGNATURE (%d bytes)", len(r.Header))
			},
			Declined: func(_ context.Context, _ *http.Request, d *gate.Decline) {
				s.Say("   declined %s: %s", d.Code, d.Detail)
			},
		},
	}
	transport.NoATRCache = true // each step fetches and compares, as it prints (the lie in step 4 too)
	client := pay.NewClient(transport)
	offer, err := seller.Required()
	if err != nil {
		return err
	}

	s.Say("termsgate demo: a seller on %s (TLS, loopback only) sells %s", srv.Listener.Addr(), seller.ResourceURL())
	s.Say("payer: %s (the published Anvil development key; never hold value with it)", payer.Account())
	s.Say("")
	s.Say("1. GET %s", seller.ResourceURL())
	s.Say("   the seller answers 402 with PAYMENT-REQUIRED, advertising its terms' hash and link")
	s.Say("2. the gate fetches the terms, compares SHA-256 of the exact bytes with H, asks the policy, and only then signs")
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, seller.ResourceURL(), nil)
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("not paid: %w", err)
	}
	body := demo.Read(resp)
	res := pay.ResultOf(resp)
	if resp.StatusCode != http.StatusOK || res == nil || res.Settlement == nil {
		return fmt.Errorf("the seller refused the payment (%d): %v", resp.StatusCode, seller.LastRejection())
	}
	s.Say("   the seller checked the signature (it recovers to %s), the nonce (the hash of the terms", res.Settlement.Payer)
	s.Say("   it serves), the amount and the payee, and answered %d: %s", resp.StatusCode, body)
	s.Say("   agreed terms kept with the payment: %d bytes, H = %s", len(res.ATR), res.H)
	if err := s.KeepPayment(res.ATR, x402.EncodeHeader(offer), signed); err != nil {
		return err
	}
	amount, _ := seller.Option.GetString("amount")
	s.Paid(demo.Amount(amount, 6, "USDC", "eip155:84532"))
	s.Say("")
	s.Say("4. the same seller now serves other bytes at the link while its 402 still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	before := wallet.Calls()
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, seller.ResourceURL(), nil)
	_, err = client.Do(req)
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fmt.Errorf("the changed terms were not declined: %v", err)
	}
	s.Say("   signer calls for it: %d; nothing was sent", wallet.Calls()-before)
	return nil
}
