package stellarseller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/sorobansim"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/rails/stellar/sorobanrpc"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: stellar.ExactID, Aliases: []string{"stellar"},
		About: "a Soroban token transfer to the seller muxed with H's first 8 bytes; inputs from a loopback Soroban RPC", Run: demoStellar})
}

// demoStellar pays an x402 seller on Stellar (x402/exact/stellar): the
// payTo is the seller's muxed address whose id is H's first 8 bytes, the
// buyer's inputs come from a Soroban RPC (a loopback simulator), and the
// payer signs only the authorization of that one transfer.
func demoStellar(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	const ledger = 988
	node := &sorobansim.Server{Ledger: ledger, Nonce: time.Now().UnixNano(), ResourceFee: 45_000}
	rpcSrv, err := loopback.Start(node)
	if err != nil {
		return fail("cannot start the local Soroban RPC:", err)
	}
	defer rpcSrv.Close()
	seller := New(demo.ATR, []byte(`{"report":"XLM/USD 0.4321","as_of":"2026-12-01"}`), func() uint32 { return ledger })
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	client := srv.Client()
	payer, err := signer.StellarFromSecret(signer.StellarDevSeed, stellar.Testnet)
	if err != nil {
		return fail(err)
	}
	rpc := &sorobanrpc.Client{URL: rpcSrv.URL("localhost", "/"), HTTP: rpcSrv.Client()}
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}

	say("termsgate demo (x402 on Stellar): a seller on %s (TLS, loopback only) sells %s", srv.Listener.Addr(), seller.ResourceURL())
	say("payer: %s (the vectors' published seed 05×32; never hold value with it)", payer.Account())
	say("")
	say("1. GET %s", seller.ResourceURL())
	resp, err := client.Get(seller.ResourceURL())
	if err != nil {
		return fail(err)
	}
	demo.Read(resp)
	doc, err := x402.DecodeHeader(resp.Header.Get("PAYMENT-REQUIRED"))
	if err != nil {
		return fail("the seller's PAYMENT-REQUIRED:", err)
	}
	offer, err := g.Read(doc, stellar.ExactID)
	if err != nil {
		return fail(err)
	}
	payTo, _ := jsonv.AsString(demo.Path(offer.Options[0], "payTo"))
	m, _ := stellar.DecodeMuxed(payTo)
	say("   %d with PAYMENT-REQUIRED for %s, advertising H = %s", resp.StatusCode, stellar.ExactID, offer.H)
	say("   payTo %s: the seller's account muxed with id %d, H's first 8 bytes", payTo, m.ID)
	say("")
	say("2. the buyer's inputs from Soroban RPC at %s: simulateTransaction of that transfer, getLatestLedger", rpc.URL)
	inputs, err := rpc.Inputs(ctx, stellar.ExactID, doc, payer.Account())
	if err != nil {
		return fail(err)
	}
	say("   %d RPC calls; the simulation returned the payer's address authorization, ledger %d", node.Calls.Load(), ledger)
	say("")
	say("3. the gate fetches the terms, compares SHA-256 of the bytes with H, checks the envelope transfers what")
	say("   the offer asks (payee, token, amount, payer), and only then signs the authorization")
	wallet := demo.Count(payer)
	res, err := g.Transact(ctx, doc, stellar.ExactID, wallet, &gate.TransactOptions{Inputs: inputs})
	if err != nil {
		return fail("declined:", err)
	}
	say("   fetched %d bytes; SHA-256 = %s: matches; signer calls: %d", len(res.Bytes), res.H, wallet.Calls())
	header := x402.EncodeHeader(res.Signed)
	say("")
	say("4. GET again with PAYMENT-SIGNATURE (%d bytes)", len(header))
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, seller.ResourceURL(), nil)
	req.Header.Set("PAYMENT-SIGNATURE", header)
	paid, err := client.Do(req)
	if err != nil {
		return fail(err)
	}
	body := demo.Read(paid)
	if paid.StatusCode != http.StatusOK {
		return fail(fmt.Sprintf("the seller refused the payment (%d):", paid.StatusCode), seller.LastRejection())
	}
	say("   the seller read the envelope with the Stellar SDK, checked the muxed id is H's, the token and amount,")
	say("   and %s's Ed25519 signature over the authorization preimage, and answered %d: %s", seller.Payer(), paid.StatusCode, body)
	if err := s.KeepPayment(res.Bytes, resp.Header.Get("PAYMENT-REQUIRED"), res.Signed); err != nil {
		return err
	}
	amount, _ := seller.Option.GetString("amount")
	s.Paid(demo.Amount(amount, -1, "the token "+Asset, stellar.Testnet))
	say("")
	say("5. the same seller now serves other bytes at the link while its 402 still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	calls := demo.Count(payer)
	_, err = g.Transact(ctx, doc, stellar.ExactID, calls, &gate.TransactOptions{Inputs: inputs})
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fail("the changed terms were not declined:", err)
	}
	say("   declined %s: %s", d.Code, d.Detail)
	say("   signer calls for it: %d", calls.Calls())
	return nil
}
