package pay_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/mpp"
)

// The whole MPP exchange against a seller that verifies before it answers
// 200: the credential's transaction carries the attribution memo of a
// challenge it issued for the terms it serves, pays its amount to its
// recipient on its chain, and recovers to the payer the credential names.
func TestPaysMPPEndToEnd(t *testing.T) {
	e := newMPPEnv(t, nil)
	var mu sync.Mutex
	var events []string
	event := func(s string) { mu.Lock(); events = append(events, s); mu.Unlock() }
	e.transport.Hooks = pay.Hooks{
		BeforeSign: func(_ context.Context, _ *http.Request, s pay.Summary) error {
			event("before " + s.Amount.String() + " " + s.Network)
			return nil
		},
		AfterSign: func(_ context.Context, _ *http.Request, r *pay.Result) { event("after " + r.HeaderName) },
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
	if r.Protocol != pay.ProtocolMPP || r.Pairing != mppPairing || r.HeaderName != "Authorization" ||
		!strings.HasPrefix(r.Header, "Payment ") || r.PaymentID != "" || !r.Accepted() {
		t.Fatalf("result %+v", r)
	}
	if st := r.Settlement; st == nil || !st.Success || !mpp.IsWord32(st.Transaction) || st.Network != "" || r.SettlementErr != nil {
		t.Fatalf("receipt %+v (%v)", st, r.SettlementErr)
	}
	if !bytes.Equal(r.ATR, e.terms) || r.H != e.seller.Hash() {
		t.Fatalf("ATR %q H %s", r.ATR, r.H)
	}
	// What went over the wire is the Result's header, and its credential
	// carries H: the gate reads it back from what was sent.
	seen := e.requests()
	if len(seen) != 2 || seen[0].Authorization != "" || seen[1].Authorization != r.Header || seen[1].PaymentAuthzn != "" {
		t.Fatalf("requests %+v", seen)
	}
	cred, err := mpp.ParseHeader(r.Header)
	if err != nil || !jsonv.Equal(cred, r.Signed) {
		t.Fatalf("sent %v, signed %v (%v)", cred, r.Signed, err)
	}
	if h, err := e.transport.Gate.Check(r.ATR, r.Pairing, cred); err != nil || h != r.H {
		t.Fatalf("read back %s %v", h, err)
	}
	s := r.Summary
	if s.Amount.String() != "1000000" || s.Asset != pathUSD || s.Payee != common.HexToAddress(mppPayee).Hex() ||
		s.Payer != payer || s.Network != tempoNetwork || s.Pairing != mppPairing || s.H != r.H || s.AssetName != "" {
		t.Fatalf("summary %+v", s)
	}
	if d := time.Until(s.PayableUntil); d < 4*time.Minute || d > 5*time.Minute+time.Second {
		t.Fatalf("payable until %s", s.PayableUntil)
	}
	if e.seller.Payer() != payer {
		t.Fatalf("the seller recovered %s", e.seller.Payer())
	}
	if got := e.counters(); got != [4]int64{1, 1, 0, 1} {
		t.Fatalf("unpaid, paid, rejected, fetches = %v", got)
	}
	if n := e.signer.calls.Load(); n != 1 {
		t.Fatalf("%d signer calls", n)
	}
	if strings.Join(events, "|") != "before 1000000 "+tempoNetwork+"|after Authorization" {
		t.Fatalf("events %q", events)
	}
	if spent := e.policy.Spent(tempoNetwork, pathUSD); spent.String() != "1000000" {
		t.Fatalf("spent %s", spent)
	}
}

func TestMPPPostBodyReplayed(t *testing.T) {
	e := newMPPEnv(t, nil)
	payload := []byte(`{"q":"caf\u00e9"}`)
	req, _ := http.NewRequest(http.MethodPost, e.seller.ResourceURL(), onlyReader{bytes.NewReader(payload)})
	resp, err := e.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	seen := e.requests()
	if resp.StatusCode != 200 || len(seen) != 2 || !bytes.Equal(seen[0].Body, payload) || !bytes.Equal(seen[1].Body, payload) ||
		seen[1].Method != http.MethodPost {
		t.Fatalf("status %d, seen %+v", resp.StatusCode, seen)
	}
}

// The seller serves other bytes at its link while its 402 advertises the
// hash of its terms: hash-mismatch, the signer never called.
func TestMPPLyingSellerIsDeclined(t *testing.T) {
	e := newMPPEnv(t, nil)
	e.seller.Lie(append(append([]byte(nil), e.terms...), ' '))
	var declined *gate.Decline
	e.transport.Hooks.Declined = func(_ context.Context, _ *http.Request, d *gate.Decline) { declined = d }
	_, _, err := get(t, e.client, e.seller.ResourceURL())
	d := mustDecline(t, err, gate.HashMismatch, gate.DetailHashMismatch)
	if declined != d || e.signer.calls.Load() != 0 {
		t.Fatalf("%d signer calls", e.signer.calls.Load())
	}
	if got := e.counters(); got != [4]int64{1, 0, 0, 1} || len(e.requests()) != 1 {
		t.Fatalf("unpaid, paid, rejected, fetches = %v", got)
	}
}

func TestMPPPolicyRefusals(t *testing.T) {
	other := "0x1111111111111111111111111111111111111111"
	cases := []struct {
		name   string
		cfg    pay.PolicyConfig
		detail string
	}{
		{"amount above maximum", pay.PolicyConfig{Limits: []pay.Limit{{Network: tempoNetwork, Asset: pathUSD, MaxAmount: bigInt(999_999)}}}, pay.DetailAmountAboveMaximum},
		{"network without a limit", pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(1 << 40)}}}, pay.DetailNetworkNotAllowed},
		{"asset not allowed", pay.PolicyConfig{Limits: []pay.Limit{{Network: tempoNetwork, Asset: other, MaxAmount: bigInt(1 << 40)}}}, pay.DetailAssetNotAllowed},
		{"payee not allowed", pay.PolicyConfig{Limits: []pay.Limit{{Network: tempoNetwork, MaxAmount: bigInt(1 << 40)}}, Payees: []string{other}}, pay.DetailPayeeNotAllowed},
		{"payable too long", pay.PolicyConfig{Limits: []pay.Limit{{Network: tempoNetwork, MaxAmount: bigInt(1 << 40)}}, MaxPayable: time.Minute}, pay.DetailPayableTooLong},
		{"budget exhausted", pay.PolicyConfig{Limits: []pay.Limit{{Network: tempoNetwork, MaxAmount: bigInt(1 << 40), Budget: bigInt(999_999)}}}, pay.DetailBudgetExhausted},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newMPPEnv(t, nil)
			p, err := pay.NewPolicy(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			e.transport.Policy = p
			_, _, err = get(t, e.client, e.seller.ResourceURL())
			mustDecline(t, err, gate.NoPayableOption, tc.detail)
			if e.signer.calls.Load() != 0 || e.seller.ATRFetches.Load() != 1 || len(e.requests()) != 1 {
				t.Fatalf("%d signer calls, %d fetches, %d requests", e.signer.calls.Load(), e.seller.ATRFetches.Load(), len(e.requests()))
			}
		})
	}
	t.Run("vetoed by BeforeSign: budget given back", func(t *testing.T) {
		e := newMPPEnv(t, nil)
		e.transport.Hooks.BeforeSign = func(context.Context, *http.Request, pay.Summary) error { return errors.New("not today") }
		_, _, err := get(t, e.client, e.seller.ResourceURL())
		mustDecline(t, err, gate.NoPayableOption, pay.DetailVetoed)
		if e.signer.calls.Load() != 0 || e.policy.Spent(tempoNetwork, pathUSD).Sign() != 0 {
			t.Fatalf("%d signer calls, spent %s", e.signer.calls.Load(), e.policy.Spent(tempoNetwork, pathUSD))
		}
	})
}

