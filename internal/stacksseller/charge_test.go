package stacksseller

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
)

// The Stacks demo pays its loopback seller, which verifies, broadcasts and
// reads the transfer settled, and declines planted terms unsigned.
func TestDemoCharge(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "stacks", "")
	if err != nil || !strings.Contains(paid, "1000000 atomic units) on stacks:2147483648") {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"answered 200", "settled in block 9021832", "declined hash-mismatch", "signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in\n%s", want, out)
		}
	}
}
