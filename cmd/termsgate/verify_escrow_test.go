package main

import (
	"context"
	"errors"
	"math/big"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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
)

// TestSettlementCLIAuthCapture: `pay --verify-settlement --rpc URL` on an
// x402/auth-capture/eip155/permit2 offer reads the operator's authorize on
// the simulated chain's commerce-payments escrow and exits 0; a seller
// naming the payer's plain transfer instead makes pay exit 3 with no-h.
func TestSettlementCLIAuthCapture(t *testing.T) {
	ctx := context.Background()
	payer, err := signer.FromHex(signer.AnvilKey, simchain.Network)
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.HexToECDSA(signer.AnvilKey[2:])
	if err != nil {
		t.Fatal(err)
	}
	c, err := simchain.New("USDC", "2", big.NewInt(1_000_000), payer.Address())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, l, err := c.ApprovePermit2(ctx, key); err != nil || l.Status != 1 {
		t.Fatalf("approve: %v", err)
	}
	node := httptest.NewServer(c.Handler())
	defer node.Close()
	payee := "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	seller := x402seller.New([]byte(`{"atrVersion":"1","id":"cli-escrow"}`), []byte(`{"report":"paid"}`))
	now := time.Now().Unix()
	seller.Option = jsonv.Obj("scheme", "auth-capture", "network", simchain.Network, "amount", "10000",
		"asset", c.Token.Hex(), "payTo", payee, "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("name", "USDC", "version", "2", "captureAuthorizer", c.Facilitator().Hex(),
			"captureDeadline", now+3600, "refundDeadline", now+86400,
			"feeRecipient", c.Facilitator().Hex(), "minFeeBps", 0, "maxFeeBps", 100,
			"assetTransferMethod", "permit2", "authCaptureEscrow", permit2contracts.Escrow.Address.Hex()))
	seller.Verify = func(payment *jsonv.Object, h atr.Hash, _ time.Time) (string, error) {
		if got, err := (evm.AuthCapturePermit2{}).Bound(payment); err != nil || got != h.String() {
			return "", errors.New("the payment does not carry H")
		}
		return payer.Address().Hex(), nil
	}
	srv, err := loopback.Start(seller, "localhost")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	host := srv.Listener.Addr().String()
	seller.ATRHost, seller.APIHost = host, host
	pem := filepath.Join(t.TempDir(), "seller.pem")
	if err := os.WriteFile(pem, srv.CertificatePEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state.db")
	payCLI := func() (int, string, string) {
		return runCLI(t, "", "pay", "--dev-key", "--network", simchain.Network, "--max-amount", "10000", "--allow-private", "--ca-file", pem,
			"--state", state, "--verify-settlement", "--rpc", node.URL, "https://"+host+seller.ResourcePath)
	}

	seller.Settler = c.EscrowSettler
	code, out, errs := payCLI()
	if code != exitOK || !strings.Contains(errs, "settlement checked on chain: transaction 0x") || !strings.Contains(out, "paid") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}

	seller.SetATR([]byte(`{"atrVersion":"1","id":"cli-escrow-plain"}`))
	seller.Settler = func(ctx context.Context, _ *jsonv.Object) (string, error) {
		hash, _, err := c.Transact(ctx, key, &c.Token, evm.TransferCalldata(payee, big.NewInt(10000)), 0)
		return hash, err
	}
	code, _, errs = payCLI()
	if code != exitFailure || !strings.Contains(errs, "settlement does NOT hold: no-h") {
		t.Fatalf("exit %d\n%s", code, errs)
	}
}
