package mcppay

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Wrap returns inner as a transport whose tool calls are paid through the
// Payer: build the mcp-go client session on it (client.NewClient(Wrap(t,
// payer))) and every CallTool the server answers with "payment required"
// is paid and retried once on the same transport, with the session's own
// headers and _meta; the client sees the paid answer, or a decline's tool
// error (DeclineResult). The wrapper sits below the session so that the
// raw answer, and the data of a JSON-RPC error, reach the Payer as the
// server sent them. OnOutcome, when set, is told what each paid call did.
func Wrap(inner transport.Interface, payer *Payer, onOutcome func(tool string, o Outcome)) transport.Interface {
	w := &wrapped{Interface: inner, payer: payer, onOutcome: onOutcome}
	if h, ok := inner.(transport.HTTPConnection); ok {
		return &wrappedHTTP{wrapped: w, http: h}
	}
	return w
}

type wrapped struct {
	transport.Interface
	payer     *Payer
	onOutcome func(string, Outcome)
}

type wrappedHTTP struct {
	*wrapped
	http transport.HTTPConnection
}

func (w *wrappedHTTP) SetProtocolVersion(v string) { w.http.SetProtocolVersion(v) }

// SetRequestHandler passes the server's requests (elicitation, sampling)
// to the session, when the inner transport carries them.
func (w *wrapped) SetRequestHandler(h transport.RequestHandler) {
	if b, ok := w.Interface.(transport.BidirectionalInterface); ok {
		b.SetRequestHandler(h)
	}
}

func (w *wrapped) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if req.Method != string(mcp.MethodToolsCall) {
		return w.Interface.SendRequest(ctx, req)
	}
	params, err := json.Marshal(req.Params)
	if err != nil {
		return w.Interface.SendRequest(ctx, req)
	}
	resp, err := w.Interface.SendRequest(ctx, req)
	if err != nil || paysItself(params) {
		return resp, err
	}
	first, err := answerOf(resp)
	if err != nil {
		return resp, nil // data that does not re-encode: not ours to read
	}
	if r, rerr := ReadRequired(first); r == nil && rerr == nil {
		return resp, nil
	}
	var named struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(params, &named)
	send := func(ctx context.Context, paid json.RawMessage) (Answer, error) {
		again := req
		again.Params = paid
		r, err := w.Interface.SendRequest(ctx, again)
		if err != nil {
			return Answer{}, err
		}
		return answerOf(r)
	}
	answer, out := w.payer.Settle(ctx, named.Name, params, first, send)
	if w.onOutcome != nil {
		w.onOutcome(named.Name, out)
	}
	final := &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID, Result: answer.Result}
	if answer.Error != nil {
		final.Result = nil
		final.Error = &mcp.JSONRPCErrorDetails{Code: answer.Error.Code, Message: answer.Error.Message}
		if len(answer.Error.Data) > 0 {
			final.Error.Data = answer.Error.Data
		}
	}
	return final, nil
}

// answerOf is a transport response as an Answer; mcp-go decoded an error's
// data into Go values, which are encoded again for the strict reader.
func answerOf(r *transport.JSONRPCResponse) (Answer, error) {
	a := Answer{Result: r.Result}
	if r.Error != nil {
		a.Error = &RPCError{Code: r.Error.Code, Message: r.Error.Message}
		if r.Error.Data != nil {
			data, err := json.Marshal(r.Error.Data)
			if err != nil {
				return Answer{}, err
			}
			a.Error.Data = data
		}
	}
	return a, nil
}
