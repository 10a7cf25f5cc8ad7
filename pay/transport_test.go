package pay_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/x402"
)

// The whole exchange against a seller that verifies before it answers 200:
// the signature recovers to the payer, the nonce is H of the ATR it serves,
// amount and payee are the ones it offered.
func TestPaysX402EndToEnd(t *testing.T) {
	e := newEnv(t, nil)
	var logs bytes.Buffer
	e.transport.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	var events []string
	var mu sync.Mutex
	event := func(s string) { mu.Lock(); events = append(events, s); mu.Unlock() }
	e.transport.Hooks = pay.Hooks{
		BeforeSign: func(_ context.Context, req *http.Request, s pay.Summary) error {
			event("before " + req.URL.Path + " " + s.Amount.String())
			return nil
		},
		AfterSign: func(_ context.Context, _ *http.Request, r *pay.Result) { event("after " + r.H.String()) },
		Declined:  func(context.Context, *http.Request, *gate.Decline) { event("declined") },
	}
	resp, body, err := get(t, e.client, e.seller.ResourceURL())
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || string(body) != paidBody {
		t.Fatalf("status %d body %q (seller: %v)", resp.StatusCode, body, e.seller.LastRejection())
	}
	r := pay.ResultOf(resp)
	if r == nil {
		t.Fatal("no result")
	}
	if !r.Accepted() || r.Settlement == nil || !r.Settlement.Success || r.Settlement.Payer != payer || r.Settlement.Network != network {
		t.Fatalf("result %+v settlement %+v", r, r.Settlement)
	}
	a, _ := vectorATRs(t)
	if !bytes.Equal(r.ATR, a) || r.H.String() != hashA || r.H != e.seller.Hash() {
		t.Fatalf("ATR %q H %s", r.ATR, r.H)
	}
	s := r.Summary
	if s.Amount.String() != "10000" || s.Asset != usdc || s.AssetName != "USDC" || s.Payee != payee || s.Payer != payer ||
		s.Network != network || s.Pairing != "x402/exact/eip155/eip3009" || s.H != r.H {
		t.Fatalf("summary %+v", s)
	}
	if d := time.Until(s.PayableUntil); d < 50*time.Second || d > 61*time.Second {
		t.Fatalf("payable until %s", s.PayableUntil)
	}
	// What went over the wire is the header of the Result, bound to H.
	paid := e.requests("api.seller.example")
	if len(paid) != 2 || paid[0].Signature != "" || paid[1].Signature != r.Header {
		t.Fatalf("requests %+v", paid)
	}
	sent, err := x402.DecodeHeader(r.Header)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := sent.GetObject("payload")
	auth, _ := payload.GetObject("authorization")
	if n, _ := auth.GetString("nonce"); n != hashA {
		t.Fatalf("nonce %s", n)
	}
	if got := [4]int64{e.seller.Unpaid.Load(), e.seller.Paid.Load(), e.seller.Rejected.Load(), e.seller.ATRFetches.Load()}; got != [4]int64{1, 1, 0, 1} {
		t.Fatalf("unpaid, paid, rejected, fetches = %v", got)
	}
	if n := e.signer.calls.Load(); n != 1 {
		t.Fatalf("%d signer calls", n)
	}
	if strings.Join(events, "|") != "before /v1/report 10000|after "+hashA {
		t.Fatalf("events %q", events)
	}
	if !strings.Contains(logs.String(), "pay: paid") || strings.Contains(logs.String(), "declined") {
		t.Fatalf("logs %s", logs.String())
	}
	// A request that is not asked to pay passes through untouched.
	resp, _, err = get(t, e.client, "https://api.seller.example/free")
	if err != nil || resp.StatusCode != 404 || pay.ResultOf(resp) != nil {
		t.Fatalf("free: %v %v", resp, err)
	}
}

