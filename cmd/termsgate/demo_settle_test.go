package main

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/settledemo"
)

// TestDemoSettle runs `demo --settle` with the in-process chain linked in, as
// a binary built with -tags simchain has it (tests may compile go-ethereum's
// node; the default binary does not): the landed AuthorizationUsed log
// carries H.
func TestDemoSettle(t *testing.T) {
	code, _, errs := runCLI(t, "", "demo", "--settle", "--rail", "mpp-tempo")
	if code != exitUsage || !strings.Contains(errs, "--settle settles the x402 rail") {
		t.Fatalf("--settle with another rail: exit %d: %s", code, errs)
	}
	if settleDemo == nil {
		code, _, errs := runCLI(t, "", "demo", "--settle")
		if code != exitUsage || !strings.Contains(errs, "-tags simchain") {
			t.Fatalf("a binary without the chain: exit %d: %s", code, errs)
		}
		settleDemo = func(stdout, stderr io.Writer) int {
			if err := settledemo.Run(stdout, demoATR, demoBody); err != nil {
				fmt.Fprintln(stderr, err)
				return exitFailure
			}
			return exitOK
		}
		defer func() { settleDemo = nil }()
	}
	code, out, errs := runCLI(t, "", "demo", "--settle")
	if code != exitOK {
		t.Fatalf("demo --settle exit %d: %s\n%s", code, errs, out)
	}
	h := atr.Sum(demoATR).String()
	for _, want := range []string{"landed in block", "with status 1", "log AuthorizationUsed(", "nonce " + h + ")", "read back from the transaction alone (rails/evm Recover): " + h, "authorization is used"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo --settle output lacks %q:\n%s", want, out)
		}
	}
}
