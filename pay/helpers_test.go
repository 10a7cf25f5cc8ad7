package pay_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/signer"
)

const (
	network  = "eip155:84532"
	usdc     = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
	payee    = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	payer    = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
	hashA    = "0x8b1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e39310072938"
	paidBody = `{"report":"the paid resource"}`
)

// vectorATRs are A (138 bytes) and C (A with one byte changed) of
// vectors/testdata/buyer.json.
func vectorATRs(tb testing.TB) (a, c []byte) {
	tb.Helper()
	raw, err := os.ReadFile("../vectors/testdata/buyer.json")
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct {
		Fixed struct{ A, C string } `json:"fixed"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		tb.Fatal(err)
	}
	a, _ = hex.DecodeString(doc.Fixed.A)
	c, _ = hex.DecodeString(doc.Fixed.C)
	if len(a) != 138 || atr.Sum(a).String() != hashA {
		tb.Fatalf("A is %d bytes, hash %s", len(a), atr.Sum(a))
	}
	return a, c
}

// countingSigner counts signer calls: a refusal must show zero.
type countingSigner struct {
	gate.Signer
	calls atomic.Int64
}

func (c *countingSigner) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	c.calls.Add(1)
	return c.Signer.Sign(ctx, req)
}

func anvil(tb testing.TB) *countingSigner {
	tb.Helper()
	l, err := signer.FromHex(signer.AnvilKey, network)
	if err != nil {
		tb.Fatal(err)
	}
	return &countingSigner{Signer: l}
}

// env is a loopback TLS x402 v2 seller and a paying client for it. The
// seller's handler can be wrapped (wrap) to change how it answers; seen
// records every request the server received.
type env struct {
	seller    *x402seller.Seller
	srv       *loopback.Server
	base      *http.Transport
	signer    *countingSigner
	transport *pay.Transport
	client    *http.Client

	mu     sync.Mutex
	seen   []seenRequest
	noSeen bool // the benchmark keeps no record
}

type seenRequest struct {
	Host, Method, Path string
	Signature          string
	Body               []byte
}

func newEnv(tb testing.TB, wrap func(e *env, next http.Handler) http.Handler) *env {
	tb.Helper()
	a, _ := vectorATRs(tb)
	e := &env{seller: x402seller.New(a, []byte(paidBody))}
	var h http.Handler = e.seller
	if wrap != nil {
		h = wrap(e, h)
	}
	record := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e.noSeen {
			h.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		e.mu.Lock()
		e.seen = append(e.seen, seenRequest{hostOnly(r.Host), r.Method, r.URL.Path, r.Header.Get(pay.HeaderSignature), body})
		e.mu.Unlock()
		h.ServeHTTP(w, r)
	})
	srv, err := loopback.Start(record)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(srv.Close)
	e.srv = srv
	e.base = srv.Transport()
	tb.Cleanup(e.base.CloseIdleConnections)
	e.signer = anvil(tb)
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: big.NewInt(10000)}}})
	if err != nil {
		tb.Fatal(err)
	}
	e.transport = &pay.Transport{
		Base:   e.base,
		Gate:   &gate.Gate{Fetcher: &atr.Fetcher{Client: &http.Client{Transport: e.base}}},
		Signer: e.signer,
		Policy: policy,
	}
	e.client = pay.NewClient(e.transport)
	return e
}

// requests returns what the server received on host.
func (e *env) requests(host string) []seenRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []seenRequest
	for _, s := range e.seen {
		if s.Host == host {
			out = append(out, s)
		}
	}
	return out
}

func hostOnly(h string) string {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i] == ':' {
			return h[:i]
		}
	}
	return h
}

// asResource calls the seller as if r were for its paid resource and
// returns what it answered.
func asResource(seller http.Handler, r *http.Request, path string) *httptest.ResponseRecorder {
	r2 := r.Clone(r.Context())
	r2.URL.Path = path
	rec := httptest.NewRecorder()
	seller.ServeHTTP(rec, r2)
	return rec
}

func copyHeaders(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
}

func mustDecline(tb testing.TB, err error, code gate.Code, detail string) *gate.Decline {
	tb.Helper()
	d := asDecline(err)
	if d == nil {
		tb.Fatalf("err %v is no decline", err)
	}
	if d.Code != code || detail != "" && pay.DetailCode(d.Detail) != detail {
		tb.Fatalf("decline %s / %s, want %s / %s", d.Code, d.Detail, code, detail)
	}
	return d
}

func asDecline(err error) *gate.Decline {
	var d *gate.Decline
	if errors.As(err, &d) {
		return d
	}
	return nil
}

func get(tb testing.TB, c *http.Client, url string) (*http.Response, []byte, error) {
	tb.Helper()
	resp, err := c.Get(url)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp, body, nil
}
