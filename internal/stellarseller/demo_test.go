package stellarseller

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
)

// The Stellar demo pays its loopback seller, which verifies the signed
// authorization, and declines planted terms with no signer call.
func TestDemoStellarPaysEndToEnd(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "stellar", "")
	if err != nil || paid != "10000000 atomic units of the token "+Asset+" on stellar:testnet" {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"muxed with id 10024469772855295850, H's first 8 bytes", "2 RPC calls", "signer calls: 1", "answered 200", "declined hash-mismatch", "signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
