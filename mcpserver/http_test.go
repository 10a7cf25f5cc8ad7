package mcpserver_test

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// TestHTTPOrigin: a request from a foreign web origin is refused; loopback
// origins and requests without an Origin (every non-browser client) are
// served.
func TestHTTPOrigin(t *testing.T) {
	ts := httptest.NewServer(newServer(t, loadFixture(t), nil, mcpserver.Config{}).HTTPHandler(mcpserver.HTTPOptions{}))
	defer ts.Close()
	cases := []struct {
		origin []string
		status int
	}{
		{nil, http.StatusOK},
		{[]string{"http://localhost:3000"}, http.StatusOK},
		{[]string{"http://127.0.0.1:6274"}, http.StatusOK},
		{[]string{"https://[::1]"}, http.StatusOK},
		{[]string{"https://evil.example"}, http.StatusForbidden},
		{[]string{"http://localhost.evil.example"}, http.StatusForbidden},
		{[]string{"http://127.0.0.1.nip.io"}, http.StatusForbidden},
		{[]string{"null"}, http.StatusForbidden},
		{[]string{"file://"}, http.StatusForbidden},
		{[]string{"http://localhost:3000", "https://evil.example"}, http.StatusForbidden},
	}
	for _, c := range cases {
		h := http.Header{}
		if c.origin != nil {
			h["Origin"] = c.origin
		}
		if r := post(t, ts.URL+"/mcp", initialize, h); r.status != c.status {
			t.Errorf("Origin %q: status %d, want %d (%s)", c.origin, r.status, c.status, r.body)
		}
	}
	// mcp-go's own check: a loopback connection with a foreign Host.
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(initialize))
	req.Host = "evil.example"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host: status %d", resp.StatusCode)
	}
}

// TestHTTPToken: with a bearer token set, a request without it or with
// another is answered 401; the SDK client with it works.
func TestHTTPToken(t *testing.T) {
	srv := newServer(t, loadFixture(t), nil, mcpserver.Config{})
	ts := httptest.NewServer(srv.HTTPHandler(mcpserver.HTTPOptions{Token: "s3cret-token"}))
	defer ts.Close()
	for _, auth := range []string{"", "Bearer wrong", "Bearer s3cret-token-and-more", "Basic s3cret-token", "s3cret-token"} {
		h := http.Header{}
		if auth != "" {
			h.Set("Authorization", auth)
		}
		r := post(t, ts.URL+"/mcp", initialize, h)
		if r.status != http.StatusUnauthorized || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("Authorization %q: status %d", auth, r.status)
		}
	}
	if r := post(t, ts.URL+"/mcp", initialize, http.Header{"Authorization": {"Bearer s3cret-token"}}); r.status != http.StatusOK {
		t.Fatalf("the right token: %d %s", r.status, r.body)
	}
	client := &http.Client{Transport: bearer{"s3cret-token", http.DefaultTransport}}
	cs := connect(t, &gosdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: client, DisableStandaloneSSE: true}, nil)
	if got := toolNames(listTools(t, cs)); !slices.Equal(got, noSignerTools) {
		t.Fatalf("tools %v", got)
	}
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestBinaryHTTP: termsgate mcp --http serves loopback (with a token file)
// and refuses a non-loopback address without --allow-remote.
func TestBinaryHTTP(t *testing.T) {
	out, err := exec.Command(termsgateBinary(t), "mcp", "--http", "0.0.0.0:0").CombinedOutput()
	if code := exitCode(err); code != 2 || !strings.Contains(string(out), "not a loopback address") {
		t.Fatalf("non-loopback address: exit %d: %s", code, out)
	}
	tokenFile := t.TempDir() + "/token"
	if err := os.WriteFile(tokenFile, []byte("tok-123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(termsgateBinary(t), "mcp", "--http", "127.0.0.1:0", "--token-file", tokenFile, "--dev-key", "--max-amount", "1000000")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	lines := bufio.NewScanner(stderr)
	endpoint, warned := "", false
	for endpoint == "" && lines.Scan() {
		line := lines.Text()
		warned = warned || strings.Contains(line, "PUBLISHED Anvil development key")
		if _, url, ok := strings.Cut(line, "serving MCP at "); ok {
			endpoint = url
		}
	}
	go func() {
		for lines.Scan() {
		}
	}()
	if endpoint == "" || !warned {
		t.Fatalf("endpoint %q, dev-key warning %v", endpoint, warned)
	}
	if r := post(t, endpoint, initialize, nil); r.status != http.StatusUnauthorized {
		t.Fatalf("no token: %d", r.status)
	}
	client := &http.Client{Transport: bearer{"tok-123", http.DefaultTransport}}
	cs := connect(t, &gosdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client, DisableStandaloneSSE: true}, nil)
	if got := toolNames(listTools(t, cs)); !slices.Equal(got, signerTools) {
		t.Fatalf("tools %v", got)
	}
	f := loadFixture(t)
	wantDecline(t, call(t, cs, "atr_check", jsonv.Obj("pairing", pairing, "atr", b64(f.C), "presented", jsonv.Obj())), "signed-not-bound", "")
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}
