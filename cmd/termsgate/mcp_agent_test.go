package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/rails/cloudflare"
	"github.com/termsgate/termsgate/termsgatetest"
)

// termsgate mcp --agent: atr_transact pays an offer paid by an agent
// identity with the approve-then-pay flow, as transact --agent does: the
// first call returns the agreement payment to approve with nothing signed,
// the second pays the agreement with the key and returns the offer's
// payment, made by the identity.
func TestMCPAgentTransactApprovesThenPays(t *testing.T) {
	s, err := termsgatetest.Start(termsgatetest.Config{Agreement: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp, err := s.Client().Get(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	header := resp.Header.Get("PAYMENT-REQUIRED")
	if resp.StatusCode != http.StatusPaymentRequired || header == "" {
		t.Fatalf("%d", resp.StatusCode)
	}
	old := mcpClient
	mcpClient = func(bool) atr.Doer { return s.Client() }
	t.Cleanup(func() { mcpClient = old })

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"mcp", "--dev-key", "--max-amount", "1000000", "--state", "memory", "--agent", termsgatetest.AgentAccount}, inR, outW, io.Discard)
		outW.Close()
	}()
	c := client.NewClient(transport.NewIO(outR, inW, io.NopCloser(strings.NewReader(""))))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { inW.Close(); c.Close(); <-done }()
	ini := mcp.InitializeRequest{}
	ini.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	ini.Params.ClientInfo = mcp.Implementation{Name: "agent", Version: "1"}
	if _, err := c.Initialize(ctx, ini); err != nil {
		t.Fatal(err)
	}
	transact := func(args map[string]any) map[string]json.RawMessage {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name = "atr_transact"
		req.Params.Arguments = args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]json.RawMessage
		_ = json.Unmarshal([]byte(resultText(res)), &out)
		if res.IsError {
			t.Fatalf("declined: %s", resultText(res))
		}
		return out
	}
	first := transact(map[string]any{"pairing": cloudflare.ID, "header": header})
	if first["approve"] == nil || first["signed"] != nil || s.Counts().Agreements != 0 {
		t.Fatalf("first call: %v, %d agreements", first, s.Counts().Agreements)
	}
	var approved any
	_ = json.Unmarshal(first["approve"], &approved)
	second := transact(map[string]any{"pairing": cloudflare.ID, "header": header, "approved": approved})
	if second["signed"] == nil || second["header"] == nil || s.Counts().Agreements != 1 {
		t.Fatalf("second call: %v, %d agreements", second, s.Counts().Agreements)
	}
}