// The seller switches its terms right after its 402: the link the 402 named
// no longer serves, so the gate declines before anything is signed.
func TestTermsChangeBetween402AndFetch(t *testing.T) {
	_, c := vectorATRs(t)
	var once sync.Once
	e := newEnv(t, func(e *env, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r)
			if r.Host == "api.seller.example" {
				once.Do(func() { e.seller.SetATR(c) })
			}
		})
	})
	_, _, err := get(t, e.client, e.seller.ResourceURL())
	mustDecline(t, err, gate.ATRUnfetchable, "The link answered status 404.")
	if n := e.signer.calls.Load(); n != 0 || e.seller.Paid.Load() != 0 {
		t.Fatalf("%d signer calls, %d paid", n, e.seller.Paid.Load())
	}
}

// The seller switches its terms after the buyer signed: the payment is bound
// to the terms the buyer read (A), the seller refuses it, and the client
// returns the seller's 402 without signing a second time.
func TestTermsChangeAfterSigning(t *testing.T) {
	a, c := vectorATRs(t)
	e := newEnv(t, nil)
	e.transport.Hooks.AfterSign = func(context.Context, *http.Request, *pay.Result) { e.seller.SetATR(c) }
	resp, _, err := get(t, e.client, e.seller.ResourceURL())
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("status %d", resp.StatusCode)
	}
	r := pay.ResultOf(resp)
	if r == nil || r.Accepted() || r.StatusCode != 402 || !bytes.Equal(r.ATR, a) || r.H.String() != hashA {
		t.Fatalf("result %+v", r)
	}
	if rej := e.seller.LastRejection(); rej == nil || !strings.Contains(rej.Error(), "nonce "+hashA) {
		t.Fatalf("seller: %v", rej)
	}
	if n := e.signer.calls.Load(); n != 1 || e.seller.Rejected.Load() != 1 || e.seller.Paid.Load() != 0 {
		t.Fatalf("%d signer calls, %d rejected", n, e.seller.Rejected.Load())
	}
	// The new 402 advertises the new terms; paying them is a new request.
	doc, _ := x402.DecodeHeader(resp.Header.Get(pay.HeaderRequired))
	ext, _ := doc.GetObject("extensions")
	lc, _ := ext.GetObject("legalContext")
	info, _ := lc.GetObject("info")
	if v, _ := info.GetString("value"); v != e.seller.Hash().String() || v == hashA {
		t.Fatalf("new 402 advertises %s", v)
	}
}

// Different bytes at the advertised link: hash-mismatch, nothing signed.
func TestServedTermsDifferFromAdvertised(t *testing.T) {
	_, c := vectorATRs(t)
	e := newEnv(t, nil)
	e.seller.Lie(c)
	_, _, err := get(t, e.client, e.seller.ResourceURL())
	mustDecline(t, err, gate.HashMismatch, gate.DetailHashMismatch)
	if n := e.signer.calls.Load(); n != 0 || e.seller.ATRFetches.Load() != 1 {
		t.Fatalf("%d signer calls, %d fetches", n, e.seller.ATRFetches.Load())
	}
}

