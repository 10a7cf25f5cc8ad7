package pay_test

import (
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/pay"
)

// movingSeller redirects https://api.seller.example/v1/moved to the same
// paid resource at https://seller.example, which answers as the
// seller does: a redirect before the 402 leads to another origin.
func movingSeller(e *env, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Host == "api.seller.example" && r.URL.Path == "/v1/moved":
			http.Redirect(w, r, "https://seller.example"+e.seller.ResourcePath, http.StatusFound)
		case r.Host == "seller.example":
			r2 := r.Clone(r.Context())
			r2.Host = e.seller.APIHost
			next.ServeHTTP(w, r2)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func originPolicy(t *testing.T, origins ...string) *pay.Policy {
	t.Helper()
	p, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: big.NewInt(10000)}}, Origins: origins})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// PolicyConfig.Origins: only these origins are paid; a redirect before the
// 402 to another origin is then declined with nothing fetched or signed.
func TestOrigins(t *testing.T) {
	t.Run("without Origins the redirect's origin is paid", func(t *testing.T) {
		e := newEnv(t, movingSeller)
		resp, body, err := get(t, e.client, "https://api.seller.example/v1/moved")
		if err != nil || resp.StatusCode != 200 || string(body) != paidBody {
			t.Fatalf("%v %v %q", err, resp, body)
		}
		if r := pay.ResultOf(resp); r == nil || !strings.HasPrefix(r.URL, "https://seller.example/") {
			t.Fatalf("result %+v", r)
		}
	})
	t.Run("a redirect to an origin not listed is declined", func(t *testing.T) {
		e := newEnv(t, movingSeller)
		e.transport.Policy = originPolicy(t, "https://api.seller.example")
		_, _, err := get(t, e.client, "https://api.seller.example/v1/moved")
		d := mustDecline(t, err, gate.NoPayableOption, pay.DetailOriginNotAllowed)
		if want := "policy/origin-not-allowed: https://seller.example:443 (redirected from https://api.seller.example:443)"; d.Detail != want {
			t.Fatalf("detail %q, want %q", d.Detail, want)
		}
		if e.signer.calls.Load() != 0 || e.seller.ATRFetches.Load() != 0 || len(e.requests("seller.example")) != 1 {
			t.Fatalf("%d signer calls, %d fetches, %d requests to the other origin", e.signer.calls.Load(), e.seller.ATRFetches.Load(), len(e.requests("seller.example")))
		}
	})
	t.Run("a listed origin is paid, in any spelling of its default port", func(t *testing.T) {
		e := newEnv(t, movingSeller)
		e.transport.Policy = originPolicy(t, "https://api.seller.example:443/")
		resp, _, err := get(t, e.client, e.seller.ResourceURL())
		if err != nil || resp.StatusCode != 200 || e.signer.calls.Load() != 1 {
			t.Fatalf("%v %v, %d signer calls", err, resp, e.signer.calls.Load())
		}
	})
	t.Run("both origins listed: the redirect is paid", func(t *testing.T) {
		e := newEnv(t, movingSeller)
		e.transport.Policy = originPolicy(t, "https://api.seller.example", "https://SELLER.example")
		resp, _, err := get(t, e.client, "https://api.seller.example/v1/moved")
		if err != nil || resp.StatusCode != 200 || e.signer.calls.Load() != 1 {
			t.Fatalf("%v %v, %d signer calls", err, resp, e.signer.calls.Load())
		}
	})
	t.Run("Gate.Policy's origins hold too", func(t *testing.T) {
		e := newEnv(t, movingSeller)
		g := *e.transport.Gate
		g.Policy = originPolicy(t, "https://api.seller.example")
		e.transport.Gate = &g
		_, _, err := get(t, e.client, "https://api.seller.example/v1/moved")
		mustDecline(t, err, gate.NoPayableOption, pay.DetailOriginNotAllowed)
		if e.signer.calls.Load() != 0 {
			t.Fatal("signed")
		}
	})
	for _, bad := range []string{"api.seller.example", "https://api.seller.example/v1", "ftp://api.seller.example", "https://u@api.seller.example", "https://api.seller.example?x=1"} {
		if _, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: big.NewInt(1)}}, Origins: []string{bad}}); err == nil {
			t.Errorf("Origins %q accepted", bad)
		}
	}
}
