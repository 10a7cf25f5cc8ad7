package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// schemeRouter sends http to a plain-text server and the rest to next.
type schemeRouter struct{ tls, plain http.RoundTripper }

func (s schemeRouter) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme == "http" {
		return s.plain.RoundTrip(r)
	}
	return s.tls.RoundTrip(r)
}

// TestPayPlainHTTP: a 402 over plain http is declined with a hint and
// nothing signed; with --allow-http the dry run names the http origin that
// would be paid.
func TestPayPlainHTTP(t *testing.T) {
	s := newPaySeller(t)
	plain := httptest.NewServer(s)
	defer plain.Close()
	tls := payClient(false)
	var d net.Dialer
	toPlain := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, plain.Listener.Addr().String())
	}}
	defer toPlain.CloseIdleConnections()
	payClient = func(bool) *http.Client {
		return &http.Client{Transport: schemeRouter{tls: tls.Transport, plain: toPlain}, CheckRedirect: tls.CheckRedirect}
	}
	url := "http://" + s.APIHost + s.ResourcePath

	code, out, errs := runCLI(t, "", "pay", "--dev-key", "--max-amount", "10000", url)
	if code != exitDeclined || !strings.Contains(out, `"pay/plain-http"`) || !strings.Contains(errs, "--allow-http pays it") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	if s.signatures() != 0 || s.Paid.Load() != 0 {
		t.Fatalf("%d signatures sent", s.signatures())
	}

	code, _, errs = runCLI(t, "", "pay", "--dev-key", "--allow-http", "--dry-run", url)
	if code != exitOK || !strings.Contains(errs, "dry run: http://api.seller.example asks for a signature granting 10000 atomic units") ||
		!strings.Contains(errs, "WARNING: plain http") {
		t.Fatalf("exit %d\nstderr %s", code, errs)
	}
}