// addHeaderParam adds header="Payment-Authorization" to every Payment
// challenge of the seller's 402s: the id (from H and the position) and the
// seller's own binding do not cover it, so the seller still recognises
// what it issued.
func addHeaderParam(_ *mppEnv, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		copyHeaders(w, rec)
		if vs := w.Header().Values("WWW-Authenticate"); len(vs) > 0 {
			w.Header().Del("WWW-Authenticate")
			for _, v := range vs {
				w.Header().Add("WWW-Authenticate", v+`, header="Payment-Authorization"`)
			}
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}

// ownAuthorization stands for a seller that authenticates its callers
// with Authorization and takes payments in Payment-Authorization: the
// caller's Bearer token is its business, not the payment verifier's
// (mppseller reads Authorization first).
func ownAuthorization(e *mppEnv, next http.Handler) http.Handler {
	next = addHeaderParam(e, next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			r.Header.Del("Authorization")
		}
		next.ServeHTTP(w, r)
	})
}

func TestMPPCredentialHeader(t *testing.T) {
	t.Run("the challenge names Payment-Authorization", func(t *testing.T) {
		e := newMPPEnv(t, ownAuthorization)
		req, _ := http.NewRequest(http.MethodGet, e.seller.ResourceURL(), nil)
		req.Header.Set("Authorization", "Bearer the-callers-own")
		resp, err := e.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		r := pay.ResultOf(resp)
		if resp.StatusCode != 200 || r == nil || r.HeaderName != mpp.PaymentAuthorization {
			t.Fatalf("status %d result %+v (seller: %v)", resp.StatusCode, r, e.seller.LastRejection())
		}
		// The caller's Authorization is kept; the payment is beside it.
		seen := e.requests()
		if len(seen) != 2 || seen[1].Authorization != "Bearer the-callers-own" || seen[1].PaymentAuthzn != r.Header {
			t.Fatalf("seen %+v", seen)
		}
	})
	t.Run("Authorization already taken", func(t *testing.T) {
		e := newMPPEnv(t, nil)
		req, _ := http.NewRequest(http.MethodGet, e.seller.ResourceURL(), nil)
		req.Header.Set("Authorization", "Bearer the-callers-own")
		_, err := e.client.Do(req)
		mustDecline(t, err, gate.NoPayableOption, pay.DetailCredentialHeaderTaken)
		if e.signer.calls.Load() != 0 || e.policy.Spent(tempoNetwork, pathUSD).Sign() != 0 || len(e.requests()) != 1 {
			t.Fatalf("%d signer calls", e.signer.calls.Load())
		}
	})
	for _, h := range [][2]string{{"Authorization", "payment eyJ9"}, {mpp.PaymentAuthorization, "Payment eyJ9"}} {
		t.Run("a caller's own "+h[0]+" passes through", func(t *testing.T) {
			e := newMPPEnv(t, nil)
			req, _ := http.NewRequest(http.MethodGet, e.seller.ResourceURL(), nil)
			req.Header.Set(h[0], h[1])
			resp, err := e.client.Do(req)
			if err != nil || resp.StatusCode != 402 || pay.ResultOf(resp) != nil {
				t.Fatalf("%v %v", err, resp)
			}
			resp.Body.Close()
			if e.signer.calls.Load() != 0 || e.seller.ATRFetches.Load() != 0 {
				t.Fatal("paid over the caller's payment")
			}
		})
	}
}

