package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/vectors"
)

// binaryDir holds termsgate, built once per test process and only when a
// test runs it (a fuzzing worker process never does).
var (
	binaryDir   string
	binaryOnce  sync.Once
	binaryPath  string
	binaryError error
)

// termsgateBinary builds termsgate on first use.
func termsgateBinary(t testing.TB) string {
	t.Helper()
	binaryOnce.Do(func() {
		binaryPath = filepath.Join(binaryDir, "termsgate")
		build := exec.Command("go", "build", "-o", binaryPath, "github.com/termsgate/termsgate/cmd/termsgate")
		if out, err := build.CombinedOutput(); err != nil {
			binaryError = fmt.Errorf("building termsgate: %v\n%s", err, out)
		}
	})
	if binaryError != nil {
		t.Fatal(binaryError)
	}
	return binaryPath
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "termsgate-mcp-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binaryDir = dir
	// The binary keeps its budget in memory: no test writes the user's
	// state directory or inherits another run's spending.
	os.Setenv("TERMSGATE_STATE", "memory")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const pairing = "x402/exact/eip155/eip3009"

// fixture is buyer.json's fixed values and the B6 row.
type fixture struct {
	A, C      []byte
	D         *jsonv.Object
	key       string
	account   string
	network   string
	now       time.Time
	b6        *jsonv.Object // B6's expect
	b6Sig     string
	agreement *jsonv.Object // fixed.agreement
}

func loadFixture(t testing.TB) *fixture {
	t.Helper()
	f, err := vectors.Load("buyer.json")
	if err != nil {
		t.Fatal(err)
	}
	fixed := objAt(t, f, "fixed")
	account := strAt(t, fixed, "account")
	now, _ := jsonv.AsSafeInt(valueAt(t, fixed, "now"))
	var b6 *jsonv.Object
	rows, _ := jsonv.AsArray(valueAt(t, f, "rows"))
	for _, r := range rows {
		if o, ok := jsonv.AsObject(r); ok {
			if n, _ := o.GetString("name"); n == "B6" {
				b6 = o
			}
		}
	}
	return &fixture{
		A: unhex(t, strAt(t, fixed, "A")), C: unhex(t, strAt(t, fixed, "C")),
		D: objAt(t, fixed, "D"), key: strAt(t, fixed, "payerKey"),
		account: account, network: account[:strings.LastIndex(account, ":")],
		now:       time.Unix(now, 0),
		b6:        objAt(t, b6, "expect"),
		b6Sig:     strAt(t, b6, "input", "then", "finish", "signature"),
		agreement: objAt(t, fixed, "agreement"),
	}
}

func valueAt(t testing.TB, v jsonv.Value, path ...string) jsonv.Value {
	t.Helper()
	for _, k := range path {
		if a, ok := jsonv.AsArray(v); ok {
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(a) {
				t.Fatalf("%v: no element %q", path, k)
			}
			v = a[i]
			continue
		}
		o, ok := jsonv.AsObject(v)
		if !ok {
			t.Fatalf("%v: %q is not under an object or array", path, k)
		}
		if v, ok = o.Get(k); !ok {
			t.Fatalf("%v: no member %q", path, k)
		}
	}
	return v
}

func strAt(t testing.TB, v jsonv.Value, path ...string) string {
	t.Helper()
	s, ok := jsonv.AsString(valueAt(t, v, path...))
	if !ok {
		t.Fatalf("%v is not a string", path)
	}
	return s
}

func objAt(t testing.TB, v jsonv.Value, path ...string) *jsonv.Object {
	t.Helper()
	o, ok := jsonv.AsObject(valueAt(t, v, path...))
	if !ok {
		t.Fatalf("%v is not an object", path)
	}
	return o
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// seller is a loopback TLS seller: the ATR host serves atr (or hangs, or
// calls handler), the API host answers the agreement URL.
type seller struct {
	srv        *loopback.Server
	mu         sync.Mutex
	atr        []byte
	hang       bool
	agreement  http.HandlerFunc
	fetches    atomic.Int64
	released   chan struct{} // closed when a hanging fetch saw its request end
	release    sync.Once
	agreeCalls atomic.Int64
	paid       atomic.Int64
}

func newSeller(t testing.TB, atrBytes []byte) *seller {
	t.Helper()
	s := &seller{atr: atrBytes, released: make(chan struct{})}
	srv, err := loopback.Start(http.HandlerFunc(s.serve))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	s.srv = srv
	return s
}

func (s *seller) serve(w http.ResponseWriter, r *http.Request) {
	host, _, _ := strings.Cut(r.Host, ":")
	s.mu.Lock()
	body, hang, agree := s.atr, s.hang, s.agreement
	s.mu.Unlock()
	switch host {
	case "atr.seller.example":
		s.fetches.Add(1)
		if hang {
			select {
			case <-r.Context().Done():
				s.release.Do(func() { close(s.released) })
			case <-time.After(time.Minute):
			}
			return
		}
		_, _ = w.Write(body)
	case "api.seller.example":
		s.agreeCalls.Add(1)
		if r.Header.Get("PAYMENT-SIGNATURE") != "" {
			s.paid.Add(1)
		}
		if agree == nil {
			http.NotFound(w, r)
			return
		}
		agree(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *seller) setHang() {
	s.mu.Lock()
	s.hang = true
	s.mu.Unlock()
}

func (s *seller) setAgreement(h http.HandlerFunc) {
	s.mu.Lock()
	s.agreement = h
	s.mu.Unlock()
}

// countingSigner is the vectors' payer key, counting its calls.
type countingSigner struct {
	inner rails.Signer
	calls atomic.Int64
}

func newSigner(t testing.TB, f *fixture) *countingSigner {
	t.Helper()
	l, err := signer.FromHex(f.key, f.network)
	if err != nil {
		t.Fatal(err)
	}
	return &countingSigner{inner: l}
}

func (c *countingSigner) Account() string { return c.inner.Account() }

func (c *countingSigner) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	c.calls.Add(1)
	return c.inner.Sign(ctx, req)
}

// newServer builds a server that fetches from s on the vectors' clock.
func newServer(t testing.TB, f *fixture, s *seller, cfg mcpserver.Config) *mcpserver.Server {
	t.Helper()
	if s != nil && cfg.Client == nil {
		cfg.Client = s.srv.Client()
	}
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return f.now }
	}
	if cfg.Policy == nil && (cfg.Signer != nil || cfg.AgreementSigner != nil) {
		cfg.Policy = roomyPolicy(t, cfg.Now)
	}
	srv, err := mcpserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// roomyPolicy allows what the fixtures pay: up to 1,000,000 atomic units of
// any asset on Base Sepolia and Tempo Moderato, payable for a day.
func roomyPolicy(t testing.TB, now func() time.Time) *pay.Policy {
	t.Helper()
	p, err := pay.NewPolicy(pay.PolicyConfig{Now: now, MaxPayable: 24 * time.Hour, Limits: []pay.Limit{
		{Network: "eip155:84532", MaxAmount: big.NewInt(1_000_000_000)},
		{Network: "eip155:42431", MaxAmount: big.NewInt(1_000_000_000)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// connectHTTP serves srv over streamable HTTP on loopback and connects the
// official SDK's client to it.
func connectHTTP(t testing.TB, srv *mcpserver.Server, opts *gosdk.ClientOptions) *gosdk.ClientSession {
	t.Helper()
	ts := httptest.NewServer(srv.HTTPHandler(mcpserver.HTTPOptions{}))
	t.Cleanup(ts.Close)
	return connect(t, &gosdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp", DisableStandaloneSSE: true}, opts)
}

// connectStdio serves srv over in-process pipes with ServeStdio.
func connectStdio(t testing.TB, srv *mcpserver.Server, opts *gosdk.ClientOptions) *gosdk.ClientSession {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.ServeStdio(ctx, sr, sw, nil)
		sw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		cw.Close()
		<-done
	})
	return connect(t, &gosdk.IOTransport{Reader: cr, Writer: cw}, opts)
}

// connectBinary runs the built termsgate with args and connects over stdio.
func connectBinary(t testing.TB, opts *gosdk.ClientOptions, args ...string) *gosdk.ClientSession {
	t.Helper()
	cmd := exec.Command(termsgateBinary(t), append([]string{"mcp"}, args...)...)
	cmd.Stderr = io.Discard
	return connect(t, &gosdk.CommandTransport{Command: cmd}, opts)
}

func connect(t testing.TB, tr gosdk.Transport, opts *gosdk.ClientOptions) *gosdk.ClientSession {
	t.Helper()
	c := gosdk.NewClient(&gosdk.Implementation{Name: "termsgate-test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// result is a tool result read back: the text block parsed with jsonv
// (member order kept), checked to be the JSON of structuredContent.
type result struct {
	isError bool
	text    string
	value   *jsonv.Object // nil for a text-only refusal
}

// call runs a tool with args (a jsonv object, sent member for member) and
// checks the envelope of docs/protocol.md, "The MCP server", results.
func call(t testing.TB, cs *gosdk.ClientSession, tool string, args *jsonv.Object) result {
	t.Helper()
	validateInput(t, tool, jsonv.Marshal(args))
	return callUnchecked(t, cs, tool, args)
}

// callUnchecked is call with arguments that need not match the published
// input schema.
func callUnchecked(t testing.TB, cs *gosdk.ClientSession, tool string, args *jsonv.Object) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &gosdk.CallToolParams{Name: tool, Arguments: json.RawMessage(jsonv.Marshal(args))})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return envelope(t, tool, res)
}

func envelope(t testing.TB, tool string, res *gosdk.CallToolResult) result {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks, want 1", tool, len(res.Content))
	}
	tc, ok := res.Content[0].(*gosdk.TextContent)
	if !ok {
		t.Fatalf("%s: content is %T", tool, res.Content[0])
	}
	out := result{isError: res.IsError, text: tc.Text}
	if res.StructuredContent == nil {
		if !res.IsError {
			t.Fatalf("%s: a success without structuredContent: %s", tool, tc.Text)
		}
		return out
	}
	v, err := jsonv.Parse([]byte(tc.Text))
	if err != nil {
		t.Fatalf("%s: the text block is not JSON: %v\n%s", tool, err, tc.Text)
	}
	if got := string(jsonv.Marshal(v)); got != tc.Text {
		t.Fatalf("%s: the text block is not JSON.stringify's form:\n%s\n%s", tool, tc.Text, got)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := jsonv.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	// The SDK decodes structuredContent into a map, so compare values
	// without member order (the raw wire tests compare the order too).
	if string(jsonv.Canonical(sc)) != string(jsonv.Canonical(v)) {
		t.Fatalf("%s: text and structuredContent differ:\n%s\n%s", tool, tc.Text, raw)
	}
	out.value, _ = jsonv.AsObject(v)
	if out.value == nil {
		t.Fatalf("%s: structuredContent is not an object", tool)
	}
	if res.IsError {
		checkDeclineShape(t, tool, out.value)
	}
	validateOutput(t, tool, raw) // a decline too: the schema admits it
	return out
}

// outputSchemas are the published output schemas, by tool, filled by
// listTools; every successful result is validated against its tool's.
var (
	schemasMu     sync.Mutex
	inputSchemas  = map[string]*jsonschema.Resolved{}
	outputSchemas = map[string]*jsonschema.Resolved{}
)

func resolve(t testing.TB, tool string, schema any) *jsonschema.Resolved {
	t.Helper()
	raw, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: schema: %v", tool, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: schema: %v", tool, err)
	}
	return rs
}

func rememberSchemas(t testing.TB, tools []*gosdk.Tool) {
	t.Helper()
	schemasMu.Lock()
	defer schemasMu.Unlock()
	for _, tool := range tools {
		inputSchemas[tool.Name] = resolve(t, tool.Name, tool.InputSchema)
		outputSchemas[tool.Name] = resolve(t, tool.Name, tool.OutputSchema)
	}
}

// validateInput checks arguments a test means to be valid against the
// published input schema.
func validateInput(t testing.TB, tool string, raw []byte) {
	t.Helper()
	schemasMu.Lock()
	rs := inputSchemas[tool]
	schemasMu.Unlock()
	if rs == nil {
		t.Fatalf("%s: no input schema listed before the call", tool)
	}
	var inst any
	if err := json.Unmarshal(raw, &inst); err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(inst); err != nil {
		t.Fatalf("%s: the arguments do not match the published input schema: %v\n%s", tool, err, raw)
	}
}

func validateOutput(t testing.TB, tool string, raw []byte) {
	t.Helper()
	schemasMu.Lock()
	rs := outputSchemas[tool]
	schemasMu.Unlock()
	if rs == nil {
		t.Fatalf("%s: no output schema listed before the call", tool)
	}
	var inst any
	if err := json.Unmarshal(raw, &inst); err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(inst); err != nil {
		t.Fatalf("%s: the result does not match the published output schema: %v\n%s", tool, err, raw)
	}
}

func checkDeclineShape(t testing.TB, tool string, v *jsonv.Object) {
	t.Helper()
	for _, k := range v.Keys() {
		if k != "decline" && k != "moved" && k != "cause" {
			t.Fatalf("%s: decline result has member %q: %s", tool, k, jsonv.Marshal(v))
		}
	}
	if c, ok := v.Get("cause"); ok {
		if _, isString := jsonv.AsString(c); !isString {
			t.Fatalf("%s: cause is not a string: %s", tool, jsonv.Marshal(v))
		}
	}
	d, ok := v.GetObject("decline")
	if !ok || d.Len() != 2 || !d.Has("code") || !d.Has("detail") {
		t.Fatalf("%s: decline is not {code, detail}: %s", tool, jsonv.Marshal(v))
	}
}

// listTools lists the tools and remembers their output schemas.
func listTools(t testing.TB, s *gosdk.ClientSession) []*gosdk.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	rememberSchemas(t, res.Tools)
	return res.Tools
}

func wantDecline(t testing.TB, r result, code, detail string) {
	t.Helper()
	if !r.isError || r.value == nil {
		t.Fatalf("want decline %s, got %s", code, r.text)
	}
	d, _ := r.value.GetObject("decline")
	gotCode, _ := d.GetString("code")
	gotDetail, _ := d.GetString("detail")
	if gotCode != code || detail != "" && gotDetail != detail {
		t.Fatalf("decline %s / %s, want %s / %s", gotCode, gotDetail, code, detail)
	}
}

func wantOK(t testing.TB, r result) *jsonv.Object {
	t.Helper()
	if r.isError || r.value == nil {
		t.Fatalf("want a result, got %s", r.text)
	}
	return r.value
}

// confirmArgs are atr_confirm's arguments for D with the vectors' account.
func (f *fixture) confirmArgs() *jsonv.Object {
	return jsonv.Obj("pairing", pairing, "document", f.D, "account", f.account)
}

func hashOf(b []byte) string { return atr.Sum(b).String() }

// rawSession speaks JSON-RPC lines to a stdio server directly, for messages
// no SDK would send.
type rawSession struct {
	t     testing.TB
	w     io.Writer
	r     *bufio.Reader
	lines chan []byte // what the server wrote, read on a goroutine of its own
}

func newRawSession(t testing.TB, w io.Writer, r io.Reader) *rawSession {
	rs := &rawSession{t: t, w: w, r: bufio.NewReader(r), lines: make(chan []byte, 1024)}
	go func() {
		defer close(rs.lines)
		for {
			line, err := rs.r.ReadBytes('\n')
			if err != nil {
				return
			}
			rs.lines <- line
		}
	}()
	return rs
}

func (r *rawSession) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.w, line+"\n"); err != nil {
		r.t.Fatal(err)
	}
}

// recv reads the next message, skipping notifications.
func (r *rawSession) recv() *jsonv.Object {
	r.t.Helper()
	return r.recvWithin(30 * time.Second)
}

// recvWithin is recv that fails when no message comes within d.
func (r *rawSession) recvWithin(d time.Duration) *jsonv.Object {
	r.t.Helper()
	timeout := time.After(d)
	for {
		var line []byte
		var ok bool
		select {
		case line, ok = <-r.lines:
			if !ok {
				r.t.Fatal("the server closed its output")
			}
		case <-timeout:
			r.t.Fatalf("no answer within %v", d)
		}
		v, err := jsonv.Parse(line)
		if err != nil {
			r.t.Fatalf("the server wrote no JSON: %v\n%s", err, line)
		}
		o, _ := jsonv.AsObject(v)
		if o != nil && !o.Has("method") {
			return o
		}
	}
}

// initialize runs the legacy handshake.
func (r *rawSession) initialize() {
	r.t.Helper()
	r.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if o := r.recv(); !o.Has("result") {
		r.t.Fatalf("initialize: %s", jsonv.Marshal(o))
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// rawBinary starts the built termsgate mcp with args for raw JSON-RPC.
func rawBinary(t testing.TB, args ...string) *rawSession {
	t.Helper()
	cmd := exec.Command(termsgateBinary(t), append([]string{"mcp"}, args...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	rs := newRawSession(t, stdin, stdout)
	rs.initialize()
	return rs
}

// rawStdio serves srv in process for raw JSON-RPC.
func rawStdio(t testing.TB, srv *mcpserver.Server) *rawSession {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.ServeStdio(ctx, sr, sw, nil)
		sw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		cw.Close()
		cr.Close()
		<-done
	})
	rs := newRawSession(t, cw, cr)
	rs.initialize()
	return rs
}

func writeFile(path string, b []byte) error { return os.WriteFile(path, b, 0o600) }

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
