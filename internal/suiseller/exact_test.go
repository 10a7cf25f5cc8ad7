package suiseller

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
)

// The Sui demo pays its loopback seller, which verifies and executes the
// transaction as the network would, and declines planted terms unsigned.
func TestDemoExact(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "sui", "")
	if err != nil || !strings.Contains(paid, "10000 atomic units) on sui:testnet") {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"answered 200", "declined hash-mismatch", "signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in\n%s", want, out)
		}
	}
}
