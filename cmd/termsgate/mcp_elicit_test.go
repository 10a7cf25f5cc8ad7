package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/mcpserver"
	"github.com/termsgate/termsgate/rails/cloudflare"
	"github.com/termsgate/termsgate/termsgatetest"
)

// answering is an mcp-go client's elicitation handler answering action.
type answering struct {
	action mcp.ElicitationResponseAction
	asked  atomic.Int64
	last   atomic.Value // string: the last question
}

func (a *answering) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.asked.Add(1)
	a.last.Store(req.Params.Message)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: a.action}}, nil
}

// termsgate mcp over stdio with an mcp-go client that declares
// elicitation: atr_transact's agreement payment is put to the human in the
// call; accept pays the agreement and the offer at once, decline pays
// nothing and says the human refused.
func TestMCPElicitationAgreement(t *testing.T) {
	for _, action := range []mcp.ElicitationResponseAction{mcp.ElicitationResponseActionAccept, mcp.ElicitationResponseActionDecline} {
		t.Run(string(action), func(t *testing.T) {
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
				done <- run([]string{"mcp", "--dev-key", "--max-amount", "1000000", "--confirm-above", "1000000", "--state", "memory", "--agent", termsgatetest.AgentAccount}, inR, outW, io.Discard)
				outW.Close()
			}()
			h := &answering{action: action}
			c := client.NewClient(transport.NewIO(outR, inW, io.NopCloser(strings.NewReader(""))), client.WithElicitationHandler(h))
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
			req := mcp.CallToolRequest{}
			req.Params.Name = "atr_transact"
			req.Params.Arguments = map[string]any{"pairing": cloudflare.ID, "header": header}
			res, err := c.CallTool(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			var out map[string]json.RawMessage
			_ = json.Unmarshal([]byte(resultText(res)), &out)
			if h.asked.Load() != 1 {
				t.Fatalf("asked %d times", h.asked.Load())
			}
			if q, _ := h.last.Load().(string); !strings.Contains(q, "agreement payment") || !strings.Contains(q, "Terms hash (H): 0x") {
				t.Fatalf("the question:\n%s", q)
			}
			if action == mcp.ElicitationResponseActionDecline {
				if !res.IsError || !strings.Contains(resultText(res), mcpserver.DetailHumanDeclined) || s.Counts().Agreements != 0 {
					t.Fatalf("declined: %s, %d agreements", resultText(res), s.Counts().Agreements)
				}
				return
			}
			if res.IsError || out["signed"] == nil || out["header"] == nil || s.Counts().Agreements != 1 {
				t.Fatalf("accepted: %s, %d agreements", resultText(res), s.Counts().Agreements)
			}
		})
	}
}

// --confirm-above is atomic units and needs a key.
func TestMCPConfirmAboveFlag(t *testing.T) {
	for _, args := range [][]string{
		{"mcp", "--confirm-above", "5"},
		{"mcp", "--dev-key", "--max-amount", "10", "--state", "memory", "--confirm-above", "0.5"},
		{"mcp", "--dev-key", "--max-amount", "10", "--state", "memory", "--confirm-above-usd", "$1"},
	} {
		if code, _, errs := runCLI(t, "", args...); code != exitUsage || !strings.Contains(errs, "confirm-above") {
			t.Errorf("%v: exit %d, %s", args, code, errs)
		}
	}
}
