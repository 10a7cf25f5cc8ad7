package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
)

func TestCheckMessage(t *testing.T) {
	// Names that must not be taken for duplicates, inside a request's params.
	for _, params := range []string{
		`{"a":{"b":1},"c":{"b":2}}`, // the same name in two objects
		`[{"a":1},{"a":2}]`,
		`{"name":"x","nAme2":1}`,
		`{"ß":1,"ss":2}`, // not equal under simple folding
		`{"a":"\"","b":"\\"}`,
	} {
		m := `{"jsonrpc":"2.0","id":1,"method":"x","params":` + params + `}`
		if _, we := checkMessage([]byte(m)); we != nil {
			t.Errorf("%s refused: %s", m, we.msg)
		}
	}
	accepted := []struct {
		msg    string
		kind   kind
		id     string
		method string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, kindRequest, "1", "ping"},
		{` {"jsonrpc":"2.\u0030","id":"a\u0062","method":"tools/\u0063all"} `, kindRequest, `"a\u0062"`, "tools/call"},
		{`{"jsonrpc":"2.0","id":-9007199254740991,"method":"m"}`, kindRequest, "-9007199254740991", "m"},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, kindNotification, "", "notifications/initialized"},
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, kindResponse, "3", ""},
		{`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}`, kindResponse, `"x"`, ""},
	}
	for _, a := range accepted {
		info, we := checkMessage([]byte(a.msg))
		if we != nil {
			t.Errorf("%s refused: %s", a.msg, we.msg)
			continue
		}
		if info.kind != a.kind || string(info.id) != a.id || info.method != a.method {
			t.Errorf("%s: read as %+v", a.msg, info)
		}
	}
	refused := []struct {
		msg, id string
		code    int
		silent  bool
		says    string
	}{
		{`{"id":1,"method":"x","params":{"a":1,"a":2}}`, "1", -32600, false, `"a" appears twice`},
		{`{"id":"q","method":"x","params":{"a":1,"A":2}}`, `"q"`, -32600, false, "differ only in case"},
		{`{"method":"x","params":[{"k":1,"\u212a":2}],"id":3}`, "3", -32600, false, "differ only in case"}, // id after the refusal
		{`{"id":1,"id":2,"method":"x"}`, "", -32600, false, "twice"},
		{`{"id":1,"Id":1,"method":"x"}`, "", -32600, false, "differ only in case"},
		{`{"id":{"a":1,"a":2},"method":"x"}`, "", -32600, false, "twice"},
		{`{"method":"notifications/x","params":{"a":1,"a":1}}`, "", -32600, true, "twice"},
		{`{"a":1,"a":1}`, "", -32600, false, "twice"},
		{`{"s":"\ud800"}`, "", -32700, false, "lone surrogate"},
		{`{"a":1} x`, "", -32700, false, "after the message"},
		{strings.Repeat("[", 70) + strings.Repeat("]", 70), "", -32700, false, "deeper than"},
		{`{"id":5,"method":"x","params":` + strings.Repeat("[", 1<<16) + strings.Repeat("]", 1<<16) + `}`, "5", -32700, false, "deeper than"},
		// Not one request or notification object.
		{`[]`, "", -32600, false, "batch"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "", -32600, false, "batch"},
		{`"just a string"`, "", -32600, false, "a string, not a JSON-RPC object"},
		{`42`, "", -32600, false, "a number"},
		{`null`, "", -32600, false, "null, not"},
		{`{}`, "", -32600, false, "lacks"},
		{`{"jsonrpc":"2.0","id":1}`, "1", -32600, false, "no method"},
		{`{"jsonrpc":"2.0","result":{}}`, "", -32600, false, "no method"},
		{`{"id":1,"method":"ping"}`, "1", -32600, false, `lacks "jsonrpc": "2.0"`},
		{`{"jsonrpc":2,"id":1,"method":"ping"}`, "1", -32600, false, `lacks "jsonrpc": "2.0"`},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, "1", -32600, false, `lacks "jsonrpc": "2.0"`},
		// Ids mcp-go would read otherwise than a reader of the text.
		{`{"jsonrpc":"2.0","ID":1,"method":"tools/call"}`, "", -32600, false, `"ID" must be spelled "id"`},
		{`{"jsonrpc":"2.0","Id":"a","method":"tools/call"}`, "", -32600, false, `"Id" must be spelled "id"`},
		{`{"jsonrpc":"2.0","id":7,"Method":"tools/call"}`, "7", -32600, false, `"Method" must be spelled "method"`},
		{`{"jsonrpc":"2.0","method":"x","Params":{}}`, "", -32600, false, `"Params" must be spelled "params"`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/call"}`, "", -32600, false, "the id is an object"},
		{`{"jsonrpc":"2.0","id":[1],"method":"tools/call"}`, "", -32600, false, "the id is an array"},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, "", -32600, false, "the id is a boolean"},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, "", -32600, false, "null, which MCP does not allow"},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "", -32600, false, "not an integer"},
		{`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, "", -32600, false, "not an integer"},
		{`{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`, "", -32600, false, "beyond 2^53-1"},
		{`{"jsonrpc":"2.0","id":1,"method":5}`, "1", -32600, false, "the method is a number"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`, "1", -32600, false, `no "result"`},
		// Broken text.
		{`{"id":1,"method":"x"`, "", -32700, false, "end of the message"},
		{"{\"id\":1,\"method\":\"\xff\"}", "", -32700, false, "invalid UTF-8"},
		{"\xef\xbb\xbf{\"id\":1,\"method\":\"x\"}", "", -32700, false, "unexpected character"},
		{`{"id":1,"method":"x\q"}`, "", -32700, false, "invalid escape"},
		{`{"id":01,"method":"x"}`, "", -32700, false, "expected ',' or '}'"},
		{`{"id":1,"method":"\u12"}`, "", -32700, false, "invalid \\u escape"},
		{"{\"id\":1,\"method\":\"a\tb\"}", "", -32700, false, "control character"},
		{``, "", -32700, false, "end of the message"},
		{`tru`, "", -32700, false, "invalid literal"},
	}
	for _, r := range refused {
		_, we := checkMessage([]byte(r.msg))
		if we == nil {
			t.Errorf("%.80s accepted", r.msg)
			continue
		}
		if string(we.id) != r.id || we.silent != r.silent || we.code != r.code || !strings.Contains(we.msg, r.says) {
			t.Errorf("%.80s: id %q silent %v code %d %q; want %q %v %d saying %q", r.msg, we.id, we.silent, we.code, we.msg, r.id, r.silent, r.code, r.says)
		}
		var resp struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(we.response(), &resp); err != nil || resp.JSONRPC != "2.0" || resp.Error.Message == "" {
			t.Errorf("%.80s: response %s (%v)", r.msg, we.response(), err)
		}
	}
	if _, we := checkMessage(bytes.Repeat([]byte(" "), MaxMessageBytes+1)); we == nil {
		t.Error("an oversized message accepted")
	}
}

