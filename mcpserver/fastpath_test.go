package mcpserver_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
)

// TestStdioCallFastPath: over stdio a tools/call's arguments go to the tool
// past mcp-go (stdio.go, slimCall) while mcp-go still reads the rest of the
// message: the progress token in _meta written after the arguments gets
// its notifications, the arguments the tool reads are the ones sent (an
// unknown one is refused by name, a nested "arguments" and "_meta" are
// only data), and arguments that are no object are refused as before.
func TestStdioCallFastPath(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.A)
	raw := rawStdio(t, newServer(t, f, s, mcpserver.Config{}))

	// collect reads lines up to the answer to id, returning the
	// notifications before it and the answer.
	collect := func(id string) (notes []*jsonv.Object, answer *jsonv.Object) {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			var line []byte
			select {
			case l, ok := <-raw.lines:
				if !ok {
					t.Fatal("the server closed its output")
				}
				line = l
			case <-timeout:
				t.Fatalf("no answer to %s", id)
			}
			v, err := jsonv.Parse(bytes.TrimSpace(line))
			if err != nil {
				t.Fatalf("not JSON: %s", line)
			}
			o, _ := jsonv.AsObject(v)
			if o.Has("method") {
				notes = append(notes, o)
				continue
			}
			if got, _ := o.GetString("id"); got == id {
				return notes, o
			}
		}
	}
	resultText := func(o *jsonv.Object) (string, bool) {
		t.Helper()
		res, ok := o.GetObject("result")
		if !ok {
			t.Fatalf("no result: %s", jsonv.Marshal(o))
		}
		isErr, _ := res.Get("isError")
		return string(jsonv.Marshal(res)), isErr == true
	}

	args := jsonv.Marshal(f.confirmArgs())
	raw.send(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"atr_confirm","arguments":` + string(args) + `,"_meta":{"progressToken":"p-1"}}}`)
	notes, answer := collect("c1")
	if text, isErr := resultText(answer); isErr || !strings.Contains(text, `"chosen"`) {
		t.Fatalf("atr_confirm over the fast path: %s", text)
	}
	progressed := 0
	for _, n := range notes {
		if m, _ := n.GetString("method"); m == "notifications/progress" {
			p, _ := n.GetObject("params")
			if tok, _ := p.GetString("progressToken"); tok != "p-1" {
				t.Fatalf("progress for token %q", tok)
			}
			progressed++
		}
	}
	if progressed == 0 {
		t.Fatal("no progress for the token written after the arguments")
	}

	// A nested "arguments" and "_meta" inside the arguments are the tool's
	// to read, and it refuses them by name.
	raw.send(`{"jsonrpc":"2.0","id":"c2","method":"tools/call","params":{"name":"atr_confirm","arguments":{"pairing":"x","arguments":{},"_meta":{}}}}`)
	_, answer = collect("c2")
	if text, isErr := resultText(answer); !isErr || !strings.Contains(text, `unknown argument`) {
		t.Fatalf("a nested arguments member: %s", text)
	}
	// Arguments that are no object are refused, not taken for none.
	raw.send(`{"jsonrpc":"2.0","id":"c3","method":"tools/call","params":{"name":"atr_confirm","arguments":[1]}}`)
	_, answer = collect("c3")
	if answer.Has("result") {
		if text, isErr := resultText(answer); !isErr {
			t.Fatalf("array arguments accepted: %s", text)
		}
	} else if !answer.Has("error") {
		t.Fatalf("array arguments: %s", jsonv.Marshal(answer))
	}
}
