package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
)

//	go test -run x -bench ToolCall -count 6 ./mcpserver/

// checkCall prepares the benchmarks' call: atr_check of B6's payment
// against A (made through the tools once, outside the timing).
func checkCall(b *testing.B) (*mcpserver.Server, *jsonv.Object) {
	f := loadFixture(b)
	s := newSeller(b, f.A)
	srv := newServer(b, f, s, mcpserver.Config{})
	cs := connectHTTP(b, srv, nil)
	listTools(b, cs)
	c := wantOK(b, call(b, cs, "atr_confirm", f.confirmArgs()))
	fin := wantOK(b, call(b, cs, "atr_finish", jsonv.Obj("pairing", pairing, "atr", b64(f.A), "chosen", valueAt(b, c, "chosen"), "signature", f.b6Sig)))
	return srv, jsonv.Obj("pairing", pairing, "atr", b64(f.A), "presented", valueAt(b, fin, "signed"))
}

// BenchmarkToolCall is one atr_check over an in-process pipe to
// ServeStdio, with the smallest client there is (one JSON-RPC line
// written, one read): the server's whole share of a call, from the line
// check through mcp-go, the argument decoder and the gate to the answer
// written back.
func BenchmarkToolCall(b *testing.B) {
	srv, args := checkCall(b)
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"atr_check","arguments":` + string(jsonv.Marshal(args)) + "}}"
	raw := rawStdio(b, srv)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		raw.send(line)
		resp, err := raw.r.ReadSlice('\n')
		if err != nil || !bytes.Contains(resp, []byte(`"atrHash"`)) || bytes.Contains(resp, []byte(`"isError"`)) {
			b.Fatalf("atr_check: %v %s", err, resp)
		}
	}
}

// BenchmarkToolCallSDK is the same call made by the official SDK's client
// (over the same kind of pipe), so client and server together; the
// allocations are both sides'.
func BenchmarkToolCallSDK(b *testing.B) {
	srv, args := checkCall(b)
	cs := connectStdio(b, srv, nil)
	params := &gosdk.CallToolParams{Name: "atr_check", Arguments: json.RawMessage(jsonv.Marshal(args))}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("atr_check: %v %v", err, res)
		}
	}
}
