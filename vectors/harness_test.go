package vectors_test

import (
	"context"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/vectors"
)

func load(t testing.TB, name string) *jsonv.Object {
	t.Helper()
	o, err := vectors.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func get(t testing.TB, v jsonv.Value, path ...string) jsonv.Value {
	t.Helper()
	for _, k := range path {
		o, ok := jsonv.AsObject(v)
		if !ok {
			t.Fatalf("vector path %v: %q is not under an object", path, k)
		}
		v, ok = o.Get(k)
		if !ok {
			t.Fatalf("vector path %v: no member %q", path, k)
		}
	}
	return v
}

func str(t testing.TB, v jsonv.Value, path ...string) string {
	t.Helper()
	s, ok := jsonv.AsString(get(t, v, path...))
	if !ok {
		t.Fatalf("vector path %v is not a string", path)
	}
	return s
}

func obj(t testing.TB, v jsonv.Value, path ...string) *jsonv.Object {
	t.Helper()
	o, ok := jsonv.AsObject(get(t, v, path...))
	if !ok {
		t.Fatalf("vector path %v is not an object", path)
	}
	return o
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("hex: %v", err)
	}
	return b
}

// row finds a row by name in a list of rows.
func row(t testing.TB, rows jsonv.Value, name string) *jsonv.Object {
	t.Helper()
	list, _ := jsonv.AsArray(rows)
	for _, r := range list {
		if o, ok := jsonv.AsObject(r); ok {
			if n, _ := o.GetString("name"); n == name {
				return o
			}
		}
	}
	t.Fatalf("no row %s", name)
	return nil
}

// atrSeller is a real TLS server on loopback answering ATR links. Each test
// sets its answer and reads how many requests it got.
type atrSeller struct {
	srv     *loopback.Server
	mu      sync.Mutex
	answer  http.HandlerFunc
	fetches atomic.Int64
	headers []http.Header
	// The agreement URL (host api.seller.example) answers from its script.
	agreement *agreementScript
}

func newATRSeller(t testing.TB) *atrSeller {
	t.Helper()
	s := &atrSeller{}
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "api.seller.example") {
			s.mu.Lock()
			script := s.agreement
			s.mu.Unlock()
			if script == nil {
				http.NotFound(w, r)
				return
			}
			script.ServeHTTP(w, r)
			return
		}
		s.fetches.Add(1)
		s.mu.Lock()
		s.headers = append(s.headers, r.Header.Clone())
		answer := s.answer
		s.mu.Unlock()
		if answer == nil {
			http.NotFound(w, r)
			return
		}
		answer(w, r)
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	s.srv = srv
	return s
}

func (s *atrSeller) serve(h http.HandlerFunc) {
	s.mu.Lock()
	s.answer = h
	s.fetches.Store(0)
	s.headers = nil
	s.mu.Unlock()
}

func (s *atrSeller) serveBytes(b []byte) {
	s.serve(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(b) })
}

// gateFor returns a gate that fetches through the seller's client, with the
// vectors' clock.
func (s *atrSeller) gateFor(now int64, pairings *rails.Registry) *gate.Gate {
	return &gate.Gate{
		Pairings: pairings,
		Fetcher:  &atr.Fetcher{Client: s.srv.Client(), Timeout: 2 * time.Second},
		Now:      func() time.Time { return time.Unix(now, 0) },
	}
}

// countingSigner wraps a real key and counts its calls; reject makes it fail.
type countingSigner struct {
	inner  gate.Signer
	calls  atomic.Int64
	reject bool
	seen   []rails.Request
	mu     sync.Mutex
}

func (c *countingSigner) Account() string { return c.inner.Account() }

func (c *countingSigner) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	c.calls.Add(1)
	c.mu.Lock()
	c.seen = append(c.seen, req)
	c.mu.Unlock()
	if c.reject {
		return nil, errors.New("the wallet's owner declined")
	}
	return c.inner.Sign(ctx, req)
}

func newCountingSigner(t testing.TB, key, network string) *countingSigner {
	t.Helper()
	l, err := signer.FromHex(key, network)
	if err != nil {
		t.Fatal(err)
	}
	return &countingSigner{inner: l}
}

// wantDecline asserts err is a decline with code (and detail when given).
func wantDecline(t testing.TB, err error, code gate.Code, detail string) *gate.Decline {
	t.Helper()
	var d *gate.Decline
	if !errors.As(err, &d) {
		t.Fatalf("want decline %s, got %v", code, err)
	}
	if d.Code != code {
		t.Fatalf("want decline %s, got %s (%s)", code, d.Code, d.Detail)
	}
	if detail != "" && d.Detail != detail {
		t.Fatalf("want detail %q, got %q", detail, d.Detail)
	}
	return d
}

// agreementScript answers agreement requests in order; the last step repeats
// when it says so. It records what it was asked.
type agreementScript struct {
	mu       sync.Mutex
	steps    []agreementStep
	next     int
	unpaid   int
	paid     int
	payments []string
	headers  []http.Header
	clock    *fakeClock // when set, paidAt records the simulated time of each paid request
	paidAt   []time.Time
}

type agreementStep struct {
	status          int
	paymentRequired string // the header value, already encoded
	retryAfter      *string
	body            []byte
	contentEncoding string
	repeats         bool
}

func (a *agreementScript) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.headers = append(a.headers, r.Header.Clone())
	if p := r.Header.Get("PAYMENT-SIGNATURE"); p != "" {
		a.paid++
		a.payments = append(a.payments, p)
		if a.clock != nil {
			a.paidAt = append(a.paidAt, a.clock.Now())
		}
	} else {
		a.unpaid++
	}
	var st agreementStep
	if a.next < len(a.steps) {
		st = a.steps[a.next]
		if !st.repeats {
			a.next++
		}
	} else {
		st = agreementStep{status: 500}
	}
	a.mu.Unlock()
	if st.paymentRequired != "" {
		w.Header().Set("PAYMENT-REQUIRED", st.paymentRequired)
	}
	if st.retryAfter != nil {
		w.Header().Set("Retry-After", *st.retryAfter)
	}
	if st.contentEncoding != "" {
		w.Header().Set("Content-Encoding", st.contentEncoding)
	}
	w.WriteHeader(st.status)
	_, _ = w.Write(st.body)
}

func (a *agreementScript) counts() (unpaid, paid int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.unpaid, a.paid
}

// fakeClock is the gate's clock and sleeper in the agreement rows: sleeping
// advances it, so minutes of the exchange pass in milliseconds.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return nil
}
