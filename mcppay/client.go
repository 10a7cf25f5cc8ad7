package mcppay

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Client wraps an initialized mcp-go client session so that its tool calls
// are paid through the Payer. Calls go out on the session's own transport,
// under ids of their own ("termsgate-N"), so that the raw answer, and the
// data of a JSON-RPC error, reach the Payer as the server sent them.
type Client struct {
	MCP   *client.Client
	Payer *Payer
	seq   atomic.Int64
}

// CallTool calls the tool, paying it when it asks. The result is the
// server's (after the paid retry), or a decline's tool error (isError, the
// decline's JSON) with the Outcome saying what was paid or declined. A
// JSON-RPC error that is no request for payment is returned as an error.
func (c *Client) CallTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, Outcome, error) {
	params, err := json.Marshal(req.Params)
	if err != nil {
		return nil, Outcome{}, err
	}
	first, err := c.send(ctx, params)
	if err != nil {
		return nil, Outcome{}, err
	}
	answer, out := first, Outcome{}
	if !paysItself(params) {
		answer, out = c.Payer.Settle(ctx, req.Params.Name, params, first, c.send)
	}
	if answer.Error != nil {
		return nil, out, fmt.Errorf("mcppay: %s: error %d: %s", req.Params.Name, answer.Error.Code, answer.Error.Message)
	}
	raw := json.RawMessage(answer.Result)
	result, err := mcp.ParseCallToolResult(&raw)
	if err != nil {
		return nil, out, fmt.Errorf("mcppay: %s: the result is unreadable: %w", req.Params.Name, err)
	}
	return result, out, nil
}

func (c *Client) send(ctx context.Context, params json.RawMessage) (Answer, error) {
	id := "termsgate-" + strconv.FormatInt(c.seq.Add(1), 10)
	resp, err := c.MCP.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Method: string(mcp.MethodToolsCall), Params: params,
	})
	if err != nil {
		return Answer{}, err
	}
	a := Answer{Result: resp.Result}
	if resp.Error != nil {
		a.Error = &RPCError{Code: resp.Error.Code, Message: resp.Error.Message}
		if resp.Error.Data != nil {
			// mcp-go decoded data into Go values; re-encoded, it is read
			// by the same strict reader as any other.
			if a.Error.Data, err = json.Marshal(resp.Error.Data); err != nil {
				return Answer{}, err
			}
		}
	}
	return a, nil
}