// redirecting answers /v1/moved-<kind> like the paid resource, but turns
// the seller's 200 into a redirect: cross-origin, same origin, or same origin
// to the paid resource again.
func redirecting(e *env, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		targets := map[string]string{
			"/v1/moved-cross": "https://seller.example/elsewhere",
			"/v1/moved-same":  "https://api.seller.example/v1/landing",
			"/v1/moved-again": "https://api.seller.example/v1/report",
		}
		switch {
		case r.Host == "api.seller.example" && targets[r.URL.Path] != "":
			rec := asResource(next, r, e.seller.ResourcePath)
			copyHeaders(w, rec)
			if rec.Code == 200 {
				w.Header().Set("Location", targets[r.URL.Path])
				w.WriteHeader(http.StatusFound)
				return
			}
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
		case r.URL.Path == "/v1/landing" || r.URL.Path == "/elsewhere":
			w.Write([]byte("landed on " + r.Host))
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func TestRedirectAfterPaying(t *testing.T) {
	t.Run("cross-origin is not followed", func(t *testing.T) {
		e := newEnv(t, redirecting)
		resp, _, err := get(t, e.client, "https://api.seller.example/v1/moved-cross")
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "https://seller.example/elsewhere" {
			t.Fatalf("status %d location %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		r := pay.ResultOf(resp)
		if r == nil || r.StatusCode != 302 || r.Settlement == nil || !r.Settlement.Success {
			t.Fatalf("result %+v", r)
		}
		if n := len(e.requests("seller.example")); n != 0 {
			t.Fatalf("%d requests reached the other origin", n)
		}
	})
	t.Run("cross-origin without CheckRedirect carries no payment", func(t *testing.T) {
		e := newEnv(t, redirecting)
		plain := &http.Client{Transport: e.transport}
		resp, body, err := get(t, plain, "https://api.seller.example/v1/moved-cross")
		if err != nil || string(body) != "landed on seller.example" {
			t.Fatalf("%v %q", err, body)
		}
		other := e.requests("seller.example")
		if len(other) != 1 || other[0].Signature != "" {
			t.Fatalf("other origin saw %+v", other)
		}
		if pay.ResultOf(resp) == nil || e.signer.calls.Load() != 1 {
			t.Fatal("the payment is not reported")
		}
	})
	t.Run("same origin is followed", func(t *testing.T) {
		e := newEnv(t, redirecting)
		resp, body, err := get(t, e.client, "https://api.seller.example/v1/moved-same")
		if err != nil || resp.StatusCode != 200 || string(body) != "landed on api.seller.example" {
			t.Fatalf("%v %v %q", err, resp, body)
		}
		if r := pay.ResultOf(resp); r == nil || r.URL != "https://api.seller.example/v1/moved-same" {
			t.Fatalf("result %+v", r)
		}
	})
	t.Run("a second 402 in the chain is not paid", func(t *testing.T) {
		e := newEnv(t, redirecting)
		resp, _, err := get(t, e.client, "https://api.seller.example/v1/moved-again")
		if err != nil || resp.StatusCode != http.StatusPaymentRequired {
			t.Fatalf("%v %v", err, resp)
		}
		if n := e.signer.calls.Load(); n != 1 || pay.ResultOf(resp) == nil {
			t.Fatalf("%d signer calls", n)
		}
	})
}

// countingBase counts what the client read of each response body.
type countingBase struct {
	http.RoundTripper
	mu   sync.Mutex
	read map[string]int64 // by path
}

func (c *countingBase) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.RoundTripper.RoundTrip(req)
	if err == nil {
		resp.Body = &countedBody{ReadCloser: resp.Body, add: func(n int) {
			c.mu.Lock()
			c.read[req.URL.Path+" "+resp.Status] += int64(n)
			c.mu.Unlock()
		}}
	}
	return resp, err
}

type countedBody struct {
	io.ReadCloser
	add func(int)
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.add(n)
	return n, err
}

// A 402 whose body never ends: the client reads a bounded prefix, then pays.
func TestOversized402BodyIsCapped(t *testing.T) {
	for _, limit := range []int64{0, 4096} {
		e := newEnv(t, func(e *env, next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v1/big" || r.Header.Get(pay.HeaderSignature) != "" {
					if r.URL.Path == "/v1/big" {
						r.URL.Path = e.seller.ResourcePath
					}
					next.ServeHTTP(w, r)
					return
				}
				doc, _ := e.seller.Required()
				w.Header().Set(pay.HeaderRequired, x402.EncodeHeader(doc))
				w.WriteHeader(http.StatusPaymentRequired)
				chunk := bytes.Repeat([]byte("x"), 32<<10)
				for i := 0; i < 256; i++ { // 8 MiB, or until the client hangs up
					if _, err := w.Write(chunk); err != nil {
						return
					}
				}
			})
		})
		cb := &countingBase{RoundTripper: e.base, read: map[string]int64{}}
		e.transport.Base = cb
		e.transport.Max402Body = limit
		resp, body, err := get(t, e.client, "https://api.seller.example/v1/big")
		if err != nil || resp.StatusCode != 200 || string(body) != paidBody {
			t.Fatalf("limit %d: %v %v %q", limit, err, resp, body)
		}
		want := limit
		if want == 0 {
			want = pay.DefaultMax402Body
		}
		if got := cb.read["/v1/big 402 Payment Required"]; got != want {
			t.Fatalf("limit %d: read %d bytes of the 402 body", limit, got)
		}
	}
}

