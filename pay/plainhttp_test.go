package pay_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/pay"
)

// bySchemes sends https to the loopback TLS seller and http to the same
// seller served in plain text.
type bySchemes struct{ https, http http.RoundTripper }

func (b bySchemes) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme == "http" {
		return b.http.RoundTrip(r)
	}
	return b.https.RoundTrip(r)
}

// plainEnv is env whose seller is also reachable over plain http, and whose
// /v1/to-http redirects the https request to the paid resource over http.
func plainEnv(t *testing.T) *env {
	e := newEnv(t, func(e *env, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/to-http" {
				http.Redirect(w, r, "http://api.seller.example"+e.seller.ResourcePath, http.StatusFound)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	plain := httptest.NewServer(e.srv.Config.Handler)
	t.Cleanup(plain.Close)
	var d net.Dialer
	toPlain := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, plain.Listener.Addr().String())
	}}
	t.Cleanup(toPlain.CloseIdleConnections)
	e.transport.Base = bySchemes{https: e.base, http: toPlain}
	return e
}

// TestPlainHTTPNotPaid: a 402 that came over plain http, after an https
// URL redirected there or asked for directly, is declined
// no-payable-option pay/plain-http with no fetch and no signature (before,
// the redirect's 402 was paid over http without a word); with AllowHTTP it
// is paid.
func TestPlainHTTPNotPaid(t *testing.T) {
	for _, url := range []string{"https://api.seller.example/v1/to-http", "http://api.seller.example/v1/report"} {
		e := plainEnv(t)
		_, _, err := get(t, e.client, url)
		mustDecline(t, err, gate.NoPayableOption, pay.DetailPlainHTTP)
		if n := e.signer.calls.Load(); n != 0 || e.seller.ATRFetches.Load() != 0 {
			t.Fatalf("%s: %d signatures, %d ATR fetches", url, n, e.seller.ATRFetches.Load())
		}
		for _, r := range e.requests("api.seller.example") {
			if r.Signature != "" {
				t.Fatalf("%s: a payment was sent: %+v", url, r)
			}
		}
	}

	e := plainEnv(t)
	e.transport.AllowHTTP = true
	resp, body, err := get(t, e.client, "https://api.seller.example/v1/to-http")
	if err != nil || resp.StatusCode != http.StatusOK || string(body) != paidBody {
		t.Fatalf("with AllowHTTP: %v %v %q", err, resp, body)
	}
	if n := e.signer.calls.Load(); n != 1 {
		t.Fatalf("with AllowHTTP: %d signatures", n)
	}
}
