package lightningseller

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
)

// The lnbtc demo: approval asked with nothing paid, one agreement
// signature, the receipt, one node payment, and the seller's 200.
func TestDemoExactPaysEndToEnd(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "lnbtc", "")
	if err != nil || paid == "" {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"node payments so far: 0", "agreement signatures: 1); node payments: 1",
		"reads back H = 0x8b1e", ": 200, "} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// The invoice-named demo: the same flow, the terms naming the invoice.
func TestDemoNamedPaysEndToEnd(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "lnbtc-named", "")
	if err != nil || paid == "" {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"node payments so far: 0", "agreement signatures: 1); node payments: 1",
		"the terms named its invoice", ": 200, "} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// The MPP charge demo: approval, one agreement signature, one node payment,
// the credential accepted.
func TestDemoMPPChargePaysEndToEnd(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "mpp-lightning", "")
	if err != nil || paid == "" {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"node payments so far: 0", "agreement signatures: 1), receipt", "node payments: 1", ": 200, "} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// The session demo: the open pays the deposit once, after the agreement.
func TestDemoSessionPaysEndToEnd(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "session-lightning", "")
	if err != nil || paid == "" {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"node payments so far: 0", "agreement signatures: 1), receipt", "node payments: 1", ": 200, "} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
