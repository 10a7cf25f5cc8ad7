package main

import (
	"bytes"
	"context"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/xrpl"
	"github.com/termsgate/termsgate/rails/xrpl/xrplrpc"
	"github.com/termsgate/termsgate/signer"
)

func TestDemoXRPL(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := demoXRPL(&out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, errOut.String(), out.String())
	}
	for _, want := range []string{"answered 200", "declined hash-mismatch", "signer calls for it: 0"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("no %q in\n%s", want, out.String())
		}
	}
}

// The CLI's XRPL keys: the published payer for --dev-key, a seed file
// (owner-only) for --key-file, on an xrpl network only.
func TestXRPLChainKeys(t *testing.T) {
	var stderr bytes.Buffer
	k := &keyFlags{network: "xrpl:1", devKey: true}
	s, err := k.signer(&stderr)
	if err != nil || s.Account() != "xrpl:1:r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC" {
		t.Fatalf("dev key: %v, %v", s, err)
	}
	if !strings.Contains(stderr.String(), "PUBLISHED xrpl") {
		t.Fatalf("no warning: %q", stderr.String())
	}
	dir := t.TempDir()
	seedFile := filepath.Join(dir, "seed")
	seed := xrpl.EncodeSeed(signer.XRPLDevEntropy, xrpl.Ed25519)
	if err := os.WriteFile(seedFile, []byte(seed+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k = &keyFlags{network: "xrpl:1", keyFile: seedFile}
	if _, err := k.signer(&stderr); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Fatalf("a world-readable seed file: %v", err)
	}
	if err := os.Chmod(seedFile, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = k.signer(&stderr)
	if err != nil || s.Account() != "xrpl:1:r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC" {
		t.Fatalf("seed file: %v, %v", s, err)
	}
	// It signs what the XRPL pairings ask, and nothing for another account.
	tx := jsonv.Obj("TransactionType", "Payment", "Flags", 0, "Account", "rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN",
		"Destination", "r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC", "Amount", "1", "Fee", "12", "Sequence", 1)
	if _, err := s.Sign(context.Background(), jsonv.Obj("kind", xrpl.KindTx, "txJson", tx)); err == nil {
		t.Fatal("signed a transaction of another account")
	}
	k = &keyFlags{network: "xrpl:one", devKey: true}
	if _, err := k.signer(&stderr); err == nil {
		t.Fatal("a malformed xrpl network was accepted")
	}
}

// --xrpl-rpc gives the transport the XRPL inputs for the signer's account.
func TestXRPLRPCFlag(t *testing.T) {
	ledger := &xrplrpc.Ledger{Current: 500, BaseFee: 10, OpenFee: 10, Accounts: map[string]uint32{"r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC": 3}}
	srv := httptest.NewServer(ledger)
	defer srv.Close()
	fs := flag.NewFlagSet("pay", flag.ContinueOnError)
	x := addXRPLFlags(fs)
	if err := fs.Parse([]string{"--xrpl-rpc", srv.URL}); err != nil {
		t.Fatal(err)
	}
	s, _ := signer.XRPLDev("xrpl:1")
	in := x.inputs(s, srv.Client())
	if got := jsonv.String(in(xrpl.ChargeID)); got != `{"fee":"10","sequence":3,"lastLedgerSequence":520}` {
		t.Fatalf("inputs %s", got)
	}
	evm, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if x.inputs(evm, srv.Client()) != nil {
		t.Fatal("XRPL inputs for an EVM signer")
	}
}
