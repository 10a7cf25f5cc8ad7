// Package interop runs termsgate's MCP server under the official TypeScript
// SDK's client (@modelcontextprotocol/sdk, pinned in package.json and
// package-lock.json; .ci/run installs it with npm ci): driver.mjs calls the
// tools as an agent would and fails on any result the SDK cannot read.
package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/testenv"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

const (
	payer     = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
	pathUSD   = "0x20c0000000000000000000000000000000000000"
	recipient = "0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00"
)

func TestOfficialTypeScriptSDK(t *testing.T) {
	fx := newFixture(t)
	args := []string{"mcp", "--dev-key", "--max-amount", "10000", "--allow-private"}
	fx.config["args"] = args
	fx.eachTransport(t, "driver.mjs", args)
}

// TestOfficialTypeScriptSDKElicitation: the official client, declaring
// elicitation, approves payments as a human would (elicit.mjs): with
// --confirm-above below the offer, decline and cancel sign nothing, accept
// signs, and a client without elicitation is asked nothing.
func TestOfficialTypeScriptSDKElicitation(t *testing.T) {
	fx := newFixture(t)
	args := []string{"mcp", "--dev-key", "--max-amount", "10000", "--confirm-above", "100", "--allow-private"}
	fx.config["args"] = args
	fx.eachTransport(t, "elicit.mjs", args)
}

type fixture struct {
	node, dir, binary string
	env               map[string]string
	config            map[string]any
}

// eachTransport runs script over stdio and streamable HTTP, at each
// protocol version the SDK's client speaks to termsgate.
func (fx *fixture) eachTransport(t *testing.T, script string, args []string) {
	for _, protocol := range []string{"2025-06-18", "2025-11-25"} {
		t.Run("stdio "+protocol, func(t *testing.T) {
			runDriver(t, fx.node, fx.dir, script, fx.config, "stdio", protocol)
		})
		t.Run("http "+protocol, func(t *testing.T) {
			c := make(map[string]any, len(fx.config)+1)
			for k, v := range fx.config {
				c[k] = v
			}
			c["url"] = serveHTTP(t, fx.binary, args, fx.env)
			runDriver(t, fx.node, fx.dir, script, c, "http", protocol)
		})
	}
}

// newFixture builds the binary and starts what the drivers pay against: the
// seller's terms on loopback TLS and a wallet endpoint with the published
// development key.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	install := "Node.js 20 and npm (Debian: apt-get install nodejs npm)"
	node := testenv.LookPath(t, "node", install)
	testenv.LookPath(t, "npm", install)
	if _, err := os.Stat(filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		testenv.Missing(t, "the TypeScript SDK is not installed: run npm ci in mcpserver/interop")
	}
	dir := t.TempDir()
	binary := filepath.Join(dir, "termsgate")
	build := exec.Command("go", "build", "-o", binary, "github.com/termsgate/termsgate/cmd/termsgate")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	// The seller's terms over loopback TLS at https://127.0.0.1:PORT/…; the
	// binary trusts the server's certificate through SSL_CERT_FILE.
	terms := []byte("termsgate interop: the terms of the loopback seller\n")
	other := []byte("termsgate interop: other terms\n")
	h := atr.Sum(terms)
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/" + h.String():
			_, _ = w.Write(terms)
		case "/other":
			_, _ = w.Write(other)
		default:
			http.NotFound(w, r)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	host := srv.Listener.Addr().String()
	certFile := filepath.Join(dir, "seller.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}

	// The agent's wallet, for the confirm → sign → finish round: the
	// published development key behind a loopback endpoint.
	key, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	wallet := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		v, err := jsonv.Parse(body)
		req, ok := jsonv.AsObject(v)
		if err != nil || !ok {
			http.Error(w, "not a request", http.StatusBadRequest)
			return
		}
		answer, err := key.Sign(r.Context(), req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = w.Write(jsonv.Marshal(answer))
	}))
	t.Cleanup(wallet.Close)

	seller := x402seller.New(terms, nil)
	seller.ATRHost = host
	doc, err := seller.Required()
	if err != nil {
		t.Fatal(err)
	}
	mismatch, err := x402.Advertise(jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://"+host+"/v1/report"),
		"accepts", []jsonv.Value{x402seller.DefaultOption()}), h, "https://"+host+"/other", "")
	if err != nil {
		t.Fatal(err)
	}
	huge := seller.Option.Clone()
	huge.Set("amount", "1000000000000")
	huge.Set("maxTimeoutSeconds", jsonv.Number(31536000))
	seller.Option = huge
	hugeDoc, err := seller.Required()
	if err != nil {
		t.Fatal(err)
	}

	request := `{"amount":"1000000","currency":"` + pathUSD + `","methodDetails":{"chainId":42431},"recipient":"` + recipient + `"}`
	challenge := jsonv.Obj("realm", "127.0.0.1", "method", "tempo", "intent", "charge",
		"request", mpp.EncodeB64URL([]byte(request)), "expires", time.Now().Add(5*time.Minute).UTC().Format(time.RFC3339))
	pushDoc, err := mpp.Place([]jsonv.Value{challenge}, h, "https://"+host+"/"+h.String(), challenge, "")
	if err != nil {
		t.Fatal(err)
	}

	env := map[string]string{"PATH": os.Getenv("PATH"), "HOME": dir, "SSL_CERT_FILE": certFile}
	amount, _ := x402seller.DefaultOption().GetString("amount")
	payTo, _ := x402seller.DefaultOption().GetString("payTo")
	config := map[string]any{
		"binary": binary, "env": env, "signer": wallet.URL,
		"x402": map[string]any{
			"pairing": "x402/exact/eip155/eip3009", "document": json.RawMessage(jsonv.Marshal(doc)),
			"header": x402.EncodeHeader(doc), "account": "eip155:84532:" + payer, "atrHash": h.String(),
			"amount": amount, "payTo": payTo, "link": seller.Link(h),
		},
		"mismatch": json.RawMessage(jsonv.Marshal(mismatch)),
		"huge":     json.RawMessage(jsonv.Marshal(hugeDoc)),
		"push": map[string]any{
			"pairing": tempo.PushID, "document": json.RawMessage(jsonv.Marshal(pushDoc)), "account": "eip155:42431:" + payer,
			// A broadcast whose landed receipt holds no log carrying H.
			"answer": map[string]any{"hash": "0x" + strings.Repeat("ab", 32),
				"landed": map[string]any{"transaction": "0x" + strings.Repeat("cd", 32), "blockNumber": "1", "logs": []any{}}},
		},
	}
	return &fixture{node: node, dir: dir, binary: binary, env: env, config: config}
}

// serveHTTP starts the binary on streamable HTTP and returns its endpoint.
func serveHTTP(t *testing.T, binary string, args []string, env map[string]string) string {
	t.Helper()
	cmd := exec.Command(binary, append(append([]string(nil), args...), "--http", "127.0.0.1:0")...)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
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
	for lines.Scan() {
		if _, url, ok := strings.Cut(lines.Text(), "serving MCP at "); ok {
			go func() {
				for lines.Scan() {
				}
			}()
			return url
		}
	}
	t.Fatal("the binary did not report its endpoint")
	return ""
}

func runDriver(t *testing.T, node, dir, script string, config map[string]any, transport, protocol string) {
	t.Helper()
	b, err := json.Marshal(config)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, strings.TrimSuffix(script, ".mjs")+"-"+transport+"-"+protocol+".json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Env = append(os.Environ(), "CONFIG="+path, "TRANSPORT="+transport, "PROTOCOL="+protocol)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("driver: %v", err)
	}
}
