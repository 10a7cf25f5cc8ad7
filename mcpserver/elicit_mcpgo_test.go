package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
)

// mcpgoHuman is mcp-go's client.ElicitationHandler: it answers action and
// keeps the messages it was shown.
type mcpgoHuman struct {
	action mcp.ElicitationResponseAction
	mu     sync.Mutex
	asked  []string
}

func (h *mcpgoHuman) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = append(h.asked, req.Params.Message)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: h.action}}, nil
}

func (h *mcpgoHuman) questions() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.asked...)
}

// TestElicitationHTTPMCPGo: mcp-go's client over streamable HTTP, in both
// protocol eras. Pinned to 2025-11-25 it is asked with the server-initiated
// elicitation/create on the call's own POST response (an SSE stream) and
// POSTs its answer back; at 2026-07-28 it is asked in the multi round-trip
// form. Either way the human is asked once about the agreement payment, and
// only accept signs: decline and cancel leave the signer uncalled.
func TestElicitationHTTPMCPGo(t *testing.T) {
	for _, version := range []string{"2025-11-25", mcp.ProtocolVersion20260728} {
		for _, tc := range []struct {
			action  mcp.ElicitationResponseAction
			refused string
		}{
			{mcp.ElicitationResponseActionAccept, ""},
			{mcp.ElicitationResponseActionDecline, mcpserver.DetailHumanDeclined},
			{mcp.ElicitationResponseActionCancel, mcpserver.DetailHumanCancelled},
		} {
			t.Run(version+"/"+string(tc.action), func(t *testing.T) {
				var endpoint string
				serve := func(t testing.TB, srv *mcpserver.Server, _ *gosdk.ClientOptions) *gosdk.ClientSession {
					ts := httptest.NewServer(srv.HTTPHandler(mcpserver.HTTPOptions{}))
					t.Cleanup(ts.Close)
					endpoint = ts.URL + "/mcp"
					// The set-up lists the tools with the official client.
					return connect(t, &gosdk.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true}, nil)
				}
				a := newAgreementSetupWith(t, nil, mcpserver.Config{}, serve, nil)
				h := &mcpgoHuman{action: tc.action}
				c := mcpgoClient(t, endpoint, version, h)
				r := mcpgoCall(t, c, "atr_transact", jsonv.Obj("pairing", unprovenID, "document", a.f.D))
				q := h.questions()
				if len(q) != 1 || !strings.Contains(q[0], "agreement payment") || !strings.Contains(q[0], hashOf(a.f.A)) {
					t.Fatalf("the human was asked %d times: %q", len(q), q)
				}
				// The legacy question is answered within the one call; the
				// multi round-trip form runs the call again with the answer.
				unpaid := 1
				if version == mcp.ProtocolVersion20260728 {
					unpaid = 2
				}
				if tc.refused != "" {
					d, _ := r.GetObject("decline")
					if detail, _ := d.GetString("detail"); !strings.HasPrefix(detail, tc.refused+": ") {
						t.Fatalf("result %s, want %s", jsonv.Marshal(r), tc.refused)
					}
					a.counts(t, 0, unpaid, 0)
					return
				}
				if strAt(t, r, "signed", "payload", "authorization", "nonce") != hashOf(a.f.A) {
					t.Fatalf("transact: %s", jsonv.Marshal(r))
				}
				a.counts(t, 2, unpaid, 1)
			})
		}
	}
}

func mcpgoClient(t *testing.T, endpoint, version string, h client.ElicitationHandler) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithElicitationHandler(h), client.WithProtocolVersion(version))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "agent", Version: "1"}
	init, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if init.ProtocolVersion != version {
		t.Fatalf("negotiated %s, want %s", init.ProtocolVersion, version)
	}
	return c
}

// mcpgoCall calls tool and returns its structured result (a decline too).
func mcpgoCall(t *testing.T, c *client.Client, tool string, args *jsonv.Object) *jsonv.Object {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = json.RawMessage(jsonv.Marshal(args))
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks", tool, len(res.Content))
	}
	text, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content %T", tool, res.Content[0])
	}
	v, err := jsonv.Parse([]byte(text.Text))
	o, isObj := jsonv.AsObject(v)
	if err != nil || !isObj {
		t.Fatalf("%s: %s", tool, text.Text)
	}
	return o
}
