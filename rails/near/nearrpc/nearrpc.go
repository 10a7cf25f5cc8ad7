// Package nearrpc reads a NEAR RPC node (https://docs.near.org/api/rpc/introduction):
// the payer's access key nonce (query view_access_key at finality final)
// and the final block's height (block) as the buyer's inputs, and a
// relayed transaction's outcome (EXPERIMENTAL_tx_status) for the seller's
// status. Node is a stand-in that answers as an RPC node does, for the
// demo and the tests, which run offline.
package nearrpc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/near"
)

const maxAnswer = 1 << 20

// Client asks one RPC node.
type Client struct {
	URL       string       // e.g. https://rpc.testnet.near.org
	Net       string       // near:mainnet or near:testnet
	HTTP      *http.Client // nil: http.DefaultClient
	Published []string     // the facilitator's relayers, for the seller's reads
}

var _ near.Reader = (*Client)(nil)

// Network is the network the node serves.
func (c *Client) Network() string { return c.Net }

// Relayers are the facilitator's published NEAR signers.
func (c *Client) Relayers() []string { return c.Published }

// Error is a failed call; Cause is the RPC error's cause name when it gave one.
type Error struct{ Method, Detail, Cause string }

func (e *Error) Error() string { return "nearrpc: " + e.Method + ": " + e.Detail }