func TestMPPDeclinesSignNothing(t *testing.T) {
	answer := func(header string) func(*mppEnv, http.Handler) http.Handler {
		return func(_ *mppEnv, next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Host != "api.seller.example" {
					next.ServeHTTP(w, r)
					return
				}
				w.Header().Set("WWW-Authenticate", header)
				w.WriteHeader(http.StatusPaymentRequired)
				w.Write([]byte("pay somehow"))
			})
		}
	}
	t.Run("other schemes only: the 402 is returned", func(t *testing.T) {
		for _, h := range []string{`Basic realm="x"`, `Bearer realm="x", error=`} {
			e := newMPPEnv(t, answer(h))
			resp, body, err := get(t, e.client, e.seller.ResourceURL())
			if err != nil || resp.StatusCode != 402 || string(body) != "pay somehow" || pay.ResultOf(resp) != nil {
				t.Fatalf("%s: %v %v %q", h, err, resp, body)
			}
		}
	})
	for h, detail := range map[string]string{
		`Payment id="x", realm=`:                                                            mpp.CodeHeaderMalformed,
		`Payment realm="api.seller.example", method="tempo"`:                                mpp.CodeChallengeMalformed,
		`Payment id="a", id="b", realm="r", method="tempo", intent="charge", request="e30"`: mpp.CodeChallengeMalformed,
		`Payment id="a", realm="r", method="tempo", intent="charge", request="e30"`:         mpp.CodeNoLegalContext,
	} {
		t.Run("unreadable: "+detail, func(t *testing.T) {
			e := newMPPEnv(t, answer(h))
			_, _, err := get(t, e.client, e.seller.ResourceURL())
			mustDecline(t, err, gate.OfferUnreadable, detail)
			if e.signer.calls.Load() != 0 || e.seller.ATRFetches.Load() != 0 {
				t.Fatal("fetched or signed")
			}
		})
	}
	t.Run("no challenge on the signer's network", func(t *testing.T) {
		e := newMPPEnv(t, nil)
		e.transport.Signer = anvil(t) // eip155:84532
		_, _, err := get(t, e.client, e.seller.ResourceURL())
		mustDecline(t, err, gate.NoPayableOption, mpp.CodeNoPayableOption)
		if e.seller.ATRFetches.Load() != 0 {
			t.Fatal("fetched")
		}
	})
	t.Run("an EVM charge needs the token's domain, which the transport does not give", func(t *testing.T) {
		e := newMPPEnv(t, nil)
		doc := evmAuthorizationDoc(t, e.seller.Link(e.seller.Hash()), e.seller.Hash())
		e.transport.Base = rewrite402(e.base, doc)
		e.transport.Signer = anvil(t)
		_, _, err := get(t, e.client, e.seller.ResourceURL())
		mustDecline(t, err, gate.NoPayableOption, mpp.CodeInputMissing)
		if e.seller.ATRFetches.Load() != 0 || e.signer.calls.Load() != 0 {
			t.Fatal("fetched or signed")
		}
	})
}

