package settledemo_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/settledemo"
	"github.com/termsgate/termsgate/rails/evm"
)

// TestSettlePermit2: the settled runs of both Permit2 rows pay, land the
// proxy's settle with H as the Permit2 nonce, see the replay refused by
// Permit2, keep the payment for inspect, and are what Register gives the
// rows.
func TestSettlePermit2(t *testing.T) {
	settledemo.Register()
	h := atr.Sum(demo.ATR).String()
	for _, c := range []struct{ pairing, proxy, moved, paid string }{
		{evm.ExactPermit2ID, "x402ExactPermit2Proxy", "moved 10000 ", "0.01 USDC (10000 atomic units) on eip155:1337 (settled in block "},
		{evm.UptoPermit2ID, "x402UptoPermit2Proxy", "moved 15000 ", "0.015 USDC (15000 atomic units) on eip155:1337 (settled in block "},
	} {
		t.Run(c.pairing, func(t *testing.T) {
			row, ok := demo.Lookup(c.pairing)
			if !ok || row.Settle == nil {
				t.Fatalf("Register gave %s no settled run", c.pairing)
			}
			var out strings.Builder
			s := &demo.Session{Out: &out, Dir: t.TempDir()}
			if err := row.Settle(context.Background(), s); err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			for _, want := range []string{"approve(Permit2, 2^256-1)", "with status 1", c.proxy + ".settle " + c.moved,
				"Permit2 nonce " + h, "refused by Permit2: InvalidNonce"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("the output lacks %q:\n%s", want, out.String())
				}
			}
			if !strings.HasPrefix(s.PaidText(), c.paid) {
				t.Errorf("paid %q", s.PaidText())
			}
			if _, err := os.Stat(filepath.Join(s.Dir, "payment")); err != nil {
				t.Errorf("no payment kept: %v", err)
			}
		})
	}
}

// TestSettleEscrow: the settled run of x402/auth-capture/eip155/permit2
// authorizes on the escrow with H as the payment info's salt, captures to the
// receiver and sees the replay refused.
func TestSettleEscrow(t *testing.T) {
	settledemo.Register()
	row, ok := demo.Lookup(evm.AuthCapturePermit2ID)
	if !ok || row.Settle == nil {
		t.Fatal("Register gave the auth-capture Permit2 row no settled run")
	}
	var out strings.Builder
	s := &demo.Session{Out: &out, Dir: t.TempDir()}
	if err := row.Settle(context.Background(), s); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	h := atr.Sum(demo.ATR).String()
	for _, want := range []string{"payment info salt " + h, "log PaymentAuthorized(payment hash 0x", "the receiver's balance rose by 10000",
		"refused by the escrow: PaymentAlreadyCollected"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.HasPrefix(s.PaidText(), "0.01 USDC (10000 atomic units) on eip155:1337 (authorized in block ") {
		t.Errorf("paid %q", s.PaidText())
	}
}