func TestFoldKey(t *testing.T) {
	same := [][2]string{{"name", "NAME"}, {"key", "\u212aey"}, {"s", "\u017f"}, {"Ωmega", "ωMEGA"}}
	for _, p := range same {
		if foldKey(p[0]) != foldKey(p[1]) || !strings.EqualFold(p[0], p[1]) {
			t.Errorf("%q and %q fold apart", p[0], p[1])
		}
	}
	for _, p := range [][2]string{{"name", "names"}, {"ß", "ss"}, {"a", "b"}} {
		if foldKey(p[0]) == foldKey(p[1]) {
			t.Errorf("%q and %q fold together", p[0], p[1])
		}
	}
}

func TestReadLine(t *testing.T) {
	in := bufio.NewReaderSize(strings.NewReader("short\n"+strings.Repeat("x", 100)+"\nnext\nlast"), 16)
	want := []struct {
		line string
		err  error
	}{{"short", nil}, {"", errLineTooLong}, {"next", nil}, {"last", io.EOF}}
	for _, w := range want {
		line, err := readLine(in, 50)
		if string(line) != w.line || !errors.Is(err, w.err) && !(err == nil && w.err == nil) {
			t.Fatalf("got %q, %v; want %q, %v", line, err, w.line, w.err)
		}
	}
}

