package starknetseller

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
)

// The Starknet demo pays its loopback seller, whose node's account contract
// verifies the signature as the chain would, and declines planted terms
// unsigned.
func TestDemoExact(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "starknet", "")
	if err != nil || !strings.Contains(paid, "10000000000000 atomic units) on starknet:SN_SEPOLIA") {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"answered 200", "declined hash-mismatch", "signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in\n%s", want, out)
		}
	}
}
