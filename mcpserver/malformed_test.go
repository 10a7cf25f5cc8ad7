package mcpserver_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
)

// idVariants are requests whose id mcp-go reads otherwise than a reader of
// the text: it decodes "ID" and "Id" as the id, and runs a request with an
// object or array id. Each would pay with atr_transact.
func idVariants(f *fixture) map[string]string {
	args := string(jsonv.Marshal(jsonv.Obj("pairing", pairing, "document", f.D)))
	call := `"method":"tools/call","params":{"name":"atr_transact","arguments":` + args + `}`
	return map[string]string{
		"ID":         `{"jsonrpc":"2.0","ID":7,` + call + `}`,
		"Id":         `{"jsonrpc":"2.0","Id":"t",` + call + `}`,
		"object id":  `{"jsonrpc":"2.0","id":{"n":7},` + call + `}`,
		"array id":   `{"jsonrpc":"2.0","id":[7],` + call + `}`,
		"null id":    `{"jsonrpc":"2.0","id":null,` + call + `}`,
		"boolean id": `{"jsonrpc":"2.0","id":true,` + call + `}`,
		"fraction":   `{"jsonrpc":"2.0","id":7.5,` + call + `}`,
	}
}

// TestIDVariantsRunNothing: over stdio, each is answered with an Invalid
// Request error (id null: no usable id) and nothing runs: no fetch, no
// signer call. Before, "ID" ran atr_transact, signed, and the client never
// got the answer.
func TestIDVariantsRunNothing(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.A)
	sg := newSigner(t, f)
	raw := rawStdio(t, newServer(t, f, s, mcpserver.Config{Signer: sg}))
	for name, msg := range idVariants(f) {
		t.Run(name, func(t *testing.T) {
			raw.send(msg)
			resp := raw.recvWithin(5 * time.Second)
			code, _ := jsonv.AsNumber(valueAt(t, resp, "error", "code"))
			if code != -32600 || valueAt(t, resp, "id") != nil || !strings.Contains(strAt(t, resp, "error", "message"), "id") {
				t.Fatalf("response %s", jsonv.Marshal(resp))
			}
			if s.fetches.Load() != 0 || sg.calls.Load() != 0 {
				t.Fatalf("a tool ran: %d fetches, %d signer calls", s.fetches.Load(), sg.calls.Load())
			}
		})
	}
}

// TestPingDuringStalledCall: while calls wait on an ATR host that never
// answers, the connection goes on reading: a ping is answered at once (and
// a call sent with a case-variant id, which used to run on the reading
// loop and hold it for the fetch's whole timeout, is refused at once);
// notifications/cancelled ends the call it names, and that call gets no
// response.
func TestPingDuringStalledCall(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.A)
	s.setHang()
	raw := rawStdio(t, newServer(t, f, s, mcpserver.Config{}))
	confirm := `"method":"tools/call","params":{"name":"atr_confirm","arguments":` + string(jsonv.Marshal(f.confirmArgs())) + `}}`
	raw.send(`{"jsonrpc":"2.0","id":42,` + confirm)
	deadline := time.Now().Add(5 * time.Second)
	for s.fetches.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if s.fetches.Load() == 0 {
		t.Fatal("the call did not reach the ATR host")
	}
	raw.send(`{"jsonrpc":"2.0","Id":43,` + confirm)
	raw.send(`{"jsonrpc":"2.0","id":"p1","method":"ping"}`)
	if resp := raw.recvWithin(2 * time.Second); valueAt(t, resp, "id") != nil {
		t.Fatalf("the Id call: %s", jsonv.Marshal(resp))
	}
	if resp := raw.recvWithin(2 * time.Second); strAt(t, resp, "id") != "p1" || !resp.Has("result") {
		t.Fatalf("the ping: %s", jsonv.Marshal(resp))
	}

	raw.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42,"reason":"the user gave up"}}`)
	select {
	case <-s.released:
	case <-time.After(3 * time.Second):
		t.Fatal("the fetch went on after notifications/cancelled")
	}
	// The cancelled call ended; had it been answered, its answer would come
	// before the next ping's.
	time.Sleep(100 * time.Millisecond)
	raw.send(`{"jsonrpc":"2.0","id":"p2","method":"ping"}`)
	if resp := raw.recvWithin(2 * time.Second); strAt(t, resp, "id") != "p2" {
		t.Fatalf("after the cancellation: %s", jsonv.Marshal(resp))
	}
	if got := s.fetches.Load(); got != 1 {
		t.Fatalf("%d fetches, want 1 (the Id call must not run)", got)
	}
}

// TestBusy: a connection runs at most 32 calls at once; one more is
// answered with a server error at once (waiting would stop the reading of
// the cancellations that free a slot), and ping is still answered.
func TestBusy(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.A)
	s.setHang()
	raw := rawStdio(t, newServer(t, f, s, mcpserver.Config{}))
	confirm := `"method":"tools/call","params":{"name":"atr_confirm","arguments":` + string(jsonv.Marshal(f.confirmArgs())) + `}}`
	for i := range 32 {
		raw.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s`, i, confirm))
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.fetches.Load() < 32 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	raw.send(`{"jsonrpc":"2.0","id":"one more",` + confirm)
	resp := raw.recvWithin(5 * time.Second)
	if code, _ := jsonv.AsNumber(valueAt(t, resp, "error", "code")); code != -32000 || strAt(t, resp, "id") != "one more" {
		t.Fatalf("the 33rd call: %s", jsonv.Marshal(resp))
	}
	raw.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if resp := raw.recvWithin(2 * time.Second); strAt(t, resp, "id") != "p" {
		t.Fatalf("the ping: %s", jsonv.Marshal(resp))
	}
	// A second request with an id still in use is refused, not run.
	raw.send(`{"jsonrpc":"2.0","id":0,"method":"tools/list"}`)
	if resp := raw.recvWithin(2 * time.Second); !strings.Contains(strAt(t, resp, "error", "message"), "already used by a request in progress") {
		t.Fatalf("a reused id: %s", jsonv.Marshal(resp))
	}
}

