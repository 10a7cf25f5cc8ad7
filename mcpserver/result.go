package mcpserver

import (
	"encoding/json"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
)

// The result envelope (docs/protocol.md, "The MCP server", results): structuredContent, and one
// text block that is exactly its JSON, as JSON.stringify writes it. Both come
// from one jsonv.Marshal, so they cannot differ. (On the wire encoding/json
// may escape characters such as '<' inside structuredContent; the value is
// the same.)

func structured(v *jsonv.Object, isError bool) *mcp.CallToolResult {
	b := jsonv.Marshal(v)
	return &mcp.CallToolResult{
		Content:              []mcp.Content{mcp.TextContent{Type: "text", Text: string(b)}},
		StructuredContent:    json.RawMessage(b),
		RawStructuredContent: b,
		IsError:              isError,
	}
}

// declined is the decline result: {decline: {code, detail}, cause?, moved?}.
func declined(d *gate.Decline) *mcp.CallToolResult { return structured(d.JSON(), true) }

// refused is the result for arguments the tool did not accept: a message
// naming the argument, as an SDK's schema check answers (text only).
func refused(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content: []mcp.Content{mcp.TextContent{Type: "text", Text: msg}},
		IsError: true,
	}
}

// outcome turns what a tool did into its result. A gate error that is no
// *gate.Decline cannot happen (the gate returns only declines) but is
// answered, not dropped.
func outcome(v *jsonv.Object, err error) *mcp.CallToolResult {
	if err == nil {
		return structured(v, false)
	}
	var d *gate.Decline
	if errors.As(err, &d) {
		return declined(d)
	}
	var ae *argError
	if errors.As(err, &ae) {
		return refused(ae.msg)
	}
	return refused("The tool failed: " + err.Error())
}
