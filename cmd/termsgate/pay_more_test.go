package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/termsgatetest"
)

// payAt starts termsgatetest's seller and points pay's client at it.
func payAt(t *testing.T, cfg termsgatetest.Config) *termsgatetest.Seller {
	t.Helper()
	s, err := termsgatetest.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	old := payClient
	payClient = func(bool) *http.Client { return s.Client() }
	t.Cleanup(func() { payClient = old })
	return s
}

// Looking before having a wallet (issue 21 item 6): pay --dry-run without a
// key shows the offer, the signature it would ask for and what the limits
// say, and sends no payment.
func TestPayDryRunWithoutAKey(t *testing.T) {
	s := payAt(t, termsgatetest.Config{})
	code, out, errs := runCLI(t, "", "pay", "--dry-run", s.URL)
	if code != exitOK || out != "" ||
		!strings.Contains(errs, "dry run without a key: shown for the published development account eip155:84532:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266") ||
		!strings.Contains(errs, "the offer asks for:\ntermsgate:   x402 exact: 10000 of 0x036CbD53842c5426634e7929541eC2318f3dCF7e on eip155:84532 (x402/exact/eip155/eip3009)") ||
		!strings.Contains(errs, "asks for a signature granting 10000 atomic units of USDC") ||
		!strings.Contains(errs, "no limits given: pay needs --max-amount, at least 10000 for this payment") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	code, out, errs = runCLI(t, "", "pay", "--dry-run", "--max-amount", "10000", s.URL)
	if code != exitOK || !strings.Contains(errs, "the limits allow it (--max-amount 10000)") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	code, out, errs = runCLI(t, "", "pay", "--dry-run", "--max-amount", "9999", s.URL)
	if code != exitDeclined || !strings.Contains(out, "policy/amount-above-maximum: 10000 of eip155:84532") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	if c := s.Counts(); c.Paid != 0 || c.Rejected != 0 {
		t.Fatalf("a dry run sent a payment: %+v", c)
	}
}

// A no-payable-option names what the offer asks for and the flag that
// would match (issue 21 item 7): the MPP seller's Tempo charge is paid with
// --network eip155:42431.
func TestPayNoPayableOptionSaysWhatMatches(t *testing.T) {
	s := payAt(t, termsgatetest.Config{Protocol: termsgatetest.MPP})
	code, out, errs := runCLI(t, "", "pay", "--dev-key", "--max-amount", "1000000", s.URL)
	if code != exitDeclined || !strings.Contains(out, `"no-payable-option"`) ||
		!strings.Contains(errs, "mpp charge/tempo: 1000000 of 0x20c0000000000000000000000000000000000000 on eip155:42431 (mpp/charge/tempo/memo)") ||
		!strings.Contains(errs, "hint: the signer's network is eip155:84532; --network eip155:42431 would match") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	code, out, errs = runCLI(t, "", "pay", "--dev-key", "--network", "eip155:42431", "--max-amount", "1000000", s.URL)
	if code != exitOK || !strings.Contains(out, `"report":"paid"`) {
		t.Fatalf("with the flag the hint names: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
}

// A budget-exhausted decline says what was spent, the ceiling and the
// state file (issue 21 item 8).
func TestPayBudgetExhaustedSaysWhatWasSpent(t *testing.T) {
	s := payAt(t, termsgatetest.Config{})
	state := filepath.Join(t.TempDir(), "state.db")
	if code, _, errs := runCLI(t, "", "pay", "--dev-key", "--max-amount", "10000", "--state", state, s.URL); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, out, errs := runCLI(t, "", "pay", "--dev-key", "--max-amount", "10000", "--budget", "15000", "--state", state, s.URL)
	if code != exitDeclined || !strings.Contains(out, "policy/budget-exhausted") ||
		!strings.Contains(errs, "the budget of eip155:84532 0x036cbd53842c5426634e7929541ec2318f3dcf7e: 10000 spent of 15000, counted in "+state+"; this payment asks 10000 more") ||
		!strings.Contains(errs, "termsgate budget shows every budget") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
}
