package main

import (
	"strings"
	"testing"
)

// The Stellar demo pays its loopback seller, which verifies the signed
// authorization, and declines planted terms with no signer call.
func TestDemoStellarPaysEndToEnd(t *testing.T) {
	code, out, errs := runCLI(t, "", "demo", "--rail", "stellar")
	if code != exitOK {
		t.Fatalf("demo exit %d: %s\n%s", code, errs, out)
	}
	for _, want := range []string{"muxed with id 10024469772855295850, H's first 8 bytes", "2 RPC calls", "signer calls: 1", "answered 200", "declined hash-mismatch", "signer calls for it: 0", "paid 10000000 atomic units of the token CADAM"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