// TestServeStdioLines: over ServeStdio, a refused line is answered with
// its id and never dispatched, blank lines are skipped, an over-long line
// is refused and the next one still served, and the end of input ends the
// loop with nil.
func TestServeStdioLines(t *testing.T) {
	s, err := New(Config{Client: refusingDoer{}})
	if err != nil {
		t.Fatal(err)
	}
	input := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping","Method":"x"}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"` + strings.Repeat("x", MaxMessageBytes) + `"}}` + "\n" +
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`
	var out bytes.Buffer
	if err := s.ServeStdio(context.Background(), strings.NewReader(input), &out, nil); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %.200s", err, line)
		}
		kind := "result"
		if m.Error != nil {
			kind = "error"
		}
		got[string(m.ID)] = kind
	}
	want := map[string]string{"1": "result", "2": "error", "null": "error", "4": "result"}
	if len(got) != len(want) {
		t.Fatalf("answers %v, want %v", got, want)
	}
	for id, kind := range want {
		if got[id] != kind {
			t.Fatalf("answers %v, want %v", got, want)
		}
	}
}

// FuzzCheckMessage: no input panics the check or costs it more than the
// fuzz bound; whatever it accepts is JSON (jsonv reads it) with unique,
// case-distinct names; and mcp-go reads an accepted message as the check
// does: a request (with the same id and method) or a notification, both by
// the struct mcp-go's HandleMessage decodes first and by what HandleMessage
// itself answers.
func FuzzCheckMessage(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, `{"a":1,"A":2}`, `[{"x":"\u0078"}]`, `{"id":1,"method":"m","params":{"k":[1,{"k":2}]}}`, `"\ud83d\ude00"`, `{"\u212a":1}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","ID":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":"x","result":{}}`, `[]`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`, `{"jsonrpc":"2.0","id":1.0,"method":"ping"}`, `{"jsonrpc":"2.0","id":"\u0031","method":"p\u0069ng"}`,
	} {
		f.Add([]byte(s))
	}
	bare := server.NewMCPServer("fuzz", "0")
	f.Fuzz(func(t *testing.T, msg []byte) {
		var info message
		var we *wireError
		cost.Bound(t, len(msg), func() { info, we = checkMessage(msg) })
		if we != nil {
			if !json.Valid(we.response()) {
				t.Fatalf("refusal %q is not JSON", we.response())
			}
			return
		}
		if _, err := jsonv.ParseDepth(msg, jsonv.MaxDepth+envelopeDepth); err != nil {
			t.Fatalf("accepted %q, which jsonv refuses", msg)
		}
		// mcp-go's first reading of every message (server/request_handler.go
		// in github.com/mark3labs/mcp-go v1.2.1).
		var base struct {
			JSONRPC string        `json:"jsonrpc"`
			Method  mcp.MCPMethod `json:"method"`
			ID      any           `json:"id,omitempty"`
			Result  any           `json:"result,omitempty"`
		}
		if err := json.Unmarshal(msg, &base); err != nil {
			t.Fatalf("accepted %q, which mcp-go cannot read: %v", msg, err)
		}
		switch info.kind {
		case kindRequest:
			if base.ID == nil || base.Result != nil || string(base.Method) != info.method || idKeyOf(base.ID) != idKey(info.id) {
				t.Fatalf("%q: a request with id %s and method %q to the check; mcp-go reads id %v, method %q, result %v", msg, info.id, info.method, base.ID, base.Method, base.Result)
			}
		case kindNotification:
			if base.ID != nil || string(base.Method) != info.method {
				t.Fatalf("%q: a notification of %q to the check; mcp-go reads id %v, method %q", msg, info.method, base.ID, base.Method)
			}
		case kindResponse:
			if base.ID == nil || base.Method != "" {
				t.Fatalf("%q: a response to the check; mcp-go reads id %v, method %q", msg, base.ID, base.Method)
			}
			return // never handed to mcp-go
		default:
			t.Fatalf("%q: accepted as kind %d", msg, info.kind)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // nothing may wait
		resp := bare.HandleMessage(ctx, msg)
		if info.kind == kindNotification {
			if resp != nil {
				t.Fatalf("%q: a notification to the check; mcp-go answered %+v", msg, resp)
			}
			return
		}
		out, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		var answered struct {
			ID json.RawMessage `json:"id"`
		}
		if resp == nil || json.Unmarshal(out, &answered) != nil || idKey(answered.ID) != idKey(info.id) {
			t.Fatalf("%q: a request with id %s to the check; mcp-go answered %s", msg, info.id, out)
		}
	})
}

