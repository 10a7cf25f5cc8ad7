// Package starknetrpc reads a Starknet node over its JSON-RPC API
// (https://github.com/starkware-libs/starknet-specs, starknet_api_openrpc.json):
// a transaction's receipt (starknet_getTransactionReceipt) and trace
// (starknet_traceTransaction's execute_invocation) for the seller's
// status, and, for the payer's wallet, the account's public key and
// whether an outside-execution nonce is unused (starknet_call of
// get_public_key and is_valid_outside_execution_nonce). Node is a
// stand-in that answers as a node does, for the demo and the tests, which
// run offline.
package starknetrpc

import (
	"context"
	"fmt"
	"strconv"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/restjson"
	"github.com/termsgate/termsgate/rails/starknet"
)

// Bounds of what the client reads.
const (
	maxAnswer     = 1 << 20
	maxFelts      = 4096 // calldata, keys, data or result of one item
	maxEvents     = starknet.MaxEvents
	maxCalls      = starknet.MaxTraceInvocations
	maxDepth      = starknet.MaxTraceDepth
	codeTxUnknown = 29 // TXN_HASH_NOT_FOUND
)

// Client asks one node.
type Client struct {
	URL  string // the node's JSON-RPC URL
	Net  string // the network it serves: starknet:SN_MAIN or starknet:SN_SEPOLIA
	HTTP restjson.Client
}

// Error is a failed call: the method and what went wrong; Code is the
// JSON-RPC error's code when the node answered one.
type Error struct {
	Method, Detail string
	Code           int64
}

func (e *Error) Error() string { return "starknetrpc: " + e.Method + ": " + e.Detail }

// Network is the network the node serves.
func (c *Client) Network() string { return c.Net }

var _ starknet.Reader = (*Client)(nil)

func (c *Client) call(ctx context.Context, method string, params ...jsonv.Value) (jsonv.Value, error) {
	body := jsonv.Marshal(jsonv.Obj("jsonrpc", "2.0", "id", 1, "method", method, "params", append([]jsonv.Value{}, params...)))
	hc := c.HTTP
	hc.Base = c.URL
	if hc.Max == 0 {
		hc.Max = maxAnswer
	}
	v, err := hc.Do(ctx, "POST", "", "application/json", body)
	if err != nil {
		return nil, &Error{Method: method, Detail: err.Error()}
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, &Error{Method: method, Detail: "the answer is not a JSON-RPC response"}
	}
	if e, ok := o.GetObject("error"); ok {
		n, _ := jsonv.AsInteger(func() jsonv.Value { v, _ := e.Get("code"); return v }())
		msg, _ := e.GetString("message")
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return nil, &Error{Method: method, Detail: "error " + strconv.FormatInt(n, 10) + ": " + msg, Code: n}
	}
	res, ok := o.Get("result")
	if !ok {
		return nil, &Error{Method: method, Detail: "the answer has no result"}
	}
	return res, nil
}

func bad(method, what string) error {
	return &Error{Method: method, Detail: "the answer's " + what + " does not read"}
}

func felt(v jsonv.Value) (starknet.Felt, bool) {
	s, ok := v.(string)
	if !ok {
		return starknet.Felt{}, false
	}
	return starknet.ParseFelt(s)
}

func felts(v jsonv.Value) ([]starknet.Felt, bool) {
	list, ok := jsonv.AsArray(v)
	if !ok || len(list) > maxFelts {
		return nil, false
	}
	out := make([]starknet.Felt, len(list))
	for i, e := range list {
		f, ok := felt(e)
		if !ok {
			return nil, false
		}
		out[i] = f
	}
	return out, true
}

func member(o *jsonv.Object, k string) jsonv.Value { v, _ := o.Get(k); return v }

