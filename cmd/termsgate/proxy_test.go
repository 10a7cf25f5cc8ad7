package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcppay"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/x402"
)

// paidMCPEnv makes the test binary a paid MCP server on stdio (the proxy's
// CMD): "ADDR|CAFILE|MODE", the x402 seller's loopback address, its
// certificate, and "" or "again".
const paidMCPEnv = "TERMSGATE_TEST_PAID_MCP"

func init() {
	if spec := os.Getenv(paidMCPEnv); spec != "" {
		parts := strings.SplitN(spec, "|", 3)
		pem, _ := os.ReadFile(parts[1])
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		hc := &http.Client{Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, network, parts[0])
			},
		}}
		_ = server.ServeStdio(paidMCP(hc, "https://api.seller.example/v1/report", parts[2]))
		os.Exit(0)
	}
}

// paidMCP is an MCP front for an x402 HTTP seller: "report" answers
// unpaid calls with the seller's PaymentRequired as x402's tool-result
// binding, and hands a payment in _meta["x402/payment"] to the seller as
// PAYMENT-SIGNATURE; the seller verifies it (signature, nonce H). Mode
// "again" answers every call with payment required.
func paidMCP(hc *http.Client, resource, mode string) *server.MCPServer {
	s := server.NewMCPServer("paid", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("report"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, _ := http.NewRequestWithContext(ctx, http.MethodGet, resource, nil)
		if req.Params.Meta != nil {
			if p := req.Params.Meta.AdditionalFields[mcppay.MetaX402Payment]; p != nil {
				raw, _ := json.Marshal(p)
				v, err := jsonv.Parse(raw)
				if err != nil {
					return mcp.NewToolResultError(err.Error()), nil
				}
				r.Header.Set(pay.HeaderSignature, x402.EncodeHeader(v))
			}
		}
		resp, err := hc.Do(r)
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == http.StatusOK && mode != "again" {
			return mcp.NewToolResultText(string(body)), nil
		}
		required := resp.Header.Get(pay.HeaderRequired)
		if resp.StatusCode == http.StatusOK { // "again": the payment was good; ask anyway
			unpaid, _ := http.NewRequestWithContext(ctx, http.MethodGet, resource, nil)
			if again, err := hc.Do(unpaid); err == nil {
				again.Body.Close()
				required = again.Header.Get(pay.HeaderRequired)
			}
		}
		doc, err := x402.DecodeHeader(required)
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		text := string(jsonv.Marshal(doc))
		return &mcp.CallToolResult{IsError: true, StructuredContent: json.RawMessage(text), Content: []mcp.Content{mcp.NewTextContent(text)}}, nil
	})
	return s
}

// proxyEnv is a loopback TLS x402 seller, its certificate in a file, and
// payClient reaching it.
func proxyEnv(t *testing.T) (*x402seller.Seller, *loopback.Server, string) {
	t.Helper()
	a, _ := hex.DecodeString("7b2261747256657273696f6e223a2231222c226964223a2230663866616435622d643963622d343639662d613136352d373038363737323839353065222c2278343032223a7b227a223a312e302c2261223a226361665c7530306539227d2c2273656c6c6572223a7b226e6f7465223a22436166c3a920e280942033302064c3ad617320e29c93227d7d")
	seller := x402seller.New(a, []byte(`{"report":"paid over MCP"}`))
	srv, err := loopback.Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "seller.pem")
	if err := os.WriteFile(ca, srv.CertificatePEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	old := payClient
	payClient = func(bool) *http.Client { return srv.Client() }
	t.Cleanup(func() { payClient = old })
	return seller, srv, ca
}

// runProxyCmd runs termsgate proxy with args and returns an mcp-go client
// of it, initialized, and its standard error.
func runProxyCmd(t *testing.T, args ...string) (*client.Client, *syncBuffer) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stderr := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(append([]string{"proxy"}, args...), inR, outW, stderr)
		outW.Close()
	}()
	c := client.NewClient(transport.NewIO(outR, inW, io.NopCloser(strings.NewReader(""))))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		inW.Close()
		c.Close()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("the proxy did not end when its input did")
		}
	})
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "agent", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v; stderr: %s", err, stderr.String())
	}
	return c, stderr
}

