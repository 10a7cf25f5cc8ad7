package mcpserver

import (
	"context"
	"testing"
)

func TestSlimCall(t *testing.T) {
	for _, c := range []struct{ msg, slim, args string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":[1,{"arguments":2}]},"_meta":{"progressToken":"t"}}}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{},"_meta":{"progressToken":"t"}}}`, `{"x":[1,{"arguments":2}]}`},
		{`{"params":{"arguments" : { "x" : 1 } ,"name":"a"},"method":"tools/call","id":"q","jsonrpc":"2.0"}`,
			`{"params":{"arguments" : {} ,"name":"a"},"method":"tools/call","id":"q","jsonrpc":"2.0"}`, `{ "x" : 1 }`},
		// Left to mcp-go as sent: arguments that are empty, no object, or
		// not params.arguments; another method; a notification.
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{}}}`, "", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":[1,2]}}`, "", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","x":{"arguments":{"y":1}}}}`, "", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","arguments":{"y":1},"params":{"name":"a"}}`, "", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"a","arguments":{"y":"1"}}}`, "", ""},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"a","arguments":{"y":1}}}`, "", ""},
	} {
		info, we := checkMessage([]byte(c.msg))
		if we != nil {
			t.Fatalf("%s refused: %s", c.msg, we.msg)
		}
		ctx, slim := slimCall(context.Background(), []byte(c.msg), info)
		want := c.slim
		if want == "" {
			want = c.msg
		}
		if string(slim) != want {
			t.Errorf("%s\nslimmed to %s\nwant       %s", c.msg, slim, want)
		}
		got := callArguments(ctx, []byte("mcp-go's"))
		wantArgs := c.args
		if wantArgs == "" {
			wantArgs = "mcp-go's"
		}
		if string(got) != wantArgs {
			t.Errorf("%s: arguments %s, want %s", c.msg, got, wantArgs)
		}
	}
}
