package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestPayVerboseSaysEachStepOnce: pay -v prints each step once, the payment's
// summary once (after the steps), and no raw log record (time=… level=…
// msg=…) among them.
func TestPayVerboseSaysEachStepOnce(t *testing.T) {
	s := newPaySeller(t)
	code, _, errs := runCLI(t, "", "pay", "-v", "--dev-key", "--max-amount", "10000", s.ResourceURL())
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, step := range []string{
		`sending GET https://\S+$`,
		`the seller answered 402 Payment Required$`,
		`fetching the ATR at https://`,
		`the ATR's hash matched`,
		`asking the policy$`,
		`asking the signer to sign a eip712 request$`,
		`sending GET https://\S+ with the payment$`,
		`the seller answered 200 OK$`,
		`signed 10000 atomic units of USDC`,
	} {
		if n := len(regexp.MustCompile(`(?m)^termsgate: +(\d+ ms  )?`+step).FindAllString(errs, -1)); n != 1 {
			t.Errorf("%d lines of %q, want 1:\n%s", n, step, errs)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(errs), "\n") {
		if !strings.HasPrefix(line, "termsgate: ") || regexp.MustCompile(`\b(time|level|msg)=`).MatchString(line) {
			t.Errorf("a line that is no step: %q", line)
		}
	}
}
