package mcpserver_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/mcpserver"
)

// TestDeclineCarriesCause: a fetch over TLS the client does not trust is
// atr-unfetchable with the pinned detail; what failed is in its own member,
// cause, never in detail.
func TestDeclineCarriesCause(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.A)
	addr := s.srv.Listener.Addr().String()
	// The system's roots: the loopback seller's certificate is unknown to them.
	untrusting := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
	}}
	cs := connectStdio(t, newServer(t, f, s, mcpserver.Config{Client: untrusting}), nil)
	r := callUnchecked(t, cs, "atr_confirm", f.confirmArgs())
	wantDecline(t, r, "atr-unfetchable", atr.DetailUnfetchable)
	cause, _ := r.value.GetString("cause")
	if !strings.Contains(cause, "certificate") {
		t.Fatalf("cause %q in %s", cause, r.text)
	}
}
