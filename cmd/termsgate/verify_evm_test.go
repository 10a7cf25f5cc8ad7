package main

import (
	"math/big"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/simchain"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/signer"
)

// TestSettlementCLIEVM: `pay --verify-settlement --rpc URL` on an eip155
// chain reads the receipt the seller's PAYMENT-RESPONSE names from the node
// (go-ethereum's simulated chain over loopback HTTP) and exits 0 only when
// it shows the payment; a seller that names a transaction the chain does
// not hold makes pay exit 3, saying what does not hold; a node of another
// chain is a usage error before anything is signed.
func TestSettlementCLIEVM(t *testing.T) {
	payer, err := signer.FromHex(signer.AnvilKey, simchain.Network)
	if err != nil {
		t.Fatal(err)
	}
	c, err := simchain.New("USDC", "2", big.NewInt(1_000_000), payer.Address())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	node := httptest.NewServer(c.Handler())
	defer node.Close()
	seller := x402seller.New([]byte(`{"atrVersion":"1","id":"cli-verify"}`), []byte(`{"report":"paid"}`))
	seller.Option = jsonv.Obj("scheme", "exact", "network", simchain.Network, "amount", "10000",
		"asset", c.Token.Hex(), "payTo", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("name", "USDC", "version", "2"))
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
	payCLI := func(network string) (int, string, string) {
		return runCLI(t, "", "pay", "--dev-key", "--network", network, "--max-amount", "10000", "--allow-private", "--ca-file", pem,
			"--state", state, "--verify-settlement", "--rpc", node.URL, "https://"+host+seller.ResourcePath)
	}

	seller.Settler = c.Settler
	code, out, errs := payCLI(simchain.Network)
	if code != exitOK || !strings.Contains(errs, "settlement checked on chain: transaction 0x") || !strings.Contains(out, "paid") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}

	seller.SetATR([]byte(`{"atrVersion":"1","id":"cli-verify-unsettled"}`))
	seller.Settler = nil // the answer names 0x00…00
	code, _, errs = payCLI(simchain.Network)
	if code != exitFailure || !strings.Contains(errs, "settlement does NOT hold: not-landed") || !strings.Contains(errs, `"why":"not-found"`) {
		t.Fatalf("exit %d\n%s", code, errs)
	}

	// The journal keeps both reads with their payments, newest first.
	code, out, errs = runCLI(t, "", "payments", "--state", state, "--all", "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitOK || len(lines) != 2 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	unsettled, _ := jsonv.Parse([]byte(lines[0]))
	settled, _ := jsonv.Parse([]byte(lines[1]))
	if got := jsonv.String(mustSettlement(t, unsettled)); !strings.Contains(got, `"settled":false,"status":{"state":"pending","why":"not-found"},"problems":["not-landed"]`) {
		t.Fatalf("unsettled: %s", got)
	}
	if got := jsonv.String(mustSettlement(t, settled)); !strings.Contains(got, `"settled":true,"status":{"state":"settled"`) || !strings.Contains(got, `"moved":"10000"`) {
		t.Fatalf("settled: %s", got)
	}
	if code, out, _ = runCLI(t, "", "payments", "--state", state, "--all"); !strings.Contains(out, "settlement does NOT hold: not-landed") ||
		!strings.Contains(out, "settlement checked: transaction 0x") {
		t.Fatalf("exit %d\n%s", code, out)
	}

	paid := seller.Paid.Load()
	code, _, errs = payCLI("eip155:8453")
	if code != exitUsage || !strings.Contains(errs, "--rpc serves eip155:1337, not --network eip155:8453") || seller.Paid.Load() != paid {
		t.Fatalf("exit %d\n%s", code, errs)
	}
}

func mustSettlement(t *testing.T, line jsonv.Value) *jsonv.Object {
	t.Helper()
	o, _ := jsonv.AsObject(line)
	s, ok := o.GetObject("settlement")
	if !ok {
		t.Fatalf("no settlement in %s", jsonv.String(line))
	}
	return s
}