// onlyReader hides a reader's type so that http.NewRequest sets no GetBody.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func TestPostBodyReplayedByteExact(t *testing.T) {
	payload := append([]byte(`{"q":"caf\u00e9"}`), 0, 0xff, '\r', '\n')
	for _, tc := range []struct {
		name string
		body func() io.Reader
	}{
		{"GetBody", func() io.Reader { return bytes.NewReader(payload) }},
		{"buffered", func() io.Reader { return onlyReader{bytes.NewReader(payload)} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			req, _ := http.NewRequest(http.MethodPost, e.seller.ResourceURL(), tc.body())
			if (req.GetBody != nil) != (tc.name == "GetBody") {
				t.Fatal("GetBody not as the case needs")
			}
			req.Header.Set("Content-Type", "application/octet-stream")
			resp, err := e.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("status %d", resp.StatusCode)
			}
			seen := e.requests("api.seller.example")
			if len(seen) != 2 || seen[0].Method != "POST" || seen[1].Method != "POST" || seen[1].Signature == "" {
				t.Fatalf("seen %+v", seen)
			}
			for i, s := range seen {
				if !bytes.Equal(s.Body, payload) {
					t.Fatalf("request %d body %q", i, s.Body)
				}
			}
		})
	}
	t.Run("too long without GetBody", func(t *testing.T) {
		e := newEnv(t, nil)
		e.transport.MaxReplayBody = 1024
		long := bytes.Repeat([]byte("y"), 4096)
		req, _ := http.NewRequest(http.MethodPost, e.seller.ResourceURL(), onlyReader{bytes.NewReader(long)})
		_, err := e.client.Do(req)
		if !errors.Is(err, pay.ErrBodyNotReplayable) {
			t.Fatalf("err %v", err)
		}
		seen := e.requests("api.seller.example")
		if len(seen) != 1 || !bytes.Equal(seen[0].Body, long) {
			t.Fatalf("the first request did not carry the whole body: %d requests", len(seen))
		}
		if n := e.signer.calls.Load(); n != 0 || e.seller.ATRFetches.Load() != 0 {
			t.Fatalf("%d signer calls, %d fetches", n, e.seller.ATRFetches.Load())
		}
	})
}

func TestDeclinesSignNothing(t *testing.T) {
	t.Run("402 without PAYMENT-REQUIRED is returned", func(t *testing.T) {
		e := newEnv(t, func(e *env, next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusPaymentRequired)
				w.Write([]byte("pay somehow"))
			})
		})
		resp, body, err := get(t, e.client, e.seller.ResourceURL())
		if err != nil || resp.StatusCode != 402 || string(body) != "pay somehow" || pay.ResultOf(resp) != nil {
			t.Fatalf("%v %v %q", err, resp, body)
		}
	})
	spaced := x402.EncodeHeader(jsonv.Obj("x402Version", 2))
	spaced = spaced[:4] + " " + spaced[4:]
	for _, header := range []string{"not base64!", spaced, x402.EncodeHeader([]jsonv.Value{})} {
		t.Run("unreadable PAYMENT-REQUIRED", func(t *testing.T) {
			e := newEnv(t, func(e *env, next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set(pay.HeaderRequired, header)
					w.WriteHeader(http.StatusPaymentRequired)
				})
			})
			var declined *gate.Decline
			e.transport.Hooks.Declined = func(_ context.Context, _ *http.Request, d *gate.Decline) { declined = d }
			_, _, err := get(t, e.client, e.seller.ResourceURL())
			d := mustDecline(t, err, gate.OfferUnreadable, pay.DetailRequiredUnreadable)
			if declined != d {
				t.Fatal("Declined hook not called with the decline")
			}
		})
	}
	t.Run("no option on the signer's network", func(t *testing.T) {
		e := newEnv(t, nil)
		e.seller.Option.Set("network", "eip155:1")
		_, _, err := get(t, e.client, e.seller.ResourceURL())
		mustDecline(t, err, gate.NoPayableOption, "x402/no-payable-option")
		if e.seller.ATRFetches.Load() != 0 || e.signer.calls.Load() != 0 {
			t.Fatal("fetched or signed")
		}
	})
	t.Run("document without legalContext", func(t *testing.T) {
		e := newEnv(t, func(e *env, next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{e.seller.Option})
				w.Header().Set(pay.HeaderRequired, x402.EncodeHeader(doc))
				w.WriteHeader(http.StatusPaymentRequired)
			})
		})
		_, _, err := get(t, e.client, e.seller.ResourceURL())
		mustDecline(t, err, gate.OfferUnreadable, "x402/no-legal-context")
	})
	t.Run("signer fails: budget given back", func(t *testing.T) {
		e := newEnv(t, nil)
		policy, _ := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(10000), Budget: bigInt(10000)}}})
		e.transport.Policy = policy
		e.transport.Signer = failingSigner{e.signer}
		_, _, err := get(t, e.client, e.seller.ResourceURL())
		mustDecline(t, err, gate.SignerFailed, gate.DetailSignerFailed)
		if s := policy.Spent(network, usdc); s.Sign() != 0 {
			t.Fatalf("spent %s after a failed signature", s)
		}
	})
	t.Run("a caller's own PAYMENT-SIGNATURE passes through", func(t *testing.T) {
		e := newEnv(t, nil)
		req, _ := http.NewRequest(http.MethodGet, e.seller.ResourceURL(), nil)
		req.Header.Set(pay.HeaderSignature, x402.EncodeHeader(jsonv.Obj("x402Version", 2)))
		resp, err := e.client.Do(req)
		if err != nil || resp.StatusCode != 402 {
			t.Fatalf("%v %v", err, resp)
		}
		resp.Body.Close()
		if e.signer.calls.Load() != 0 || e.seller.ATRFetches.Load() != 0 {
			t.Fatal("paid over the caller's payment")
		}
	})
}

