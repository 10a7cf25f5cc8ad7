package x402seller

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
)

// The batch demo: the opening in one signer call, a voucher inside the
// channel in one more, both accepted by a seller that recovers every
// signature; other terms' hash declined unsigned.
func TestDemoBatchPaysEndToEnd(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "batch", "")
	if err != nil || paid == "" {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"signer calls: 1, a batch", "recomputed the channel id from H: 200", "charged 2000 of 2000 signed",
		"declined hash-mismatch", "signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