// idKeyOf is idKey of a value encoding/json decoded.
func idKeyOf(v any) string {
	raw, _ := json.Marshal(v)
	return idKey(raw)
}

// FuzzServeStdio: whatever lines come in, the loop ends at the end of the
// input within the fuzz bound, and everything it writes is JSON-RPC 2.0
// messages, one a line: answers (an id and a result or an error) and
// notifications.
func FuzzServeStdio(f *testing.F) {
	s, err := New(Config{Client: refusingDoer{}})
	if err != nil {
		f.Fatal(err)
	}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`
	for _, in := range []string{
		init + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		init + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"atr_read","arguments":{}}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		`[]` + "\n\n" + `{"jsonrpc":"2.0","ID":1,"method":"ping"}` + "\r\n" + `"x"`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"r","result":{}}` + "\n" + `{"a":` + "\n",
	} {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		cost.Bound(t, len(in), func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*cost.FuzzLimit)
			defer cancel()
			if err := s.ServeStdio(ctx, bytes.NewReader(in), &out, nil); err != nil {
				t.Fatalf("ServeStdio: %v", err)
			}
		})
		for _, line := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Method  string          `json:"method"`
				Result  json.RawMessage `json:"result"`
				Error   json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(line, &m); err != nil || m.JSONRPC != "2.0" || (m.Method == "") == (m.Result == nil && m.Error == nil) {
				t.Fatalf("wrote %q (%v)", line, err)
			}
		}
	})
}

// FuzzArguments: no arguments panic a tool's decoding or run, or cost it
// more than the fuzz bound.
func FuzzArguments(f *testing.F) {
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: "eip155:84532", MaxAmount: big.NewInt(1)}}})
	if err != nil {
		f.Fatal(err)
	}
	s, err := New(Config{Client: refusingDoer{}, Signer: refusingSigner{}, Policy: policy})
	if err != nil {
		f.Fatal(err)
	}
	for _, a := range []string{`{}`, `{"pairing":"x402/exact/eip155/eip3009","atr":"/w==","presented":{}}`, `{"atr":"/w==","chosen":{"mac":"0x00"}}`, `null`, `[1]`, `{"chosen":{"pairing":1,"choice":[],"mac":"x"}}`} {
		for i := range s.tools {
			f.Add(i, []byte(a))
		}
	}
	f.Fuzz(func(t *testing.T, i int, raw []byte) {
		if i < 0 || i >= len(s.tools) {
			return
		}
		tool := s.tools[i]
		args, aerr := parseArguments(tool.name, raw)
		if aerr != nil {
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // nothing may wait on the network
		cost.Bound(t, len(raw), func() { _ = outcome(tool.run(ctx, args)) })
	})
}

type refusingDoer struct{}

func (refusingDoer) Do(*http.Request) (*http.Response, error) {
	return nil, errors.New("no network in this test")
}

type refusingSigner struct{}

func (refusingSigner) Account() string {
	return "eip155:84532:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
}

func (refusingSigner) Sign(context.Context, rails.Request) (jsonv.Value, error) {
	return nil, errors.New("no signing in this test")
}