type failingSigner struct{ *countingSigner }

func (f failingSigner) Sign(ctx context.Context, req *jsonv.Object) (jsonv.Value, error) {
	f.calls.Add(1)
	return nil, errors.New("hardware wallet unplugged")
}

// Concurrent payments share one policy: the budget admits exactly as many
// as it holds, whatever the interleaving.
func TestConcurrentPaymentsRespectTheBudget(t *testing.T) {
	e := newEnv(t, nil)
	policy, _ := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: network, Asset: usdc, MaxAmount: bigInt(10000), Budget: bigInt(50000)}}})
	e.transport.Policy = policy
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, exhausted := 0, 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, _, err := get(t, e.client, e.seller.ResourceURL())
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && resp.StatusCode == 200:
				ok++
			case asDecline(err) != nil && pay.DetailCode(asDecline(err).Detail) == pay.DetailBudgetExhausted:
				exhausted++
			default:
				t.Errorf("%v %v", err, resp)
			}
		}()
	}
	wg.Wait()
	if ok != 5 || exhausted != 3 || e.signer.calls.Load() != 5 || policy.Spent(network, usdc).String() != "50000" {
		t.Fatalf("%d paid, %d exhausted, %d signed, spent %s", ok, exhausted, e.signer.calls.Load(), policy.Spent(network, usdc))
	}
}

// The connection breaks while the payment is sent: the error carries the
// signed payment, which is presented again as is, not signed anew.
func TestBrokenSendKeepsThePayment(t *testing.T) {
	var dropping atomic.Bool
	dropping.Store(true)
	e := newEnv(t, func(e *env, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get(pay.HeaderSignature) != "" && dropping.Load() {
				// net/http resends an idempotent request once on a fresh
				// connection (the same bytes, the same signature); both drop.
				if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
					conn.Close()
				}
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	_, _, err := get(t, e.client, e.seller.ResourceURL())
	var se *pay.SendError
	if !errors.As(err, &se) || se.Result == nil || se.Result.Header == "" || se.Result.H.String() != hashA {
		t.Fatalf("err %v", err)
	}
	dropping.Store(false)
	req, _ := http.NewRequest(http.MethodGet, e.seller.ResourceURL(), nil)
	req.Header.Set(pay.HeaderSignature, se.Result.Header)
	resp, err := e.client.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v (seller: %v)", err, resp, e.seller.LastRejection())
	}
	resp.Body.Close()
	if n := e.signer.calls.Load(); n != 1 {
		t.Fatalf("%d signer calls", n)
	}
}
