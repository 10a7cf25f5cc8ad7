package nearseller

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
)

// The NEAR demo pays its loopback seller, which verifies and relays the
// delegate action as a facilitator and the runtime would, and declines
// planted terms unsigned.
func TestDemoExact(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "near", "")
	if err != nil || paid != "1 USDC (1000000 atomic units) on near:testnet" {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"answered 200", "declined hash-mismatch", "signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in\n%s", want, out)
		}
	}
}
