package algorandseller

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
)

// The Algorand demo pays its loopback seller, which checks the group as
// its facilitator and the ledger would, and declines planted terms
// unsigned.
func TestDemoExact(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "algorand", "")
	if err != nil || paid != "0.01 USDC (10000 atomic units) on algorand:SGO1GKSzyE7IEPItTxCByw9x8FmnrCDe" {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"answered 200", "declined hash-mismatch", "signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in\n%s", want, out)
		}
	}
}
