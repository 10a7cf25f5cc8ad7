package evm_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// The EIP-3009 request and payload are copies of shared templates
// (jsonv.Copier) filled with the build's values. Whoever is handed one may
// edit it: these tests edit everything in them, with every way jsonv
// allows and some it forbids, and then hold the offer and the next payment
// to what a gate that never met the editor makes, byte for byte.

// vandalize edits every object and array inside v: each object has every
// member rewritten (by Set and through Members, which callers are told not
// to write), one added and its first deleted, after being filled from JSON
// (UnmarshalJSON); each array has every element overwritten and is then
// appended to.
func vandalize(t *testing.T, v jsonv.Value) {
	t.Helper()
	var objects []*jsonv.Object
	var arrays [][]jsonv.Value
	var walk func(jsonv.Value)
	walk = func(v jsonv.Value) {
		switch x := v.(type) {
		case *jsonv.Object:
			objects = append(objects, x)
			for _, m := range x.Members() {
				walk(m.Value)
			}
		case []jsonv.Value:
			arrays = append(arrays, x)
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v) // everything reachable is found before anything changes
	if len(objects) == 0 {
		t.Fatal("nothing to edit")
	}
	for i, a := range arrays {
		for j := range a {
			a[j] = "edited array " + strconv.Itoa(i)
		}
		_ = append(a, "appended") // writes past the end only if there is room
	}
	for i, o := range objects {
		ms := o.Members()
		for j := range ms {
			ms[j].Value = jsonv.Number(i) // what Members forbids
		}
		for _, k := range o.Keys() {
			o.Set(k, "edited "+k)
		}
		o.Set("added", []jsonv.Value{jsonv.Number(i)})
		if keys := o.Keys(); len(keys) > 0 {
			o.Delete(keys[0])
		}
	}
	if err := objects[len(objects)-1].UnmarshalJSON([]byte(`{"replaced":true}`)); err != nil {
		t.Fatal(err)
	}
}

// vandal signs what it is asked (a true signature of the request as it
// came), then edits the request it was handed.
type vandal struct {
	*signer.Local
	t *testing.T
}

func (s vandal) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	sig, err := s.Local.Sign(ctx, req)
	vandalize(s.t, req)
	return sig, err
}

// recorder signs and keeps what it was asked, as JSON.
type recorder struct {
	*signer.Local
	asked []string
}

func (s *recorder) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	s.asked = append(s.asked, jsonv.String(req))
	return s.Local.Sign(ctx, req)
}

var copyATR = []byte(`{"atrVersion":"1","terms":"request copies"}`)

// copyOffer is an x402 offer of an EIP-3009 payment for copyATR.
func copyOffer(t *testing.T) *jsonv.Object {
	t.Helper()
	h := atr.Sum(copyATR)
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://api.seller.example/v1/quote"),
		"accepts", []jsonv.Value{jsonv.Obj("scheme", "exact", "network", "eip155:84532", "amount", "10000",
			"asset", usdcBase, "payTo", payTo, "maxTimeoutSeconds", 60, "extra", jsonv.Obj("name", "USDC", "version", "2"))})
	doc, err := x402.Advertise(doc, h, "https://atr.seller.example/"+h.String(), "")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func copyGate(t *testing.T) *gate.Gate {
	t.Helper()
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(copyATR) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}, Now: func() time.Time { return time.Unix(1790000000, 0) }}
}