func callReport(t *testing.T, c *client.Client) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = "report"
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// termsgate proxy -- CMD: a paid stdio server started as a child process
// is paid once (one payment the seller verified, one fetch of the terms).
func TestProxyCommandPaysAStdioServer(t *testing.T) {
	seller, srv, ca := proxyEnv(t)
	t.Setenv(paidMCPEnv, srv.Listener.Addr().String()+"|"+ca+"|")
	c, stderr := runProxyCmd(t, "--dev-key", "--max-amount", "10000", "--state", "memory", "--", os.Args[0])
	res := callReport(t, c)
	if res.IsError || !strings.Contains(resultText(res), "paid over MCP") {
		t.Fatalf("%v %s; stderr %s", res.IsError, resultText(res), stderr.String())
	}
	if seller.Paid.Load() != 1 || seller.Rejected.Load() != 0 || seller.ATRFetches.Load() != 1 {
		t.Fatalf("paid %d, rejected %d, fetches %d", seller.Paid.Load(), seller.Rejected.Load(), seller.ATRFetches.Load())
	}
	if !strings.Contains(stderr.String(), "mcppay: paid") {
		t.Fatalf("stderr: %s", stderr.String())
	}
}

// A server that asks again after the payment gets one signature only, and
// the agent a tool error naming the payment made.
func TestProxyCommandRetryRefused(t *testing.T) {
	seller, srv, ca := proxyEnv(t)
	t.Setenv(paidMCPEnv, srv.Listener.Addr().String()+"|"+ca+"|again")
	c, _ := runProxyCmd(t, "--dev-key", "--max-amount", "10000", "--state", "memory", "--", os.Args[0])
	res := callReport(t, c)
	var d struct {
		Decline struct{ Code, Detail string } `json:"decline"`
		Moved   json.RawMessage               `json:"moved"`
	}
	if !res.IsError || json.Unmarshal([]byte(resultText(res)), &d) != nil || d.Decline.Code != string(mcppay.PaymentRefused) || len(d.Moved) == 0 {
		t.Fatalf("%v %s", res.IsError, resultText(res))
	}
	if seller.Paid.Load() != 1 {
		t.Fatalf("the seller verified %d payments, want the one", seller.Paid.Load())
	}
}

// termsgate proxy --upstream URL: a paid streamable HTTP server; a limit
// of less than the price is declined with nothing signed.
func TestProxyCommandPaysAnHTTPServer(t *testing.T) {
	seller, srv, _ := proxyEnv(t)
	hs := httptest.NewServer(server.NewStreamableHTTPServer(paidMCP(srv.Client(), seller.ResourceURL(), "")))
	t.Cleanup(hs.Close)
	c, stderr := runProxyCmd(t, "--dev-key", "--max-amount", "10000", "--state", "memory", "--upstream", hs.URL+"/mcp")
	if res := callReport(t, c); res.IsError || !strings.Contains(resultText(res), "paid over MCP") || seller.Paid.Load() != 1 {
		t.Fatalf("%v %s, paid %d; stderr %s", res.IsError, resultText(res), seller.Paid.Load(), stderr.String())
	}
	low, _ := runProxyCmd(t, "--dev-key", "--max-amount", "9999", "--state", "memory", "--upstream", hs.URL+"/mcp")
	res := callReport(t, low)
	if !res.IsError || !strings.Contains(resultText(res), "policy/amount-above-maximum") || seller.Paid.Load() != 1 {
		t.Fatalf("%v %s, paid %d", res.IsError, resultText(res), seller.Paid.Load())
	}
}

// Without limits the proxy does not start.
func TestProxyCommandNeedsLimits(t *testing.T) {
	var stderr bytes.Buffer
	if code := run([]string{"proxy", "--dev-key", "--", "true"}, strings.NewReader(""), io.Discard, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "--max-amount is required") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}
