package settledemo

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/permit2contracts"
	"github.com/termsgate/termsgate/internal/simchain"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// SettleEscrow is the settled run of x402/auth-capture/eip155/permit2 on the
// commerce-payments escrow v1.0: the payer approves Permit2 once, the gate
// pays a loopback seller whose option names the escrow and the chain's
// token, the seller as operator authorizes the payment (Permit2 moves the
// maximum into escrow) and captures it to the receiver, and the demo reads H
// back as the salt of the landed call's payment info, whose hash the
// escrow's PaymentAuthorized log names.
func SettleEscrow(ctx context.Context, s *demo.Session) error {
	say := s.Say
	fail := func(what string, err error) error { return fmt.Errorf("%s: %w", what, err) }
	payer, err := signer.FromHex(signer.AnvilKey, simchain.Network)
	if err != nil {
		return fail("the payer", err)
	}
	payerKey, err := crypto.HexToECDSA(signer.AnvilKey[2:])
	if err != nil {
		return fail("the payer", err)
	}
	chain, err := simchain.New("USDC", "2", big.NewInt(1_000_000), payer.Address())
	if err != nil {
		return fail("cannot start the simulated chain", err)
	}
	defer chain.Close()
	const receiver = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	now := time.Now().Unix()
	seller := x402seller.New(demo.ATR, x402seller.DemoBody)
	seller.Option = jsonv.Obj("scheme", "auth-capture", "network", simchain.Network, "amount", "10000",
		"asset", chain.Token.Hex(), "payTo", receiver, "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("name", "USDC", "version", "2", "captureAuthorizer", chain.Facilitator().Hex(),
			"captureDeadline", now+3600, "refundDeadline", now+86400, "feeRecipient", chain.Facilitator().Hex(),
			"minFeeBps", 0, "maxFeeBps", 100, "assetTransferMethod", "permit2",
			"authCaptureEscrow", permit2contracts.Escrow.Address.Hex()))
	// The seller checks that the payment's chain of commitments carries H of
	// its terms; the escrow, its collector and Permit2 check the rest.
	seller.Verify = func(payment *jsonv.Object, h atr.Hash, _ time.Time) (string, error) {
		got, err := evm.AuthCapturePermit2{}.Bound(payment)
		if err != nil {
			return "", err
		}
		if got != h.String() {
			return "", errors.New("the payment does not carry H")
		}
		p, err := permit2contracts.EscrowPaymentOf(payment)
		if err != nil {
			return "", err
		}
		return p.Info.Payer.Hex(), nil
	}
	seller.Settler = chain.EscrowSettler
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller", err)
	}
	defer srv.Close()

	say("termsgate demo --settle --rail %s: a seller on %s (TLS, loopback only) sells %s", evm.AuthCapturePermit2ID, srv.Listener.Addr(), seller.ResourceURL())
	say("chain: go-ethereum's simulated chain %s, in this process; token %s (internal/eip3009token)", simchain.Network, chain.Token.Hex())
	say("contracts, built from their published sources (internal/permit2contracts), at their canonical addresses:")
	say("   Permit2 %s, AuthCaptureEscrow v1.0 %s, its Permit2PaymentCollector %s",
		permit2contracts.Permit2.Address.Hex(), permit2contracts.Escrow.Address.Hex(), permit2contracts.Permit2Collector.Address.Hex())
	say("payer: %s (the published Anvil development key), holding 1.000000 of the token; operator %s", payer.Account(), chain.Facilitator().Hex())
	say("")
	say("0. setup: the payer approves Permit2 to move its tokens, once")
	approval, landed, err := chain.ApprovePermit2(ctx, payerKey)
	if err != nil {
		return fail("the approval", err)
	}
	say("   approve(Permit2, 2^256-1): transaction %s, block %d, status %d", approval, landed.Block, landed.Status)
	say("1. the gate fetches the terms, compares SHA-256 of the exact bytes with the advertised H, and signs a Permit2")
	say("   PermitTransferFrom to the escrow's collector whose nonce is the payment hash of a payment info whose salt is H")
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
	say("2. the seller, as operator, authorized it on the escrow: authorize(paymentInfo, 10000, collector, signature);")
	say("   the collector had Permit2 move the tokens into the operator's token store")
	tx := res.Settlement.Transaction
	landed, err = chain.Node.Receipt(ctx, tx)
	if err != nil || landed == nil {
		return fail("no receipt for "+tx, err)
	}
	say("   transaction %s", tx)
	say("   landed in block %d with status %d", landed.Block, landed.Status)
	authorized, paymentHash, err := chain.AuthorizedEscrow(ctx, tx)
	if err != nil {
		return fail("reading the authorization back", err)
	}
	salt := simchain.Salt(authorized.Info)
	say("   read back from the landed call: payment info salt %s, payer %s, receiver %s", salt, authorized.Info.Payer.Hex(), authorized.Info.Receiver.Hex())
	say("   log PaymentAuthorized(payment hash %s), the hash of that payment info", paymentHash)
	if salt != res.H {
		return fmt.Errorf("the landed payment info's salt %s is not H %s", salt, res.H)
	}
	say("   the salt is H: the escrow records that this payment agreed to these exact terms")
	payment, _ := jsonv.AsObject(res.Signed)
	before, err := chain.BalanceOf(ctx, authorized.Info.Receiver)
	if err != nil {
		return fail("the receiver's balance", err)
	}
	capture, _, err := chain.CaptureEscrow(ctx, chain.Deployer, payment, big.NewInt(10000), 0)
	if err != nil {
		return fail("the capture", err)
	}
	after, err := chain.BalanceOf(ctx, authorized.Info.Receiver)
	if err != nil {
		return fail("the receiver's balance", err)
	}
	say("3. the operator captured it: capture(paymentInfo, 10000, 0, feeReceiver), transaction %s;", capture)
	say("   the receiver's balance rose by %s", new(big.Int).Sub(after, before))
	say("4. the same payment authorized again")
	if _, _, err = chain.AuthorizeEscrow(ctx, chain.Deployer, payment, nil, 0); err == nil {
		return errors.New("the replayed payment was authorized")
	}
	say("   refused by the escrow: %s", permit2contracts.RevertName(err))
	offer, err := seller.Required()
	if err != nil {
		return err
	}
	if err := s.KeepPayment(res.ATR, x402.EncodeHeader(offer), res.Signed); err != nil {
		return err
	}
	s.Paid(demo.Amount("10000", 6, "USDC", simchain.Network) + " (authorized in block " + strconv.FormatUint(landed.Block, 10) + ", then captured)")
	return nil
}
