package pay

import (
	"slices"
	"testing"

	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
)

// TestDefaultCandidatesAreTheRegistrys holds the lists made once for the
// default registry to the registry filtered afresh, in its order, and a
// Gate's own registry to its own pairings.
func TestDefaultCandidatesAreTheRegistrys(t *testing.T) {
	ids := func(ps []rails.Pairing) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.ID())
		}
		return out
	}
	fresh := all.Default().All()
	for _, ns := range []string{ProtocolX402, ProtocolMPP, "nope"} {
		var want []string
		for _, p := range fresh {
			if rails.Namespace(p.ID()) == ns {
				want = append(want, p.ID())
			}
		}
		got := candidates(nil, ns, nil)
		if !slices.Equal(ids(got), want) {
			t.Errorf("%s: %v, want %v", ns, ids(got), want)
		}
		if ns != "nope" && len(want) == 0 {
			t.Errorf("%s: the default registry has no pairing", ns)
		}
		if cap(got) != len(got) {
			t.Errorf("%s: the shared list can be appended into", ns)
		}
	}
	one := fresh[0]
	own := rails.NewRegistry(one)
	if got := ids(candidates(own, rails.Namespace(one.ID()), nil)); !slices.Equal(got, []string{one.ID()}) {
		t.Errorf("own registry: %v", got)
	}
}
