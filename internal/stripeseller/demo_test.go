package stripeseller

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
)

// The Stripe demos: approval asked with nothing paid, one agreement
// signature and no other, the receipt, the seller's Stripe accepting the
// credential; the token shown masked only.
var unmasked = regexp.MustCompile(`(spt|pm)_[0-9a-f]{5}`)

func TestDemoPaysEndToEnd(t *testing.T) {
	for _, alias := range []string{"stripe", "stripe-subscription"} {
		t.Run(alias, func(t *testing.T) {
			out, paid, err := demo.Play(context.Background(), alias, "")
			if err != nil || paid == "" {
				t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
			}
			for _, want := range []string{"signatures so far: 0", "(signatures: 1, all of them the agreement's)", "legal_context in its metadata", ": 200, "} {
				if !strings.Contains(out, want) {
					t.Errorf("demo output lacks %q:\n%s", want, out)
				}
			}
			if unmasked.MatchString(out) {
				t.Errorf("a token is shown unmasked (%s):\n%s", unmasked.FindString(out), out)
			}
		})
	}
}
