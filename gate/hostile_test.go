package gate_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
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

// counting is a signer whose answers a test chooses.
type counting struct {
	calls  atomic.Int64
	answer func(ctx context.Context, req rails.Request) (jsonv.Value, error)
}

func (c *counting) Account() string {
	return "eip155:84532:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
}

func (c *counting) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	c.calls.Add(1)
	return c.answer(ctx, req)
}

func realKey() func(context.Context, rails.Request) (jsonv.Value, error) {
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	return l.Sign
}

// hostileSeller advertises the hash of atrA and answers the link with h.
func hostileSeller(t *testing.T, h http.HandlerFunc) (*gate.Gate, *jsonv.Object, *atomic.Int64) {
	t.Helper()
	var fetches atomic.Int64
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		h(w, r)
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{jsonv.Obj("scheme", "exact", "network", "eip155:84532",
		"amount", "10000", "asset", "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "payTo", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("name", "USDC", "version", "2"))})
	h0 := atr.Sum(atrA)
	doc, _ = x402.Advertise(doc, h0, "https://atr.seller.example/"+h0.String(), "")
	// 3 s: long enough for 1 MiB of endless body under -race on a loaded
	// 2-core machine (300 ms was not: the deadline won and the case read as
	// atr-unfetchable), short of the slow body's 7 s.
	return &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client(), Timeout: 3 * time.Second}}, doc, &fetches
}

func TestHostileSellersAreDeclinedWithNothingSigned(t *testing.T) {
	chunk := make([]byte, 16<<10)
	cases := map[string]struct {
		h    http.HandlerFunc
		code gate.Code
	}{
		"redirect": {func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://atr.seller.example/other", http.StatusMovedPermanently)
		}, gate.ATRUnfetchable},
		"404": {http.NotFound, gate.ATRUnfetchable},
		"body slower than the deadline": {func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(len(atrA)))
			for _, b := range atrA {
				if _, err := w.Write([]byte{b}); err != nil {
					return
				}
				http.NewResponseController(w).Flush()
				select {
				case <-time.After(50 * time.Millisecond):
				case <-r.Context().Done():
					return
				}
			}
		}, gate.ATRUnfetchable},
		"endless body": {func(w http.ResponseWriter, r *http.Request) {
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, gate.ATRTooLarge},
		"gzip": {func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(atrA)
		}, gate.ATRUnfetchable},
		"br": {func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "br")
			_, _ = w.Write(atrA)
		}, gate.ATRUnfetchable},
		"deflate": {func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "deflate")
			_, _ = w.Write(atrA)
		}, gate.ATRUnfetchable},
		"a Content-Length that lies": {func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(len(atrA)+10))
			_, _ = w.Write(atrA)
		}, gate.ATRUnfetchable},
		"the bytes of other terms": {func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write(append([]byte{' '}, atrA...))
		}, gate.HashMismatch},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			g, doc, fetches := hostileSeller(t, c.h)
			s := &counting{answer: realKey()}
			_, err := g.Transact(context.Background(), doc, evm.ExactEIP3009ID, s, nil)
			var d *gate.Decline
			if !errors.As(err, &d) || d.Code != c.code {
				t.Fatalf("got %v (cause: %v), want %s", err, errors.Unwrap(err), c.code)
			}
			if s.calls.Load() != 0 || fetches.Load() != 1 {
				t.Fatalf("%d signer calls, %d fetches", s.calls.Load(), fetches.Load())
			}
		})
	}
}

func TestSignerAnswersAreChecked(t *testing.T) {
	serve := func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(atrA) }
	cases := map[string]struct {
		answer func(context.Context, rails.Request) (jsonv.Value, error)
		code   gate.Code
		detail string
	}{
		"refuses":          {func(context.Context, rails.Request) (jsonv.Value, error) { return nil, errors.New("no") }, gate.SignerFailed, gate.DetailSignerFailed},
		"panics":           {func(context.Context, rails.Request) (jsonv.Value, error) { panic("wallet bug") }, gate.SignerFailed, gate.DetailSignerFailed},
		"answers a number": {func(context.Context, rails.Request) (jsonv.Value, error) { return jsonv.Number(1), nil }, gate.SignedNotBound, "x402/signature-malformed"},
		"answers 64 bytes": {func(context.Context, rails.Request) (jsonv.Value, error) {
			return "0x" + hex64(), nil
		}, gate.SignedNotBound, "x402/signature-malformed"},
		"answers odd hex": {func(context.Context, rails.Request) (jsonv.Value, error) { return "0xabc", nil }, gate.SignedNotBound, "x402/signature-malformed"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			g, doc, _ := hostileSeller(t, serve)
			s := &counting{answer: c.answer}
			res, err := g.Transact(context.Background(), doc, evm.ExactEIP3009ID, s, nil)
			var d *gate.Decline
			if !errors.As(err, &d) || d.Code != c.code || d.Detail != c.detail || res != nil {
				t.Fatalf("got %v, %v; want %s %s", res, err, c.code, c.detail)
			}
			if s.calls.Load() != 1 {
				t.Fatalf("%d signer calls", s.calls.Load())
			}
		})
	}
}

func hex64() string {
	b := make([]byte, 128)
	for i := range b {
		b[i] = 'a'
	}
	return string(b)
}

