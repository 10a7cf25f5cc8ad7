package solanaseller

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
)

// The Solana demo: one signature, whose memo carries H; the seller verifies
// it with solana-go and co-signs; the lying link is declined unsigned.
func TestDemoExact(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "solana", "")
	if err != nil || paid != "0.001 USDC (1000 atomic units) on "+Devnet {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"signer calls: 1", "memo carries H = 0x8b1e", "verified the payer's signature", "answered 200",
		"declined hash-mismatch; signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// The session demo opens a channel whose salt carries H, pays two
// vouchers the seller verifies with solana-go, closes, and then declines
// changed terms with no signer call.
func TestDemoSession(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "session-solana", "")
	if err != nil || !strings.HasPrefix(paid, "0.00005 USDC (50 atomic units) on "+Devnet) {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"a voucher for a cumulative 50", "closed at the recorded charge 50", "declined hash-mismatch; signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
	}
}

// The MPP charge demos: one signature whose LCP memo is the request's
// externalId; the seller verifies it with solana-go and co-signs; the
// lying link is declined unsigned.
func TestDemoCharge(t *testing.T) {
	for _, rail := range []string{"mpp/charge/solana", "mpp/charge/usdc/solana"} {
		out, paid, err := demo.Play(context.Background(), rail, "")
		if err != nil || paid != "0.001 USDC (1000 atomic units) on "+Devnet {
			t.Fatalf("%s demo: %v (paid %q)\n%s", rail, err, paid, out)
		}
		for _, want := range []string{"signer calls: 1", "request.externalId = lcp:sha256:0x8b1e", "verified the payer's signature", "answered 200",
			"declined hash-mismatch; signer calls for it: 0"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s demo output lacks %q:\n%s", rail, want, out)
			}
		}
	}
}

// The upto demo: one signature over an opening that escrows the maximum,
// whose memo carries H; the seller verifies it with solana-go and
// co-signs; the lying link is declined unsigned.
func TestDemoUpto(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "x402/upto/solana", "")
	if err != nil || paid != "0.01 USDC (10000 atomic units) on "+Devnet {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"signer calls: 1", "escrows the maximum 10000", "memo carries H = 0x8b1e", "the channel address its seeds derive",
		"answered 200", "declined hash-mismatch; signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
