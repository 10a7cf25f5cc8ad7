package gate_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
)

// counted is the EIP-3009 pairing counting the members a payment runs.
type counted struct {
	evm.ExactEIP3009
	reads, chooses, builds, requests *atomic.Int32
}

func (c counted) Read(doc jsonv.Value) (rails.Read, error) {
	c.reads.Add(1)
	return c.ExactEIP3009.Read(doc)
}

func (c counted) Choose(read rails.Read, account string, in *jsonv.Object, now int64, ref string) (jsonv.Value, error) {
	c.chooses.Add(1)
	return c.ExactEIP3009.Choose(read, account, in, now, ref)
}

func (c counted) Build(choice jsonv.Value, b []byte, h atr.Hash) (rails.Unsigned, error) {
	c.builds.Add(1)
	return c.ExactEIP3009.Build(choice, b, h)
}

func (c counted) Request(u rails.Unsigned) (rails.Request, error) {
	c.requests.Add(1)
	return c.ExactEIP3009.Request(u)
}

// TestTransactBuildsOnce: a payment reads, chooses, builds and makes its
// signing request once; with the caller's read and choice (TransactOptions.
// Chose, as pay.Transport passes them) it reads and chooses not at all, and
// the payment is the same, signed once and carrying H.
func TestTransactBuildsOnce(t *testing.T) {
	bb := newBench(t, atrA)
	var reads, chooses, builds, requests atomic.Int32
	p := counted{evm.ExactEIP3009{}, &reads, &chooses, &builds, &requests}
	bb.g.Pairings = rails.NewRegistry(p)
	ctx := context.Background()
	count := func() [4]int32 {
		n := [4]int32{reads.Load(), chooses.Load(), builds.Load(), requests.Load()}
		reads.Store(0)
		chooses.Store(0)
		builds.Store(0)
		requests.Store(0)
		return n
	}

	tx, err := bb.g.Transact(ctx, bb.doc, evm.ExactEIP3009ID, bb.signer, nil)
	if err != nil || tx.Signed == nil || tx.H != atr.Sum(atrA) {
		t.Fatalf("%v %v", tx, err)
	}
	if n := count(); n != [4]int32{1, 1, 1, 1} {
		t.Fatalf("read, choose, build, request ran %v times, want once each", n)
	}

	read, err := p.ExactEIP3009.Read(bb.doc)
	if err != nil {
		t.Fatal(err)
	}
	choice, err := p.ExactEIP3009.Choose(read, bb.signer.Account(), nil, bb.g.Now().Unix(), "ref-1")
	if err != nil {
		t.Fatal(err)
	}
	chose := &gate.Choice{Read: read, Chosen: rails.Chosen{Pairing: evm.ExactEIP3009ID, Choice: choice, Ref: "ref-1"}}
	again, err := bb.g.Transact(ctx, bb.doc, evm.ExactEIP3009ID, bb.signer, &gate.TransactOptions{Chose: chose})
	if err != nil || again.H != tx.H {
		t.Fatalf("%v %v", again, err)
	}
	if n := count(); n != [4]int32{0, 0, 1, 1} {
		t.Fatalf("with the caller's choice: read, choose, build, request ran %v times, want 0 0 1 1", n)
	}
	if got, want := jsonv.Canonical(again.Signed), jsonv.Canonical(tx.Signed); string(got) != string(want) {
		t.Fatalf("paid %s, want %s", got, want)
	}

	// A choice for another pairing is not taken.
	chose.Chosen.Pairing = evm.ExactPermit2ID
	if _, err := bb.g.Transact(ctx, bb.doc, evm.ExactEIP3009ID, bb.signer, &gate.TransactOptions{Chose: chose}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != [4]int32{1, 1, 1, 1} {
		t.Fatalf("a foreign choice: %v, want once each", n)
	}
}
