package ccdseller

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
)

// The Concordium demo pays its loopback seller, which verifies, sponsors
// and submits the transaction as the facilitator and chain would, and
// declines planted terms unsigned.
func TestDemoExact(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "ccd", "")
	if err != nil || !strings.Contains(paid, "1000 atomic units) on "+Network) {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"answered 200", "declined hash-mismatch", "signer calls for it: 0", "GetBlockItemStatus"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in\n%s", want, out)
		}
	}
}