// manyMembersCall is a tools/call line whose arguments have n members:
// about 1.9 MB for 200k.
func manyMembersCall(n int) string {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"atr_read","arguments":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i%10)
	}
	b.WriteString(`}}}`)
	return b.String()
}

// TestManyMembersLine: a 200k-member line, well formed or broken at its
// end, is answered, and the connection goes on (a ping after it is
// answered), within a fixed bound of the process's CPU time (the wall clock
// of a shared machine under the race detector says little). It used to cost
// about 32 s of CPU: each object member was looked up among all the earlier
// ones, and a broken line was parsed a second time, on the reading loop, for
// its error text. Now it costs well under a second (about 0.4 s each here
// without the race detector).
func TestManyMembersLine(t *testing.T) {
	const bound = 10 * time.Second
	f := loadFixture(t)
	raw := rawStdio(t, newServer(t, f, nil, mcpserver.Config{Client: refusingClient{}}))
	line := manyMembersCall(200_000)
	for _, c := range []struct {
		name, line string
		code       float64
	}{
		{"well formed", line, 0},
		{"broken", strings.TrimSuffix(line, "}") + "x", -32700},
	} {
		start := cost.CPU()
		raw.send(c.line)
		raw.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
		first := raw.recvWithin(2 * time.Minute)
		second := raw.recvWithin(2 * time.Minute)
		used := cost.CPU() - start
		t.Logf("%s: %d bytes and a ping answered with %v of CPU", c.name, len(c.line), used)
		if used > bound {
			t.Errorf("%s: %v of CPU, over the %v bound", c.name, used, bound)
		}
		byID := map[any]*jsonv.Object{}
		for _, r := range []*jsonv.Object{first, second} {
			id, _ := r.Get("id")
			byID[id] = r
		}
		big, ok := byID["big"]
		if c.code != 0 {
			big, ok = byID[nil]
			if code, _ := jsonv.AsNumber(valueAt(t, big, "error", "code")); !ok || code != c.code {
				t.Fatalf("%s: answers %s, %s", c.name, jsonv.Marshal(first), jsonv.Marshal(second))
			}
		} else if !ok || !big.Has("result") {
			t.Fatalf("%s: answers %s, %s", c.name, jsonv.Marshal(first), jsonv.Marshal(second))
		}
		if _, ok := byID["after"]; !ok {
			t.Fatalf("%s: the ping after it was not answered: %s, %s", c.name, jsonv.Marshal(first), jsonv.Marshal(second))
		}
	}
}

// malformed are messages that are not one request or notification object,
// with what the answer must say.
var malformed = []struct{ name, msg, says string }{
	{"empty batch", `[]`, "a JSON array (a batch)"},
	{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "a JSON array (a batch)"},
	{"string", `"just a string"`, "the message is a string, not a JSON-RPC object"},
	{"number", `42`, "the message is a number"},
	{"no method", `{"jsonrpc":"2.0","id":1}`, "neither a request nor a notification"},
	{"ID", `{"jsonrpc":"2.0","ID":1,"method":"ping"}`, `the member "ID" must be spelled "id"`},
	{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, "the id is an object; a request id must be a string or an integer"},
}

// TestMalformedStdio: over stdio each is answered -32600 with its reason.
func TestMalformedStdio(t *testing.T) {
	raw := rawStdio(t, newServer(t, loadFixture(t), nil, mcpserver.Config{Client: refusingClient{}}))
	for _, m := range malformed {
		raw.send(m.msg)
		resp := raw.recvWithin(5 * time.Second)
		code, _ := jsonv.AsNumber(valueAt(t, resp, "error", "code"))
		if msg := strAt(t, resp, "error", "message"); code != -32600 || !strings.Contains(msg, m.says) {
			t.Errorf("%s: %s", m.name, jsonv.Marshal(resp))
		}
	}
}

// TestMalformedHTTP: over HTTP each is answered 400 with the same JSON-RPC
// error (mcp-go used to call a batch "not valid json", with -32700).
func TestMalformedHTTP(t *testing.T) {
	ts := httptest.NewServer(newServer(t, loadFixture(t), nil, mcpserver.Config{Client: refusingClient{}}).HTTPHandler(mcpserver.HTTPOptions{}))
	defer ts.Close()
	for _, m := range malformed {
		resp := post(t, ts.URL+"/mcp", m.msg, nil)
		v, err := jsonv.Parse([]byte(resp.body))
		if err != nil || resp.status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", m.name, resp.status, resp.body)
			continue
		}
		code, _ := jsonv.AsNumber(valueAt(t, v, "error", "code"))
		if msg := strAt(t, v, "error", "message"); code != -32600 || !strings.Contains(msg, m.says) {
			t.Errorf("%s: %s", m.name, resp.body)
		}
	}
}

// refusingClient is an ATR client for tests that must not fetch.
type refusingClient struct{}

func (refusingClient) Do(*http.Request) (*http.Response, error) {
	return nil, errors.New("no network in this test")
}