// The seller changes its terms after the buyer signed: the credential is
// bound to the terms read, the seller refuses it with a new 402, and that
// 402 is the answer: no second signature.
func TestMPPTermsChangeAfterSigning(t *testing.T) {
	e := newMPPEnv(t, nil)
	e.transport.Hooks.AfterSign = func(context.Context, *http.Request, *pay.Result) {
		e.seller.SetATR(append(append([]byte(nil), e.terms...), ' '))
	}
	resp, _, err := get(t, e.client, e.seller.ResourceURL())
	if err != nil || resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("%v %v", err, resp)
	}
	r := pay.ResultOf(resp)
	if r == nil || r.Accepted() || r.StatusCode != 402 || !bytes.Equal(r.ATR, e.terms) || r.Settlement != nil {
		t.Fatalf("result %+v", r)
	}
	if e.signer.calls.Load() != 1 || e.seller.Rejected.Load() != 1 || e.seller.Paid.Load() != 0 {
		t.Fatalf("%d signer calls, %d rejected", e.signer.calls.Load(), e.seller.Rejected.Load())
	}
	// Signed, so its reservation is kept.
	if e.policy.Spent(tempoNetwork, pathUSD).String() != "1000000" {
		t.Fatal("released a signed payment's budget")
	}
}

// rewrite402 replaces the WWW-Authenticate of every 402 with doc's
// challenges.
func rewrite402(base http.RoundTripper, doc []jsonv.Value) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := base.RoundTrip(req)
		if err == nil && resp.StatusCode == http.StatusPaymentRequired {
			resp.Header.Del("WWW-Authenticate")
			for _, c := range doc {
				o, _ := jsonv.AsObject(c)
				resp.Header.Add("WWW-Authenticate", mpp.ChallengeHeader(o))
			}
		}
		return resp, err
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestMPPBrokenSendKeepsThePayment(t *testing.T) {
	e := newMPPEnv(t, func(_ *mppEnv, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "" && r.Header.Get("X-Retry") == "" {
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
	if !errors.As(err, &se) || se.Result == nil || se.Result.HeaderName != "Authorization" || se.Result.H != e.seller.Hash() {
		t.Fatalf("err %v", err)
	}
	req, _ := http.NewRequest(http.MethodGet, e.seller.ResourceURL(), nil)
	req.Header.Set(se.Result.HeaderName, se.Result.Header)
	req.Header.Set("X-Retry", "1")
	resp, err := e.client.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v (seller: %v)", err, resp, e.seller.LastRejection())
	}
	resp.Body.Close()
	if n := e.signer.calls.Load(); n != 1 {
		t.Fatalf("%d signer calls", n)
	}
}