func copySigner(t *testing.T) *signer.Local {
	t.Helper()
	l, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A signer that edits its request, and a caller that edits the payment it
// got, change neither the offer nor the next payment: its request and
// payment are byte for byte a fresh gate's.
func TestEditedRequestAndPaymentChangeNothingElse(t *testing.T) {
	ctx := context.Background()
	fresh := &recorder{Local: copySigner(t)}
	want, err := copyGate(t).Transact(ctx, copyOffer(t), evm.ExactEIP3009ID, fresh, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantPayment := jsonv.String(want.Signed)

	g, doc := copyGate(t), copyOffer(t)
	offer := jsonv.String(doc)
	for round := range 3 {
		edited, err := g.Transact(ctx, doc, evm.ExactEIP3009ID, vandal{Local: copySigner(t), t: t}, nil)
		if err != nil {
			t.Fatalf("round %d, the editing signer: %v", round, err)
		}
		if got := jsonv.String(edited.Signed); got != wantPayment {
			t.Fatalf("round %d: the signer's edits reached the payment:\n%s\nwant\n%s", round, got, wantPayment)
		}
		vandalize(t, edited.Signed)
		if got := jsonv.String(doc); got != offer {
			t.Fatalf("round %d: the offer changed:\n%s\nwant\n%s", round, got, offer)
		}
		next := &recorder{Local: copySigner(t)}
		paid, err := g.Transact(ctx, doc, evm.ExactEIP3009ID, next, nil)
		if err != nil {
			t.Fatalf("round %d, the next payment: %v", round, err)
		}
		if len(next.asked) != 1 || next.asked[0] != fresh.asked[0] {
			t.Fatalf("round %d: the next request\n%v\nwant\n%s", round, next.asked, fresh.asked[0])
		}
		if got := jsonv.String(paid.Signed); got != wantPayment {
			t.Fatalf("round %d: the next payment\n%s\nwant\n%s", round, got, wantPayment)
		}
	}
}

// The same at the pairing: one build asked for its request twice and
// completed twice, every request and payment edited as soon as it is made,
// gives each time what a build never edited gives; and the request is the
// one TransferWithAuthorization writes.
func TestEditedCopiesLeaveTheBuildAlone(t *testing.T) {
	p := evm.ExactEIP3009{}
	doc := copyOffer(t)
	read, err := p.Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	l := copySigner(t)
	choice, err := p.Choose(read, l.Account(), nil, 1790000000, "")
	if err != nil {
		t.Fatal(err)
	}
	h := atr.Sum(copyATR)
	build := func() rails.Unsigned {
		u, err := p.Build(choice, copyATR, h)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	const sig = "0x" + "11111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111" + "1b"
	clean := build()
	wantReq, err := p.Request(clean)
	if err != nil {
		t.Fatal(err)
	}
	wantDone, err := p.Complete(clean, sig, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	auth := jsonv.Obj("from", anvilAddress, "to", payTo, "value", "10000", "validAfter", "0",
		"validBefore", "1790000060", "nonce", h.String())
	general := jsonv.Obj("kind", "eip712", "typedData", evm.TransferWithAuthorization("USDC", "2", 84532, usdcBase, auth))
	if jsonv.String(wantReq) != jsonv.String(general) {
		t.Fatalf("the request\n%s\nis not TransferWithAuthorization's\n%s", jsonv.String(wantReq), jsonv.String(general))
	}

	u := build()
	for round := range 3 {
		req, err := p.Request(u)
		if err != nil {
			t.Fatal(err)
		}
		if jsonv.String(req) != jsonv.String(wantReq) {
			t.Fatalf("round %d: request\n%s\nwant\n%s", round, jsonv.String(req), jsonv.String(wantReq))
		}
		vandalize(t, req)
		done, err := p.Complete(u, sig, rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		if jsonv.String(done.Signed) != jsonv.String(wantDone.Signed) {
			t.Fatalf("round %d: payment\n%s\nwant\n%s", round, jsonv.String(done.Signed), jsonv.String(wantDone.Signed))
		}
		vandalize(t, done.Signed)
		if h2, err := p.Bound(mustComplete(t, p, build(), sig)); err != nil || h2 != h.String() {
			t.Fatalf("round %d: a new build reads back %q, %v", round, h2, err)
		}
	}
	if got, _ := p.Request(build()); jsonv.String(got) != jsonv.String(wantReq) {
		t.Fatal("a new build's request changed")
	}
}

func mustComplete(t *testing.T, p evm.ExactEIP3009, u rails.Unsigned, sig string) jsonv.Value {
	t.Helper()
	done, err := p.Complete(u, sig, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	return done.Signed
}
