package mcppay_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/termsgate/termsgate/mcppay"
)

// Through the proxy, a paid tool is paid once: the terms fetched once, one
// signature, the seller verifying it; the agent gets the tool's output and
// the settlement in _meta. A free tool passes untouched.
func TestProxyPaysAPaidToolOverStdio(t *testing.T) {
	p := newPaidServer(t, "")
	payer, s := p.payer(t, false)
	c := proxied(t, p, payer)
	res := callTool(t, c, "report")
	if res.IsError || text(res) != paidBody {
		t.Fatalf("result %v: %s", res.IsError, text(res))
	}
	if res.Meta == nil || res.Meta.AdditionalFields[mcppay.MetaX402Response] == nil {
		t.Fatalf("no settlement in _meta: %+v", res.Meta)
	}
	if s.calls.Load() != 1 || p.paid.Load() != 1 || p.calls.Load() != 2 || p.seller.ATRFetches.Load() != 1 {
		t.Fatalf("signer %d, paid %d, calls %d, fetches %d", s.calls.Load(), p.paid.Load(), p.calls.Load(), p.seller.ATRFetches.Load())
	}
	if res := callTool(t, c, "free"); text(res) != "free" || s.calls.Load() != 1 {
		t.Fatalf("free: %s, signer %d", text(res), s.calls.Load())
	}
}

// The same over streamable HTTP, against mcp-go's HTTP server on port 0.
func TestProxyPaysAPaidToolOverHTTP(t *testing.T) {
	p := newPaidServer(t, "")
	payer, s := p.payer(t, false)
	hs := httptest.NewServer(server.NewStreamableHTTPServer(p.mcp))
	t.Cleanup(hs.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := viaProxy(t, ctx, payer, mcppay.DialHTTP(hs.URL+"/mcp", hs.Client(), nil))
	res := callTool(t, c, "report")
	if res.IsError || text(res) != paidBody || s.calls.Load() != 1 || p.paid.Load() != 1 {
		t.Fatalf("result %v %s, signer %d, paid %d", res.IsError, text(res), s.calls.Load(), p.paid.Load())
	}
}

// A server that asks for payment again on the paid retry gets no second
// signature: the agent gets payment-refused with the payment made in moved.
func TestProxyRefusedRetrySignsOnce(t *testing.T) {
	p := newPaidServer(t, "again")
	payer, s := p.payer(t, false)
	c := proxied(t, p, payer)
	code, detail, moved := declineOf(t, callTool(t, c, "report"))
	if code != string(mcppay.PaymentRefused) || detail != mcppay.DetailRefused || !moved {
		t.Fatalf("%s / %s, moved %v", code, detail, moved)
	}
	if s.calls.Load() != 1 || p.calls.Load() != 2 {
		t.Fatalf("signer %d, calls %d", s.calls.Load(), p.calls.Load())
	}
}

// PaymentRequired without terms is declined with nothing fetched or signed,
// unless the operator allows unbound payments.
func TestProxyNoTermsDeclined(t *testing.T) {
	p := newPaidServer(t, "")
	p.seller.Plain = true
	payer, s := p.payer(t, false)
	c := proxied(t, p, payer)
	code, detail, moved := declineOf(t, callTool(t, c, "report"))
	if code != "offer-unreadable" || detail != "x402/no-legal-context" || moved {
		t.Fatalf("%s / %s, moved %v", code, detail, moved)
	}
	if s.calls.Load() != 0 || p.seller.ATRFetches.Load() != 0 || p.calls.Load() != 1 {
		t.Fatalf("signer %d, fetches %d, calls %d", s.calls.Load(), p.seller.ATRFetches.Load(), p.calls.Load())
	}

	// One mcp-go MCPServer serves one stdio session: a second server.
	p2 := newPaidServer(t, "")
	p2.seller.Plain = true
	unbound, s2 := p2.payer(t, true)
	c2 := proxied(t, p2, unbound)
	if res := callTool(t, c2, "report"); res.IsError || text(res) != paidBody || s2.calls.Load() != 1 {
		t.Fatalf("unbound: %v %s, signer %d", res.IsError, text(res), s2.calls.Load())
	}
}

// Malformed and oversized payment-required documents are declined
// offer-unreadable before anything is fetched or signed; an oversized
// settlement _meta leaves the paid answer as it came, its settlement
// unread.
func TestProxyHostileMeta(t *testing.T) {
	for _, mode := range []string{"duplicate", "oversized"} {
		t.Run(mode, func(t *testing.T) {
			p := newPaidServer(t, mode)
			payer, s := p.payer(t, false)
			c := proxied(t, p, payer)
			code, detail, _ := declineOf(t, callTool(t, c, "report"))
			if code != "offer-unreadable" || detail != mcppay.DetailRequiredUnreadable {
				t.Fatalf("%s / %s", code, detail)
			}
			if s.calls.Load() != 0 || p.seller.ATRFetches.Load() != 0 {
				t.Fatalf("signer %d, fetches %d", s.calls.Load(), p.seller.ATRFetches.Load())
			}
		})
	}
	t.Run("hugemeta", func(t *testing.T) {
		p := newPaidServer(t, "hugemeta")
		payer, s := p.payer(t, false)
		var c *client.Client = proxied(t, p, payer)
		res := callTool(t, c, "report")
		if res.IsError || text(res) != paidBody || s.calls.Load() != 1 {
			t.Fatalf("%v %s, signer %d", res.IsError, text(res), s.calls.Load())
		}
	})
}

// The Go client: an mcp-go session on a wrapped transport pays its calls.
func TestClientPaysOverAnMCPGoSession(t *testing.T) {
	p := newPaidServer(t, "")
	payer, s := p.payer(t, false)
	hs := httptest.NewServer(server.NewStreamableHTTPServer(p.mcp))
	t.Cleanup(hs.Close)
	inner, err := transport.NewStreamableHTTP(hs.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	var out mcppay.Outcome
	mc := client.NewClient(mcppay.Wrap(inner, payer, func(_ string, o mcppay.Outcome) { out = o }))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := mc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	initialize(t, mc)
	req := mcp.CallToolRequest{}
	req.Params.Name = "report"
	res, err := mc.CallTool(ctx, req)
	if err != nil || res.IsError || !strings.Contains(text(res), "paid tool") {
		t.Fatalf("%v %+v", err, res)
	}
	if out.Paid == nil || out.Paid.Settlement == nil || !out.Paid.Settlement.Success || out.Paid.H.String() != p.seller.Hash().String() || s.calls.Load() != 1 {
		t.Fatalf("outcome %+v, signer %d", out, s.calls.Load())
	}
}
