package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"syscall"
	"testing"
	"time"

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
//
// The answer is taken from the raw session's lines: its own goroutine is
// the pipe's only reader (reading the pipe here as well, as this once did,
// races it for every answer and waits for ever for the ones it lost).
func BenchmarkToolCall(b *testing.B) {
	srv, args := checkCall(b)
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"atr_check","arguments":` + string(jsonv.Marshal(args)) + "}}"
	raw := rawStdio(b, srv)
	const patience = 30 * time.Second // a lost answer fails, never hangs
	timer := time.NewTimer(patience)
	defer timer.Stop()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		raw.send(line)
		timer.Reset(patience)
		var resp []byte
		for resp == nil || !bytes.HasPrefix(resp, []byte(`{"jsonrpc":"2.0","id":1,`)) { // notifications skipped
			var ok bool
			select {
			case resp, ok = <-raw.lines:
				if !ok {
					b.Fatal("the server closed its output")
				}
			case <-timer.C:
				b.Fatalf("no answer to atr_check within %v", patience)
			}
		}
		if !bytes.Contains(resp, []byte(`"atrHash"`)) || bytes.Contains(resp, []byte(`"isError"`)) {
			b.Fatalf("atr_check: %s", resp)
		}
	}
	// The machine is shared: CPU time per call is the figure to read.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's user and system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
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
