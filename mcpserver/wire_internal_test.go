package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

func TestCheckMessage(t *testing.T) {
	ok := []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"a":{"b":1},"c":{"b":2}}`, // the same name in two objects
		`[{"a":1},{"a":2}]`,
		`{"name":"x","nAme2":1}`,
		`{"ß":1,"ss":2}`, // not equal under simple folding
		`{"a":"\"","b":"\\"}`,
	}
	for _, m := range ok {
		if _, we := checkMessage([]byte(m)); we != nil {
			t.Errorf("%s refused: %s", m, we.msg)
		}
	}
	refused := []struct {
		msg, id string
		silent  bool
	}{
		{`{"id":1,"method":"x","params":{"a":1,"a":2}}`, "1", false},
		{`{"id":"q","method":"x","params":{"a":1,"A":2}}`, `"q"`, false},
		{`{"method":"x","params":[{"k":1,"\u212a":2}],"id":3}`, "3", false}, // id after the refusal
		{`{"id":1,"id":2,"method":"x"}`, "", false},
		{`{"id":1,"Id":1,"method":"x"}`, "", false},
		{`{"id":{"a":1,"a":2},"method":"x"}`, "", false},
		{`{"method":"notifications/x","params":{"a":1,"a":1}}`, "", true},
		{`{"a":1,"a":1}`, "", false},
		{`{"s":"\ud800"}`, "", false},
		{`{"a":1} x`, "", false},
		{strings.Repeat("[", 70) + strings.Repeat("]", 70), "", false},
	}
	for _, r := range refused {
		_, we := checkMessage([]byte(r.msg))
		if we == nil {
			t.Errorf("%s accepted", r.msg)
			continue
		}
		if string(we.id) != r.id || we.silent != r.silent {
			t.Errorf("%s: id %q silent %v, want %q %v", r.msg, we.id, we.silent, r.id, r.silent)
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
			t.Errorf("%s: response %s (%v)", r.msg, we.response(), err)
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

// FuzzCheckMessage: no input panics the check, and whatever it accepts is
// JSON with unique, case-distinct names.
func FuzzCheckMessage(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":1,"A":2}`, `[{"x":"\u0078"}]`, `{"id":1,"method":"m","params":{"k":[1,{"k":2}]}}`, `"\ud83d\ude00"`, `{"\u212a":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		_, we := checkMessage(msg)
		if we != nil {
			_ = we.response()
			return
		}
		if _, err := jsonv.ParseDepth(msg, jsonv.MaxDepth+envelopeDepth); err != nil {
			t.Fatalf("accepted %q, which jsonv refuses", msg)
		}
	})
}

// FuzzArguments: no arguments panic a tool's decoding or run.
func FuzzArguments(f *testing.F) {
	s, err := New(Config{Client: refusingDoer{}, Signer: refusingSigner{}})
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
		_ = outcome(tool.run(ctx, args))
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
