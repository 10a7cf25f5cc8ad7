package all_test

import (
	"testing"

	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
)

// Every registered pairing states what signing its requests grants, so a
// spend policy can judge it: a pairing without a summary could only ever
// be refused (policy/request-unreadable). A pairing that signs inside a
// channel states its in-channel payments too.
func TestEveryPairingHasASummary(t *testing.T) {
	reg := all.Default()
	if len(reg.All()) == 0 {
		t.Fatal("no pairings registered")
	}
	for _, p := range reg.All() {
		if _, ok := p.(rails.Summarizer); !ok {
			t.Errorf("%s has no Summarize(rails.Request) (rails.Grant, error)", p.ID())
		}
		if _, ok := p.(rails.WithinBuilder); ok {
			if _, ok := p.(rails.WithinSummarizer); !ok {
				t.Errorf("%s builds in-channel payments but has no SummarizeWithin", p.ID())
			}
		}
	}
}
