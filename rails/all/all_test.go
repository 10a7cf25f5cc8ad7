package all_test

import (
	"testing"

	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
)

// Every registered pairing states what signing its requests grants, so a
// spend policy can judge it: a pairing without a summary could only ever
// be refused (policy/request-unreadable). (A channel pairing whose
// in-channel requests do not name everything also implements
// rails.WithinSummarizer; its own tests show it.)
//
// pending names pairings landed before their summary: their payments are
// refused by every policy until it lands. The list only shrinks: an entry
// that has a summary fails the test until it is removed.
var pending = map[string]string{}

func TestEveryPairingHasASummary(t *testing.T) {
	reg := all.Default()
	if len(reg.All()) == 0 {
		t.Fatal("no pairings registered")
	}
	for _, p := range reg.All() {
		_, ok := p.(rails.Summarizer)
		why, isPending := pending[p.ID()]
		switch {
		case !ok && isPending:
			t.Logf("%s has no summary yet: %s", p.ID(), why)
		case !ok:
			t.Errorf("%s has no Summarize(rails.Request) (rails.Grant, error)", p.ID())
		case isPending:
			t.Errorf("%s has a summary now: remove it from pending", p.ID())
		}
	}
}

// Every registered pairing reads its own payments for `termsgate inspect`
// (docs/adding-a-pairing.md, "The contract"): a pairing without an
// Inspector is one whose payments inspect cannot state.
//
// pendingInspect names pairings landed before their Inspect; the list only
// shrinks: an entry that has one fails the test until it is removed.
var pendingInspect = map[string]string{}

func TestEveryPairingHasAnInspector(t *testing.T) {
	for _, p := range all.Default().All() {
		_, ok := p.(rails.Inspector)
		why, isPending := pendingInspect[p.ID()]
		switch {
		case !ok && isPending:
			t.Logf("%s has no Inspect yet: %s", p.ID(), why)
		case !ok:
			t.Errorf("%s has no Inspect(jsonv.Value) (rails.Inspection, error)", p.ID())
		case isPending:
			t.Errorf("%s has an Inspect now: remove it from pendingInspect", p.ID())
		}
	}
}