// Receipt reads starknet_getTransactionReceipt: nil, nil for a hash the
// node does not know (error 29).
func (c *Client) Receipt(ctx context.Context, tx starknet.Felt) (*starknet.Receipt, error) {
	const m = "starknet_getTransactionReceipt"
	v, err := c.call(ctx, m, tx.String())
	if e, ok := err.(*Error); ok && e.Code == codeTxUnknown {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ReadReceipt(v)
}

// ReadReceipt reads a receipt as the node writes it.
func ReadReceipt(v jsonv.Value) (*starknet.Receipt, error) {
	const m = "starknet_getTransactionReceipt"
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, bad(m, "result")
	}
	r := &starknet.Receipt{}
	r.Finality, _ = o.GetString("finality_status")
	r.Execution, _ = o.GetString("execution_status")
	if r.Finality == "" || r.Execution == "" {
		return nil, bad(m, "status")
	}
	if bn, has := o.Get("block_number"); has && r.Finality != "PRE_CONFIRMED" {
		n, ok := jsonv.AsSafeInt(bn)
		if !ok || n < 0 {
			return nil, bad(m, "block_number")
		}
		u := uint64(n)
		r.BlockNumber = &u
	}
	evs, ok := jsonv.AsArray(member(o, "events"))
	if !ok || len(evs) > maxEvents {
		return nil, bad(m, "events")
	}
	for _, ev := range evs {
		e, _ := jsonv.AsObject(ev)
		from, ok1 := felt(member(e, "from_address"))
		keys, ok2 := felts(member(e, "keys"))
		data, ok3 := felts(member(e, "data"))
		if !ok1 || !ok2 || !ok3 {
			return nil, bad(m, "event")
		}
		r.Events = append(r.Events, starknet.Event{From: from, Keys: keys, Data: data})
	}
	return r, nil
}

// Trace reads starknet_traceTransaction's execute_invocation: nil, nil
// for a trace without one (a reverted transaction's holds only its revert
// reason).
func (c *Client) Trace(ctx context.Context, tx starknet.Felt) (*starknet.Invocation, error) {
	const m = "starknet_traceTransaction"
	v, err := c.call(ctx, m, tx.String())
	if err != nil {
		return nil, err
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, bad(m, "result")
	}
	ex, ok := o.GetObject("execute_invocation")
	if !ok || ex.Has("revert_reason") {
		return nil, nil
	}
	count := 0
	inv, ok := readInvocation(ex, 1, &count)
	if !ok {
		return nil, bad(m, "execute_invocation")
	}
	return inv, nil
}

func readInvocation(o *jsonv.Object, depth int, count *int) (*starknet.Invocation, bool) {
	*count++
	if o == nil || depth > maxDepth || *count > maxCalls {
		return nil, false
	}
	contract, ok1 := felt(member(o, "contract_address"))
	sel, ok2 := felt(member(o, "entry_point_selector"))
	data, ok3 := felts(member(o, "calldata"))
	calls, ok4 := jsonv.AsArray(member(o, "calls"))
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil, false
	}
	inv := &starknet.Invocation{Contract: contract, Selector: sel, Calldata: data}
	if rv, has := o.Get("is_reverted"); has {
		b, ok := rv.(bool)
		if !ok {
			return nil, false
		}
		inv.Reverted = b
	}
	for _, cv := range calls {
		co, _ := jsonv.AsObject(cv)
		c, ok := readInvocation(co, depth+1, count)
		if !ok {
			return nil, false
		}
		inv.Calls = append(inv.Calls, c)
	}
	return inv, true
}

// Call is starknet_call at the latest block: the function's result felts.
func (c *Client) Call(ctx context.Context, contract, selector starknet.Felt, calldata ...starknet.Felt) ([]starknet.Felt, error) {
	const m = "starknet_call"
	data := make([]jsonv.Value, len(calldata))
	for i, d := range calldata {
		data[i] = d.String()
	}
	v, err := c.call(ctx, m, jsonv.Obj("contract_address", contract.String(), "entry_point_selector", selector.String(), "calldata", data), "latest")
	if err != nil {
		return nil, err
	}
	out, ok := felts(v)
	if !ok {
		return nil, bad(m, "result")
	}
	return out, nil
}

// Selectors of the account functions the wallet reads.
var (
	SelectorGetPublicKey   = starknet.Selector("get_public_key")
	SelectorNonceAvailable = starknet.Selector("is_valid_outside_execution_nonce")
)

// PublicKey is the account's get_public_key.
func (c *Client) PublicKey(ctx context.Context, account starknet.Felt) (starknet.Felt, error) {
	out, err := c.Call(ctx, account, SelectorGetPublicKey)
	if err != nil {
		return starknet.Felt{}, err
	}
	if len(out) != 1 {
		return starknet.Felt{}, fmt.Errorf("starknetrpc: get_public_key answered %d felts", len(out))
	}
	return out[0], nil
}

// NonceAvailable is the account's is_valid_outside_execution_nonce.
func (c *Client) NonceAvailable(ctx context.Context, account, nonce starknet.Felt) (bool, error) {
	out, err := c.Call(ctx, account, SelectorNonceAvailable, nonce)
	if err != nil {
		return false, err
	}
	if len(out) != 1 || out[0] != (starknet.Felt{}) && out[0] != (starknet.Felt{1}) {
		return false, fmt.Errorf("starknetrpc: is_valid_outside_execution_nonce answered %d felts, not a bool", len(out))
	}
	return out[0] == starknet.Felt{1}, nil
}
