package hederaseller

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
)

// The Hedera demo: one signature over a body whose memo carries H; the
// seller verifies it and co-signs; the lying link is declined unsigned.
func TestDemoExact(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "hedera", "")
	if err != nil || paid != "0.00001 HBAR (1000 atomic units) on "+Testnet {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"signer calls: 1", "memo carries H = 0x8b1e", "verified the payer's Ed25519 signature", "answered 200",
		"declined hash-mismatch; signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// The MPP Hedera demo: one signature over a body of three rows whose memo is
// the challenge's attribution memo; the seller verifies it; the lying link
// is declined unsigned.
func TestDemoCharge(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "mpp-hedera", "")
	if err != nil || paid != "0.00001 HBAR (1000 atomic units) on "+Testnet {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"signer calls: 1", "memo 0xef1ed712", "the three rows", "answered 200",
		"declined hash-mismatch; signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