func (c *Client) call(ctx context.Context, method string, params *jsonv.Object) (*jsonv.Object, error) {
	fail := func(format string, a ...any) error { return &Error{Method: method, Detail: fmt.Sprintf(format, a...)} }
	body := jsonv.Marshal(jsonv.Obj("jsonrpc", "2.0", "id", "termsgate", "method", method, "params", params))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return nil, fail("%v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fail("%v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, fail("%v", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fail("status %d", resp.StatusCode)
	}
	if len(raw) > maxAnswer {
		return nil, fail("answer longer than %d bytes", maxAnswer)
	}
	v, err := jsonv.Parse(raw)
	if err != nil {
		return nil, fail("answer is not JSON: %v", err)
	}
	o, _ := jsonv.AsObject(v)
	if e, ok := o.GetObject("error"); ok {
		cause, _ := e.GetObject("cause")
		name, _ := cause.GetString("name")
		return nil, &Error{Method: method, Detail: "error " + name, Cause: name}
	}
	res, ok := o.GetObject("result")
	if !ok {
		return nil, fail("answer has no result object")
	}
	return res, nil
}

func u64(v jsonv.Value) (uint64, bool) {
	n, ok := jsonv.AsSafeInt(v)
	return uint64(n), ok && n >= 0
}

// FinalHeight is the final block's height.
func (c *Client) FinalHeight(ctx context.Context) (uint64, error) {
	res, err := c.call(ctx, "block", jsonv.Obj("finality", "final"))
	if err != nil {
		return 0, err
	}
	hdr, _ := res.GetObject("header")
	hv, _ := hdr.Get("height")
	h, ok := u64(hv)
	if !ok {
		return 0, &Error{Method: "block", Detail: "no header.height"}
	}
	return h, nil
}

// AccessKeyNonce is the key's nonce at final; ok false when the account
// has no such key.
func (c *Client) AccessKeyNonce(ctx context.Context, account, publicKey string) (uint64, bool, error) {
	res, err := c.call(ctx, "query", jsonv.Obj("request_type", "view_access_key", "finality", "final",
		"account_id", account, "public_key", publicKey))
	if e, ok := err.(*Error); ok && e.Cause == "UNKNOWN_ACCESS_KEY" {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	nv, _ := res.Get("nonce")
	n, ok := u64(nv)
	if !ok {
		return 0, false, &Error{Method: "query", Detail: "no nonce (a safe integer)"}
	}
	return n, true, nil
}

// TxStatus is the transaction txHash sent by sender, its delegate action
// and receipts; nil when the node does not know it.
func (c *Client) TxStatus(ctx context.Context, txHash, sender string) (*near.Outcome, error) {
	const method = "EXPERIMENTAL_tx_status"
	res, err := c.call(ctx, method, jsonv.Obj("tx_hash", txHash, "sender_account_id", sender, "wait_until", "NONE"))
	if e, ok := err.(*Error); ok && e.Cause == "UNKNOWN_TRANSACTION" {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	fail := func(what string) error { return &Error{Method: method, Detail: what} }
	out := &near.Outcome{}
	out.Status, _ = res.GetString("final_execution_status")
	tx, _ := res.GetObject("transaction")
	av, _ := tx.Get("actions")
	actions, _ := jsonv.AsArray(av)
	if len(actions) > 16 {
		return nil, fail("more than 16 actions")
	}
	for _, a := range actions {
		ao, _ := jsonv.AsObject(a)
		dg, ok := ao.GetObject("Delegate")
		if !ok {
			continue
		}
		da, _ := dg.GetObject("delegate_action")
		nv, _ := da.Get("nonce")
		n, ok1 := u64(nv)
		sender, ok2 := da.GetString("sender_id")
		pk, ok3 := da.GetString("public_key")
		iv, _ := da.Get("actions")
		inner, _ := jsonv.AsArray(iv)
		if !ok1 || !ok2 || !ok3 || len(inner) != 1 {
			return nil, fail("a delegate action that does not read")
		}
		io, _ := jsonv.AsObject(inner[0])
		fc, _ := io.GetObject("FunctionCall")
		args, ok := near.ArgsFromBase64(jsonStr(fc, "args"))
		if !ok {
			return nil, fail("the delegated call's args are not base64")
		}
		out.Delegate = &near.Delegate{SenderID: sender, PublicKey: pk, Nonce: n, Args: args}
		break
	}
	rv, _ := res.Get("receipts_outcome")
	receipts, _ := jsonv.AsArray(rv)
	if len(receipts) > 64 {
		return nil, fail("more than 64 receipts")
	}
	for _, r := range receipts {
		ro, _ := jsonv.AsObject(r)
		oc, _ := ro.GetObject("outcome")
		exec, _ := oc.GetString("executor_id")
		st, _ := oc.Get("status")
		outcome := "pending"
		if so, ok := jsonv.AsObject(st); ok {
			switch {
			case so.Has("Failure"):
				outcome = "failure"
			case so.Has("SuccessValue"), so.Has("SuccessReceiptId"):
				outcome = "success"
			}
		}
		out.Receipts = append(out.Receipts, near.Receipt{Executor: exec, Outcome: outcome})
	}
	return out, nil
}

func jsonStr(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }

// Inputs reads the buyer's inputs for x402/exact/near: {publicKey,
// accessKeyNonce, finalHeight}, for the account and key given. Other
// pairings get none.
func (c *Client) Inputs(ctx context.Context, pairing, account, publicKey string) (*jsonv.Object, error) {
	if pairing != near.ExactID {
		return nil, nil
	}
	h, err := c.FinalHeight(ctx)
	if err != nil {
		return nil, err
	}
	n, ok, err := c.AccessKeyNonce(ctx, account, publicKey)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &Error{Method: "query", Detail: account + " has no access key " + publicKey}
	}
	return jsonv.Obj("publicKey", publicKey, "accessKeyNonce", strconv.FormatUint(n, 10), "finalHeight", strconv.FormatUint(h, 10)), nil
}

// Inputs adapts a Client to pay.Transport.Inputs for one account and key:
// each call asks the node within Timeout; a failure gives no inputs (the
// payment then declines x402/input-missing) and is kept for Err.
type Inputs struct {
	Client             *Client
	Account, PublicKey string
	Timeout            time.Duration // 0: 10 s

	mu   sync.Mutex
	last error
}

// For is the pay.Transport.Inputs function.
func (in *Inputs) For(pairing string) *jsonv.Object {
	t := in.Timeout
	if t == 0 {
		t = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), t)
	defer cancel()
	o, err := in.Client.Inputs(ctx, pairing, in.Account, in.PublicKey)
	in.mu.Lock()
	in.last = err
	in.mu.Unlock()
	if err != nil {
		return nil
	}
	return o
}

// Err is the last call's error, nil when it gave inputs.
func (in *Inputs) Err() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.last
}
