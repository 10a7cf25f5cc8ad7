package simchain_test

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/permit2contracts"
	"github.com/termsgate/termsgate/internal/simchain"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

// escrowSeller sells on the simulated chain's token through the v1.0
// commerce-payments escrow by Permit2, the chain's deployer its operator.
// The salt is H itself (the option names no receiver authorizer or policy).
func escrowSeller(c *simchain.Chain, terms []byte) *x402seller.Seller {
	s := x402seller.New(terms, []byte(`{"report":"paid"}`))
	now := time.Now().Unix()
	s.Option = jsonv.Obj("scheme", "auth-capture", "network", simchain.Network, "amount", "10000",
		"asset", c.Token.Hex(), "payTo", payee.Hex(), "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("name", "USDC", "version", "2", "captureAuthorizer", c.Facilitator().Hex(),
			"captureDeadline", now+3600, "refundDeadline", now+86400,
			"feeRecipient", c.Facilitator().Hex(), "minFeeBps", 0, "maxFeeBps", 100,
			"assetTransferMethod", "permit2", "authCaptureEscrow", permit2contracts.Escrow.Address.Hex()))
	s.Verify = func(payment *jsonv.Object, h atr.Hash, _ time.Time) (string, error) {
		got, err := (evm.AuthCapturePermit2{}).Bound(payment)
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
	return s
}

// TestAuthCapturePermit2SettlesOnChain: termsgate pays a loopback seller by
// x402/auth-capture/eip155/permit2; its operator authorizes the payment on
// the commerce-payments escrow (v1.0), whose Permit2 collector has Permit2
// move the tokens into escrow, then captures it to the receiver. The landed
// authorize carries the payment info whose salt is H, and the escrow's
// PaymentAuthorized log names its payment hash, the nonce the payer signed.
func TestAuthCapturePermit2SettlesOnChain(t *testing.T) {
	ctx := context.Background()
	c := newChain(t)
	wallet := payer(t)
	key, err := crypto.HexToECDSA(signer.AnvilKey[2:])
	if err != nil {
		t.Fatal(err)
	}
	if _, l, err := c.ApprovePermit2(ctx, key); err != nil || l.Status != 1 {
		t.Fatalf("approve: %v", err)
	}
	s := escrowSeller(c, termsB)
	srv, err := loopback.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	other := payPermit2(t, s, srv, wallet, 10000).Signed.(*jsonv.Object)

	h := atr.Sum(termsA)
	s.SetATR(termsA)
	s.Settler = c.EscrowSettler
	payerBefore := balance(t, c, wallet.Address())
	res := payPermit2(t, s, srv, wallet, 10000)
	if res.H != h || res.Settlement == nil || !res.Settlement.Success {
		t.Fatalf("paid %s, settlement %+v, %v", res.H, res.Settlement, s.LastRejection())
	}
	if got := new(big.Int).Sub(payerBefore, balance(t, c, wallet.Address())); got.Cmp(big.NewInt(10000)) != 0 {
		t.Fatalf("the payer's balance fell by %s, not 10000", got)
	}
	tx := res.Settlement.Transaction
	authorized, paymentHash, err := c.AuthorizedEscrow(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	if simchain.Salt(authorized.Info) != h || authorized.Info.Payer != wallet.Address() || authorized.Info.Receiver != payee ||
		authorized.Collector != permit2contracts.Permit2Collector.Address || authorized.Amount.Cmp(big.NewInt(10000)) != 0 {
		t.Fatalf("the landed authorize: %+v", authorized)
	}
	// The payer signed a Permit2 nonce that is the payment hash with the
	// payer zero; Permit2 records it used.
	agnostic := authorized.Info.EVMInfo()
	agnostic.Payer = "0x0000000000000000000000000000000000000000"
	signed, _ := agnostic.Hash(simchain.ChainID, permit2contracts.Escrow.Address.Hex())
	if used, err := c.Permit2NonceUsed(ctx, wallet.Address(), signed); err != nil || !used {
		t.Fatalf("Permit2 holds the payer-agnostic payment hash %s used: %v, %v", signed, used, err)
	}
	reader, err := c.Reader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := (evm.AuthCapturePermit2{}).Reference(res.Signed)
	if err != nil {
		t.Fatal(err)
	}
	binding, _ := ref.GetObject("bindingLog")
	if v, _ := binding.GetString("value"); !evm.SameBytes(v, paymentHash.String()) {
		t.Fatalf("the reference's binding log %s, the landed payment hash %s", jsonv.String(binding), paymentHash)
	}
	ref.Set("transaction", tx)
	if st := (evm.AuthCapturePermit2{}).Status(ref, reader); st.State != evm.StateSettled {
		t.Fatalf("Status: %s", jsonv.String(st.JSON()))
	}
	payment := res.Signed.(*jsonv.Object)
	t.Run("capture pays the receiver", func(t *testing.T) {
		before := balance(t, c, payee)
		if _, l, err := c.CaptureEscrow(ctx, c.Deployer, payment, big.NewInt(10000), 0); err != nil || l.Status != 1 {
			t.Fatalf("capture: %v", err)
		}
		if got := new(big.Int).Sub(balance(t, c, payee), before); got.Cmp(big.NewInt(10000)) != 0 {
			t.Fatalf("the receiver got %s", got)
		}
	})
	refusedAuthorize := func(t *testing.T, p *jsonv.Object, name string) {
		t.Helper()
		before := balance(t, c, wallet.Address())
		if _, _, err := c.AuthorizeEscrow(ctx, c.Deployer, p, nil, 0); err == nil || permit2contracts.RevertName(err) != name {
			t.Fatalf("estimate: want %s, got %q (%v)", name, permit2contracts.RevertName(err), err)
		}
		hash, l, err := c.AuthorizeEscrow(ctx, c.Deployer, p, nil, 600_000)
		if !errors.Is(err, evmrpc.ErrReverted) || l == nil || l.Status != 0 || l.Hash != hash {
			t.Fatalf("sent anyway: %v %+v", err, l)
		}
		if after := balance(t, c, wallet.Address()); after.Cmp(before) != 0 {
			t.Fatalf("a refused authorize moved %s", new(big.Int).Sub(before, after))
		}
	}
	t.Run("replay", func(t *testing.T) { refusedAuthorize(t, payment, "PaymentAlreadyCollected") })
	t.Run("salt not the signed H", func(t *testing.T) {
		// B's signature with another hash as salt: the payment hash is
		// another, so the nonce Permit2 checks is not the one signed.
		forged := other.Clone()
		path(t, forged, "payload").Set("salt", atr.Sum(termsC).String())
		refusedAuthorize(t, forged, "InvalidSigner")
	})
	t.Run("wrong receiver", func(t *testing.T) {
		redirected := other.Clone()
		path(t, redirected, "accepted").Set("payTo", "0x90F79bf6EB2c4f870365E785982E1f101E93b906")
		refusedAuthorize(t, redirected, "InvalidSigner")
	})
	t.Run("not the operator", func(t *testing.T) {
		if _, _, err := c.AuthorizeEscrow(ctx, key, other, nil, 0); permit2contracts.RevertName(err) != "InvalidSender" {
			t.Fatalf("the payer as operator: %q (%v)", permit2contracts.RevertName(err), err)
		}
	})
}
