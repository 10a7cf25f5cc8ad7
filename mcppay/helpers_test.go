package mcppay_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcppay"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

const paidBody = `{"report":"the paid tool's output"}`

// countingSigner counts signer calls: a refusal must show zero.
type countingSigner struct {
	gate.Signer
	calls atomic.Int64
}

func (c *countingSigner) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	c.calls.Add(1)
	return c.Signer.Sign(ctx, req)
}

func vectorATR(tb testing.TB) []byte {
	tb.Helper()
	raw, err := os.ReadFile("../vectors/testdata/buyer.json")
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct {
		Fixed struct{ A string } `json:"fixed"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		tb.Fatal(err)
	}
	a, _ := hex.DecodeString(doc.Fixed.A)
	return a
}

// paidServer is a paid MCP tool built on mcp-go: "report" answers an unpaid
// call with x402's tool-result binding (isError, the PaymentRequired in
// structuredContent and as content[0].text), and a call carrying
// _meta["x402/payment"] by handing the payment, as a PAYMENT-SIGNATURE, to
// an x402 seller that verifies it as a facilitator would (the EIP-3009
// signature recovers to the payer, the nonce is H of the terms it serves).
// "free" is a tool that asks for nothing. mode makes it hostile.
type paidServer struct {
	seller *x402seller.Seller
	srv    *loopback.Server // serves the seller's ATR over loopback TLS
	mcp    *server.MCPServer
	mode   string // "", "again", "hugemeta", "duplicate", "oversized"
	calls  atomic.Int64
	paid   atomic.Int64
}

func newPaidServer(tb testing.TB, mode string) *paidServer {
	tb.Helper()
	p := &paidServer{seller: x402seller.New(vectorATR(tb), []byte(paidBody)), mode: mode}
	srv, err := loopback.Start(p.seller)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(srv.Close)
	p.srv = srv
	p.mcp = server.NewMCPServer("paid", "1.0.0", server.WithToolCapabilities(false))
	p.mcp.AddTool(mcp.NewTool("report", mcp.WithDescription("a paid report")), p.report)
	p.mcp.AddTool(mcp.NewTool("free"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("free"), nil
	})
	return p
}

func (p *paidServer) required(reason string) *mcp.CallToolResult {
	doc, err := p.seller.Required()
	if err != nil {
		return mcp.NewToolResultError(err.Error())
	}
	if reason != "" {
		doc.Set("error", reason)
	}
	text := string(jsonv.Marshal(doc))
	switch p.mode {
	case "duplicate":
		// Two spellings of accepts: readers that fold case disagree.
		text = strings.Replace(text, `"accepts":`, `"Accepts":[],"accepts":`, 1)
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent(text)}}
	case "oversized":
		doc.Set("error", strings.Repeat("x", mcppay.MaxRequiredBytes))
		text = string(jsonv.Marshal(doc))
	}
	return &mcp.CallToolResult{IsError: true, StructuredContent: json.RawMessage(text), Content: []mcp.Content{mcp.NewTextContent(text)}}
}

func (p *paidServer) report(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p.calls.Add(1)
	var payment any
	if req.Params.Meta != nil {
		payment = req.Params.Meta.AdditionalFields[mcppay.MetaX402Payment]
	}
	if payment == nil || p.mode == "again" {
		return p.required(""), nil
	}
	raw, _ := json.Marshal(payment)
	v, err := jsonv.Parse(raw)
	if err != nil {
		return p.required("the payment is not JSON"), nil
	}
	r := httptest.NewRequest(http.MethodGet, p.seller.ResourceURL(), nil)
	r.Header.Set(pay.HeaderSignature, x402.EncodeHeader(v))
	rec := httptest.NewRecorder()
	p.seller.ServeHTTP(rec, r)
	if rec.Code != http.StatusOK {
		return p.required("payment refused: " + p.seller.LastRejection().Error()), nil
	}
	p.paid.Add(1)
	settled, err := x402.DecodeHeader(rec.Header().Get(pay.HeaderResponse))
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	var meta map[string]any
	_ = json.Unmarshal(jsonv.Marshal(settled), &meta)
	if p.mode == "hugemeta" {
		meta["padding"] = strings.Repeat("y", mcppay.MaxMetaBytes)
	}
	res := mcp.NewToolResultText(rec.Body.String())
	res.Meta = &mcp.Meta{AdditionalFields: map[string]any{mcppay.MetaX402Response: meta}}
	return res, nil
}

// payer is the buyer: the Anvil development key under a limit of 0.01 USDC
// a payment on Base Sepolia, fetching over the loopback server's client.
func (p *paidServer) payer(tb testing.TB, allowUnbound bool) (*mcppay.Payer, *countingSigner) {
	tb.Helper()
	l, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		tb.Fatal(err)
	}
	s := &countingSigner{Signer: l}
	policy, err := pay.NewPolicy(pay.PolicyConfig{AllowUnbound: allowUnbound,
		Limits: []pay.Limit{{Network: "eip155:84532", MaxAmount: big.NewInt(10000)}}})
	if err != nil {
		tb.Fatal(err)
	}
	t := &pay.Transport{
		Gate:   &gate.Gate{Fetcher: &atr.Fetcher{Client: p.srv.Client()}},
		Signer: s, Policy: policy, NoATRCache: true,
	}
	return &mcppay.Payer{Transport: t, Server: "paid"}, s
}

// pipe is one direction of a stdio connection.
func pipe() (*io.PipeReader, *io.PipeWriter) { return io.Pipe() }

// proxied runs p's MCP server on pipes, the Proxy in front of it on pipes,
// and returns an mcp-go client of the proxy, initialized: the agent host's
// view.
func proxied(tb testing.TB, p *paidServer, payer *mcppay.Payer) *client.Client {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	sIn, sInW := pipe()   // proxy → server
	sOutR, sOut := pipe() // server → proxy
	go func() { _ = server.NewStdioServer(p.mcp).Listen(ctx, sIn, sOut) }()
	conn := mcppay.NewStreamConn(sInW, sOutR, nil)
	return viaProxy(tb, ctx, payer, conn)
}

func viaProxy(tb testing.TB, ctx context.Context, payer *mcppay.Payer, conn mcppay.Conn) *client.Client {
	tb.Helper()
	pIn, pInW := pipe()   // client → proxy
	pOutR, pOut := pipe() // proxy → client
	proxy := &mcppay.Proxy{Payer: payer, Server: conn}
	go func() { _ = proxy.Serve(ctx, pIn, pOut); pOut.Close() }()
	c := client.NewClient(transport.NewIO(pOutR, pInW, io.NopCloser(strings.NewReader(""))))
	if err := c.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	initialize(tb, c)
	return c
}

func initialize(tb testing.TB, c *client.Client) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "agent", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		tb.Fatal(err)
	}
}

func callTool(tb testing.TB, c *client.Client, name string) *mcp.CallToolResult {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	res, err := c.CallTool(ctx, req)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// declineOf reads the decline JSON out of a tool error.
func declineOf(tb testing.TB, res *mcp.CallToolResult) (code, detail string, moved bool) {
	tb.Helper()
	if !res.IsError {
		tb.Fatalf("not a tool error: %s", text(res))
	}
	var d struct {
		Decline struct{ Code, Detail string } `json:"decline"`
		Moved   json.RawMessage               `json:"moved"`
	}
	if err := json.Unmarshal([]byte(text(res)), &d); err != nil {
		tb.Fatalf("the tool error is no decline: %s", text(res))
	}
	return d.Decline.Code, d.Decline.Detail, len(d.Moved) > 0
}
