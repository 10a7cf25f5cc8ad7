package atr

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// failingResolver answers every lookup with err.
type failingResolver struct{ err error }

func (r failingResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return nil, r.err
}

// TestFetchDeclineKeepsCause: every atr-unfetchable keeps the same pinned
// detail, and the error beneath it says which failure it was.
func TestFetchDeclineKeepsCause(t *testing.T) {
	slow := newSeller(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	gone := newSeller(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusGone) })
	moved := newSeller(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://elsewhere.example/atr", http.StatusFound)
	})
	dnsErr := &net.DNSError{Err: "no such host", Name: "atr.seller.example", IsNotFound: true}
	resolverFails := &http.Client{Transport: &http.Transport{DialContext: (&PublicDialer{Resolver: failingResolver{dnsErr}}).DialContext}}

	// Only the deadline case waits for its deadline; the others get room
	// enough for a loaded machine.
	const roomy = 10 * time.Second
	cases := []struct {
		name   string
		f      *Fetcher
		link   string
		detail string
		is     func(error) bool
	}{
		{"deadline", slow.fetcher(), slow.link("/atr"), DetailUnfetchable,
			func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
		{"status", &Fetcher{Client: gone.Client(), Timeout: roomy}, gone.link("/atr"), DetailStatus(410),
			func(err error) bool { var se *StatusError; return errors.As(err, &se) && se.Status == 410 }},
		{"redirect", &Fetcher{Client: moved.Client(), Timeout: roomy}, moved.link("/atr"), DetailRedirect,
			func(err error) bool {
				var se *StatusError
				return errors.As(err, &se) && se.Location == "https://elsewhere.example/atr"
			}},
		{"refused address", &Fetcher{Timeout: roomy}, slow.link("/atr"), DetailUnfetchable,
			func(err error) bool { var np *NotPublicError; return errors.As(err, &np) && np.Host == "127.0.0.1" }},
		{"resolver", &Fetcher{Client: resolverFails, Timeout: roomy}, "https://atr.seller.example/atr", DetailUnfetchable,
			func(err error) bool { var de *net.DNSError; return errors.As(err, &de) && de.IsNotFound }},
		{"tls", &Fetcher{Client: NewClient(true), Timeout: roomy}, gone.link("/atr"), DetailUnfetchable,
			func(err error) bool { var ua x509.UnknownAuthorityError; return errors.As(err, &ua) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := c.f.Fetch(context.Background(), c.link)
			wantDecline(t, b, err, CodeUnfetchable, c.detail)
			if !c.is(err) {
				t.Fatalf("cause not kept: %v (%T)", errors.Unwrap(err), errors.Unwrap(err))
			}
			if strings.Contains(err.Error(), errors.Unwrap(err).Error()) {
				t.Fatalf("the cause leaked into the decline's text: %q", err)
			}
		})
	}
}
