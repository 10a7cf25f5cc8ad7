package mcpserver_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
)

// dupMessages are tool calls whose member names collide. Each names a
// harmless tool and a paying one, so that running either is visible in the
// counts.
func dupMessages(f *fixture) map[string]string {
	transact := string(jsonv.Marshal(jsonv.Obj("pairing", pairing, "document", f.D)))
	check := `{"pairing":"` + pairing + `","atr":"/w==","presented":{}}`
	doc := string(jsonv.Marshal(f.D))
	return map[string]string{
		"case-variant name": `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"atr_check","Name":"atr_transact","arguments":` + transact + `}}`,
		"duplicate name":    `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"atr_transact","name":"atr_check","arguments":` + transact + `}}`,
		"escaped duplicate": `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"atr_check","n\u0061me":"atr_transact","arguments":` + check + `}}`,
		"kelvin sign":       `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"atr_check","arguments":` + check + `,"\u212Aey":1,"key":2}}`,
		"duplicate argument": `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"atr_transact","arguments":{"pairing":"` + pairing +
			`","document":` + doc + `,"document":{}}}}`,
		"deep duplicate": `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"atr_transact","arguments":{"pairing":"` + pairing +
			`","document":` + strings.Replace(doc, `"amount":"10000"`, `"amount":"10000","Amount":"1"`, 1) + `}}}`,
		"duplicate arguments": `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"atr_transact","arguments":` + transact + `,"Arguments":{}}}`,
		"duplicate method":    `{"jsonrpc":"2.0","id":7,"method":"tools/list","Method":"tools/call","params":{"name":"atr_transact","arguments":` + transact + `}}`,
	}
}

// TestDuplicateKeysRefused: over in-process stdio, a message with colliding
// member names is answered with a JSON-RPC error carrying its id, and no
// tool runs (no fetch, no signer call). The connection goes on serving.
func TestDuplicateKeysRefused(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.A)
	sg := newSigner(t, f)
	raw := rawStdio(t, newServer(t, f, s, mcpserver.Config{Signer: sg}))
	for name, msg := range dupMessages(f) {
		t.Run(name, func(t *testing.T) {
			raw.send(msg)
			resp := raw.recv()
			code, _ := jsonv.AsNumber(valueAt(t, resp, "error", "code"))
			id, _ := jsonv.AsNumber(valueAt(t, resp, "id"))
			if code != -32600 || id != 7 || resp.Has("result") {
				t.Fatalf("response %s", jsonv.Marshal(resp))
			}
			if s.fetches.Load() != 0 || sg.calls.Load() != 0 {
				t.Fatalf("a tool ran: %d fetches, %d signer calls", s.fetches.Load(), sg.calls.Load())
			}
		})
	}

	// An ambiguous id is answered null; a refused notification is not
	// answered (the next answer is the ping's).
	raw.send(`{"jsonrpc":"2.0","id":1,"ID":2,"method":"ping"}`)
	if resp := raw.recv(); valueAt(t, resp, "id") != nil || !resp.Has("error") {
		t.Fatalf("ambiguous id: %s", jsonv.Marshal(resp))
	}
	raw.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"requestId":2}}`)
	raw.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	if resp := raw.recv(); strAt(t, resp, "id") != "after" || !resp.Has("result") {
		t.Fatalf("after a refused notification: %s", jsonv.Marshal(resp))
	}
	// Not JSON at all (a lone surrogate, invalid UTF-8): a parse error.
	raw.send(`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"\ud800"}}`)
	if resp := raw.recv(); !resp.Has("error") {
		t.Fatalf("lone surrogate: %s", jsonv.Marshal(resp))
	}
	raw.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}")
	if resp := raw.recv(); !resp.Has("error") {
		t.Fatalf("invalid UTF-8: %s", jsonv.Marshal(resp))
	}
	// And a proper call still works.
	raw.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"atr_check","arguments":{"pairing":"` + pairing + `","atr":"/w==","presented":{}}}}`)
	resp := raw.recv()
	if text := strAt(t, resp, "result", "content", "0", "text"); !strings.Contains(text, "signed-not-bound") {
		t.Fatalf("atr_check after the refusals: %s", jsonv.Marshal(resp))
	}
}

// TestDuplicateKeysBinary: the built binary refuses them too.
func TestDuplicateKeysBinary(t *testing.T) {
	f := loadFixture(t)
	raw := rawBinary(t, "--dev-key", "--max-amount", "1000000")
	raw.send(dupMessages(f)["case-variant name"])
	resp := raw.recv()
	if !strings.Contains(strAt(t, resp, "error", "message"), `"name" and "Name" differ only in case`) {
		t.Fatalf("response %s", jsonv.Marshal(resp))
	}
}

// TestDuplicateKeysHTTP: over HTTP the POST is answered 400 with the
// JSON-RPC error, and nothing runs.
func TestDuplicateKeysHTTP(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.A)
	sg := newSigner(t, f)
	ts := httptest.NewServer(newServer(t, f, s, mcpserver.Config{Signer: sg}).HTTPHandler(mcpserver.HTTPOptions{}))
	defer ts.Close()
	for name, msg := range dupMessages(f) {
		resp := post(t, ts.URL+"/mcp", msg, nil)
		if resp.status != http.StatusBadRequest || !strings.Contains(resp.body, `"code":-32600`) || !strings.Contains(resp.body, `"id":7`) {
			t.Fatalf("%s: %d %s", name, resp.status, resp.body)
		}
	}
	if s.fetches.Load() != 0 || sg.calls.Load() != 0 {
		t.Fatalf("a tool ran: %d fetches, %d signer calls", s.fetches.Load(), sg.calls.Load())
	}
}

// TestRawEnvelope: over the wire (member order kept), the text block is
// JSON.stringify of structuredContent, byte for byte.
func TestRawEnvelope(t *testing.T) {
	f := loadFixture(t)
	raw := rawBinary(t)
	// An ATR whose text needs escaping on the wire: '<', '&', U+2028, a quote.
	atrText := []byte("terms <b>&</b> \u2028 \"quoted\" caf\u00e9")
	raw.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"atr_check","arguments":{"pairing":"` + pairing + `","atr":"` + b64(atrText) + `","presented":{}}}}`)
	checkRawEnvelope(t, raw.recv(), true)
	raw.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"atr_read","arguments":{"pairing":"` + pairing + `","document":` + string(jsonv.Marshal(f.D)) + `}}}`)
	checkRawEnvelope(t, raw.recv(), false)
}

func checkRawEnvelope(t *testing.T, resp *jsonv.Object, isError bool) {
	t.Helper()
	res := objAt(t, resp, "result")
	text := strAt(t, res, "content", "0", "text")
	if got := string(jsonv.Marshal(valueAt(t, res, "structuredContent"))); got != text {
		t.Fatalf("text and structuredContent differ:\n%s\n%s", text, got)
	}
	if e, _ := res.Get("isError"); (e == true) != isError {
		t.Fatalf("isError %v: %s", e, jsonv.Marshal(res))
	}
}

type httpResp struct {
	status int
	body   string
	header http.Header
}

func post(t *testing.T, url, body string, header http.Header) httpResp {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return httpResp{resp.StatusCode, string(b), resp.Header}
}
