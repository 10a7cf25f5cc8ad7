package cardanoseller

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
)

// The Cardano demo pays its loopback seller, which verifies the
// transaction and submits it to a node that checks it as the ledger would,
// and declines planted terms unsigned.
func TestDemoExact(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "cardano", "")
	if err != nil || !strings.Contains(paid, "2000000 atomic units) on cardano:preprod") {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"answered 200", "declined hash-mismatch", "signer calls for it: 0", "read it settled"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in\n%s", want, out)
		}
	}
}
