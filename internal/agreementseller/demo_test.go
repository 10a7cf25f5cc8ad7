package agreementseller

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
)

// The agreement demo: approval asked with nothing signed, one agreement
// signature, the receipt for H, then the Cloudflare payment the seller
// accepts, with no signer call for it.
func TestDemoAgreementPaysEndToEnd(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "agreement", "")
	if err != nil || paid == "" {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"approval asked: 1 atomic units", "signer calls so far: 0", "agreement signatures: 1",
		"receipt: agreed to 0x8b1e", "answered 200", "gate signer calls for the main payment: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
