package gate_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
)

// countingEIP3009 is x402/exact/eip155/eip3009 with its builds and
// requests counted.
type countingEIP3009 struct {
	evm.ExactEIP3009
	builds, requests *atomic.Int64
}

func (c countingEIP3009) Build(choice jsonv.Value, b []byte, h atr.Hash) (rails.Unsigned, error) {
	c.builds.Add(1)
	return c.ExactEIP3009.Build(choice, b, h)
}

func (c countingEIP3009) Request(u rails.Unsigned) (rails.Request, error) {
	c.requests.Add(1)
	return c.ExactEIP3009.Request(u)
}

// Finish builds the chosen payment once and makes its request once, and
// that one build still serves every check: a signature by another key, a
// payment past its deadline and a signature over other terms are each
// declined, and the right one is finished.
func TestFinishBuildsOnce(t *testing.T) {
	ctx := context.Background()
	c := countingEIP3009{builds: new(atomic.Int64), requests: new(atomic.Int64)}
	bb := newBench(t, atrA)
	g := &gate.Gate{Pairings: rails.NewRegistry(c), Fetcher: bb.g.Fetcher, Now: bb.g.Now}
	conf, err := g.Confirm(ctx, bb.doc, evm.ExactEIP3009ID, bb.signer.Account(), nil)
	if err != nil {
		t.Fatal(err)
	}
	good, err := bb.signer.Sign(ctx, conf.Request)
	if err != nil {
		t.Fatal(err)
	}
	c.builds.Store(0)
	c.requests.Store(0)
	if _, err := g.Finish(conf.Bytes, evm.ExactEIP3009ID, conf.Chosen, good); err != nil {
		t.Fatal(err)
	}
	if b, r := c.builds.Load(), c.requests.Load(); b != 1 || r != 1 {
		t.Fatalf("Finish built %d times and made %d requests, want 1 and 1", b, r)
	}

	other, _ := keyOn(t, otherKey, "eip155:84532").Sign(ctx, conf.Request)
	_, err = g.Finish(conf.Bytes, evm.ExactEIP3009ID, conf.Chosen, other)
	wantDeclined(t, err, gate.SignerFailed, gate.DetailSignerNotAccount)

	late := *g
	late.Now = func() time.Time { return time.Unix(1790000000+61, 0) } // validBefore is now + 60
	_, err = late.Finish(conf.Bytes, evm.ExactEIP3009ID, conf.Chosen, good)
	wantDeclined(t, err, gate.SignerFailed, gate.DetailWindowClosed)

	// A signature over other bytes' terms: the payment built for these
	// bytes does not recover to the account.
	elsewhere := []byte("other terms")
	_, err = g.Finish(elsewhere, evm.ExactEIP3009ID, conf.Chosen, good)
	wantDeclined(t, err, gate.SignerFailed, gate.DetailSignerNotAccount)
}
