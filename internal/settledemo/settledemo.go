// Package settledemo is `termsgate demo --settle`: x402 demos on a real EVM,
// go-ethereum's simulated chain in this process. For x402/exact/eip155/eip3009
// the seller settles the payment it received with the token's
// transferWithAuthorization, as a facilitator does, and the demo reads H back
// out of the landed AuthorizationUsed log; for the two Permit2 pairings
// (permit2.go) it settles through x402's proxy on Permit2 and the demo reads
// H back from the landed call and Permit2's nonce record.
//
// It compiles go-ethereum's whole node, which the termsgate binary leaves out
// by default (internal/depcheck): Register gives the x402 demo row its
// settled run, and internal/demo/rows calls it only in a binary built with
// -tags simchain; tests call it themselves.
package settledemo

import (
	"context"
	"errors"
	"fmt"

	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/eip3009token"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/simchain"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

var once sync.Once

// Register makes `termsgate demo --settle` run Settle for the x402 row
// (x402/exact/eip155/eip3009) and SettlePermit2 for the exact and upto
// Permit2 rows, SettleEscrow for x402/auth-capture/eip155/permit2. Calling
// it again does nothing.
func Register() {
	once.Do(func() {
		demo.SetSettle(evm.ExactEIP3009ID, Settle)
		demo.SetSettle(evm.ExactPermit2ID, SettlePermit2(evm.ExactPermit2ID))
		demo.SetSettle(evm.UptoPermit2ID, SettlePermit2(evm.UptoPermit2ID))
		demo.SetSettle(evm.AuthCapturePermit2ID, SettleEscrow)
	})
}

// Settle pays a loopback seller of the demo's terms, has it settle on the
// simulated chain, and tells each step to s. An error means the demo did
// not show what it promises.
func Settle(ctx context.Context, s *demo.Session) error {
	terms, body := demo.ATR, x402seller.DemoBody
	say := s.Say
	fail := func(what string, err error) error { return fmt.Errorf("%s: %w", what, err) }
	payer, err := signer.FromHex(signer.AnvilKey, simchain.Network)
	if err != nil {
		return fail("the payer", err)
	}
	chain, err := simchain.New("USDC", "2", big.NewInt(1_000_000), payer.Address())
	if err != nil {
		return fail("cannot start the simulated chain", err)
	}
	defer chain.Close()
	seller := x402seller.New(terms, body)
	seller.Option = jsonv.Obj("scheme", "exact", "network", simchain.Network, "amount", "10000",
		"asset", chain.Token.Hex(), "payTo", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("name", "USDC", "version", "2"))
	seller.Settler = chain.Settler
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller", err)
	}
	defer srv.Close()

	say("termsgate demo --settle: a seller on %s (TLS, loopback only) sells %s", srv.Listener.Addr(), seller.ResourceURL())
	say("chain: go-ethereum's simulated chain %s, in this process; token %s (EIP-3009, internal/eip3009token)", simchain.Network, chain.Token.Hex())
	say("payer: %s (the published Anvil development key), holding 1.000000 of the token", payer.Account())
	say("")
	say("1. the gate fetches the terms, compares SHA-256 of the exact bytes with the advertised H, and signs")
	say("   an EIP-3009 transferWithAuthorization whose nonce is H")
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: simchain.Network, Asset: chain.Token.Hex(), MaxAmount: big.NewInt(10000)}}})
	if err != nil {
		return fail("the spend limits", err)
	}
	client := pay.NewClient(&pay.Transport{
		Base:   srv.Transport(),
		Gate:   &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}},
		Signer: payer,
		Policy: policy,
	})
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, seller.ResourceURL(), nil)
	resp, err := client.Do(req)
	if err != nil {
		return fail("not paid", err)
	}
	demo.Read(resp)
	res := pay.ResultOf(resp)
	if resp.StatusCode != http.StatusOK || res == nil || res.Settlement == nil {
		return fmt.Errorf("the seller refused the payment (%d): %v", resp.StatusCode, seller.LastRejection())
	}
	say("   H = %s", res.H)
	say("2. the seller checked the payment and settled it as a facilitator does, sending")
	say("   transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, v, r, s) to the token")
	tx := res.Settlement.Transaction
	landed, err := chain.Node.Receipt(ctx, tx)
	if err != nil || landed == nil {
		return fail("no receipt for "+tx, err)
	}
	say("   transaction %s", tx)
	say("   landed in block %d with status %d", landed.Block, landed.Status)
	var nonce string
	for _, v := range landed.Logs {
		l := evm.ParseLog(v)
		if evm.SameAddress(l.Address, chain.Token.Hex()) && evm.SameBytes(l.Topic(0), eip3009token.TopicAuthorizationUsed.Hex()) {
			authorizer, _ := evm.TopicAddress(l.Topic(1))
			nonce = l.Topic(2)
			say("   log AuthorizationUsed(authorizer %s, nonce %s)", authorizer, nonce)
		}
	}
	if landed.Status != 1 || !strings.EqualFold(nonce, res.H.String()) {
		return fmt.Errorf("the landed log does not carry H %s", res.H)
	}
	say("   the nonce is H: the chain records that this payment agreed to these exact terms")
	reader, err := chain.Node.Reader(ctx)
	if err != nil {
		return fail("the chain reader", err)
	}
	recovered, err := evm.ExactEIP3009{}.Recover(jsonv.Obj("network", simchain.Network, "asset", chain.Token.Hex(), "transaction", tx), reader)
	if err != nil || recovered != res.H.String() {
		return fail("reading H back from the transaction", err)
	}
	say("   read back from the transaction alone (rails/evm Recover): %s", recovered)
	say("")
	say("3. the same payment settled again")
	payment, _ := jsonv.AsObject(res.Signed)
	_, _, err = chain.SettleX402(ctx, payment, 0)
	if err == nil {
		return errors.New("the replayed payment settled")
	}
	say("   refused by the token: %v", err)
	offer, err := seller.Required()
	if err != nil {
		return err
	}
	if err := s.KeepPayment(res.ATR, x402.EncodeHeader(offer), res.Signed); err != nil {
		return err
	}
	s.Paid(demo.Amount(res.Summary.Amount.String(), 6, "USDC", simchain.Network) + " (settled in block " + strconv.FormatUint(landed.Block, 10) + ")")
	return nil
}