// panicky is a pairing whose members panic where a test says: the gate must
// turn each into the decline the reference gives a throw, never crash.
type panicky struct {
	evm.ExactEIP3009
	where string
}

func (p panicky) Build(c jsonv.Value, b []byte, h atr.Hash) (rails.Unsigned, error) {
	if p.where == "build" {
		panic("build")
	}
	return p.ExactEIP3009.Build(c, b, h)
}

func (p panicky) Complete(u rails.Unsigned, a jsonv.Value, c rails.Chosen) (rails.Completion, error) {
	if p.where == "complete" {
		panic("complete")
	}
	return p.ExactEIP3009.Complete(u, a, c)
}

func (p panicky) Bound(v jsonv.Value) (string, error) {
	if strings.Contains(p.where, "bound") {
		panic("bound")
	}
	return p.ExactEIP3009.Bound(v)
}

// Moves makes panicky a rails.Mover, as the push pairings are; it moves
// nothing unless it is the member told to panic.
func (p panicky) Moves(rails.Request) bool {
	if strings.Contains(p.where, "moves") {
		panic("moves")
	}
	return false
}

func (p panicky) Read(doc jsonv.Value) (rails.Read, error) {
	if p.where == "read" {
		panic("read")
	}
	return p.ExactEIP3009.Read(doc)
}

func TestAPairingThatPanicsIsADecline(t *testing.T) {
	cases := map[string]struct {
		code   gate.Code
		detail string
		signs  int64
	}{
		"read":     {gate.OfferUnreadable, "x402/read-failed", 0},
		"build":    {gate.OfferUnreadable, "x402/build-failed", 0},
		"complete": {gate.SignedNotBound, gate.DetailNotCompleted, 1},
		"bound":    {gate.SignedNotBound, gate.DetailSignedNotBound, 1},
		"moves":    {gate.OfferUnreadable, "x402/build-failed", 0},
	}
	for where, c := range cases {
		t.Run(where, func(t *testing.T) {
			g, doc, _ := hostileSeller(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(atrA) })
			g.Pairings = rails.NewRegistry(panicky{where: where})
			s := &counting{answer: realKey()}
			_, err := g.Transact(context.Background(), doc, evm.ExactEIP3009ID, s, nil)
			var d *gate.Decline
			if !errors.As(err, &d) || d.Code != c.code || d.Detail != c.detail {
				t.Fatalf("got %v, want %s %s", err, c.code, c.detail)
			}
			if s.calls.Load() != c.signs {
				t.Fatalf("%d signer calls", s.calls.Load())
			}
		})
	}
}

// A signature handed to Finish already exists: when the pairing panics saying
// whether its signer moved value (and then reading H back), the decline keeps
// the signature as moved rather than lose a payment that may have left.
func TestFinishKeepsASignatureWhenMovesPanics(t *testing.T) {
	g, doc, _ := hostileSeller(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(atrA) })
	g.Pairings = rails.NewRegistry(panicky{where: "moves, bound"})
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	c, err := g.Confirm(context.Background(), doc, evm.ExactEIP3009ID, l.Account(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := l.Sign(context.Background(), c.Request)
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Finish(c.Bytes, evm.ExactEIP3009ID, c.Chosen, sig)
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.SignedNotBound {
		t.Fatalf("got %v, want a %s decline", err, gate.SignedNotBound)
	}
	// What is kept is the completed payment that carries the signature.
	if d.Moved == nil || d.Moved.Signed == nil || d.Moved.H != c.H {
		t.Fatalf("the decline lost the signature: moved %+v", d.Moved)
	}
}

// A policy refusal comes after the hash comparison and before any signer
// call.
type refuseAll struct{ asked atomic.Int64 }

func (r *refuseAll) Allow(context.Context, gate.PaymentSummary) error {
	r.asked.Add(1)
	return errors.New("policy/amount-above-maximum")
}

func TestPolicyIsAskedAfterTheHashAndBeforeTheSigner(t *testing.T) {
	g, doc, fetches := hostileSeller(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(atrA) })
	p := &refuseAll{}
	g.Policy = p
	s := &counting{answer: realKey()}
	_, err := g.Transact(context.Background(), doc, evm.ExactEIP3009ID, s, nil)
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.NoPayableOption || d.Detail != "policy/amount-above-maximum" {
		t.Fatalf("got %v", err)
	}
	if p.asked.Load() != 1 || s.calls.Load() != 0 || fetches.Load() != 1 {
		t.Fatalf("asked %d, signed %d, fetched %d", p.asked.Load(), s.calls.Load(), fetches.Load())
	}
}

func TestProgressReportsTheSteps(t *testing.T) {
	g, doc, _ := hostileSeller(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(atrA) })
	var steps []string
	ctx := gate.WithProgress(context.Background(), func(s string) { steps = append(steps, s) })
	if _, err := g.Transact(ctx, doc, evm.ExactEIP3009ID, &counting{answer: realKey()}, nil); err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 || !strings.HasPrefix(steps[0], "fetching the ATR") || !strings.HasPrefix(steps[1], "the ATR's hash matched") || steps[2] != "asking the signer to sign a eip712 request" {
		t.Fatalf("steps %q", steps)
	}
}
