package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/settledemo"
	"github.com/termsgate/termsgate/rails/evm"
)

// TestDemoSettle runs `demo --settle` with the in-process chain linked in, as
// a binary built with -tags simchain has it (tests may compile go-ethereum's
// node; the default binary does not): the landed AuthorizationUsed log
// carries H, and the closing line says what was paid and settled.
func TestDemoSettle(t *testing.T) {
	if r, _ := demo.Lookup(evm.ExactEIP3009ID); r.Settle == nil {
		code, _, errs := runCLI(t, "", "demo", "--settle")
		if code != exitUsage || !strings.Contains(errs, "-tags simchain") {
			t.Fatalf("a binary without the chain: exit %d: %s", code, errs)
		}
	}
	settledemo.Register()
	code, _, errs := runCLI(t, "", "demo", "--settle", "--rail", "mpp-tempo")
	if code != exitUsage || !strings.Contains(errs, "--settle settles x402/auth-capture/eip155/permit2, x402/exact/eip155/eip3009, x402/exact/eip155/permit2, x402/upto/eip155/permit2, not mpp/charge/tempo/memo") {
		t.Fatalf("--settle with another rail: exit %d: %s", code, errs)
	}
	dir := t.TempDir()
	code, out, errs := runCLI(t, "", "demo", "--settle", "--out", dir)
	if code != exitOK {
		t.Fatalf("demo --settle exit %d: %s\n%s", code, errs, out)
	}
	h := atr.Sum(demo.ATR).String()
	for _, want := range []string{"landed in block", "with status 1", "log AuthorizationUsed(", "nonce " + h + ")",
		"read back from the transaction alone (rails/evm Recover): " + h, "authorization is used",
		"paid 0.01 USDC (10000 atomic units) on eip155:1337 (settled in block "} {
		if !strings.Contains(out, want) {
			t.Errorf("demo --settle output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "payment")); err != nil {
		t.Errorf("demo --settle --out kept no payment: %v", err)
	}
}
