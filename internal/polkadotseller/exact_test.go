package polkadotseller

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
)

// The Polkadot demo pays its loopback seller, whose chain checks and lands
// the extrinsic as the runtime would, and declines planted terms unsigned.
func TestDemoExact(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "polkadot", "")
	if err != nil || !strings.Contains(paid, "10000 atomic units) on polkadot:68d56f15f85d3136970ec16946040bc1") {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"answered 200", "declined hash-mismatch", "signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in\n%s", want, out)
		}
	}
}
