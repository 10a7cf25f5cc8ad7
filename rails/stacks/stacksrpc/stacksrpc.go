// Package stacksrpc reads Stacks over the node's RPC and the Stacks
// Blockchain API beside it, as https://api.testnet.hiro.so serves both
// (https://docs.hiro.so/stacks/api): the payer's wallet reads its next
// nonce (GET /v2/accounts/{address}?proof=0) and the fee rate (GET
// /v2/fees/transfer, µSTX per byte); the seller reads a transaction by txid
// (GET /extended/v1/tx/{txid}), its block's tenure (GET
// /extended/v2/blocks/{height}), the tip's tenure (GET /v2/info) and an
// address's last executed nonce (GET /extended/v1/address/{address}/nonces).
// Node is a stand-in that answers as they do, for the demo and the tests,
// which run offline.
package stacksrpc

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/restjson"
	"github.com/termsgate/termsgate/rails/stacks"
)

// maxAnswer bounds one answer: a transaction with its call's arguments
// written out is a few KiB.
const maxAnswer = 1 << 18

// Client asks one API.
type Client struct {
	URL  string       // the API's base URL, e.g. https://api.testnet.hiro.so
	Net  string       // the network it serves: stacks:1 or stacks:2147483648
	HTTP *http.Client // nil: http.DefaultClient
}

var (
	_ stacks.Inputs = (*Client)(nil)
	_ stacks.Reader = (*Client)(nil)
)

// Network is the network the API serves.
func (c *Client) Network() string { return c.Net }

// Error is a failed call: the path and what went wrong.
type Error struct {
	Path, Detail string
	Status       int
}

func (e *Error) Error() string { return "stacksrpc: " + e.Path + ": " + e.Detail }

// get reads path's JSON answer; a 404 is (nil, nil).
func (c *Client) get(ctx context.Context, path string) (jsonv.Value, error) {
	v, err := c.rest().Do(ctx, http.MethodGet, path, "", nil)
	return v, asError(err)
}

func (c *Client) object(ctx context.Context, path string) (*jsonv.Object, error) {
	o, err := c.rest().Object(ctx, path)
	return o, asError(err)
}

func (c *Client) rest() restjson.Client {
	return restjson.Client{Base: c.URL, HTTP: c.HTTP, Header: http.Header{"Accept": {"application/json"}}, Max: maxAnswer}
}

// asError gives a restjson failure this package's Error type.
func asError(err error) error {
	if e, ok := err.(*restjson.Error); ok {
		return &Error{Path: e.Path, Detail: e.Detail, Status: e.Status}
	}
	return err
}

// count reads a JSON number that is a non-negative safe integer.
func count(v jsonv.Value) (uint64, bool) {
	n, ok := jsonv.AsSafeInt(v)
	return uint64(n), ok && n >= 0
}

func member(o *jsonv.Object, k string) jsonv.Value { v, _ := o.Get(k); return v }

func checkAddress(a string) error {
	if _, _, ok := stacks.ParseAddress(a); !ok {
		return &Error{Path: "address", Detail: "not a Stacks address"}
	}
	return nil
}

// Nonce is the address's next nonce, as the node's account gives it.
func (c *Client) Nonce(ctx context.Context, address string) (uint64, error) {
	if err := checkAddress(address); err != nil {
		return 0, err
	}
	path := "/v2/accounts/" + address + "?proof=0"
	o, err := c.object(ctx, path)
	if err != nil {
		return 0, err
	}
	n, ok := count(member(o, "nonce"))
	if !ok {
		return 0, &Error{Path: path, Detail: "no nonce as a non-negative integer"}
	}
	return n, nil
}

// FeeRate is the node's fee rate for a transfer, µSTX per byte; it must
// be positive.
func (c *Client) FeeRate(ctx context.Context) (uint64, error) {
	const path = "/v2/fees/transfer"
	v, err := c.get(ctx, path)
	if err == nil && v == nil {
		err = &Error{Path: path, Detail: "not found", Status: http.StatusNotFound}
	}
	if err != nil {
		return 0, err
	}
	n, ok := count(v)
	if !ok || n == 0 {
		return 0, &Error{Path: path, Detail: "the rate is not a positive integer"}
	}
	return n, nil
}

// TipTenure is the tip's tenure height, from the node's info.
func (c *Client) TipTenure(ctx context.Context) (uint64, error) {
	const path = "/v2/info"
	o, err := c.object(ctx, path)
	if err != nil {
		return 0, err
	}
	n, ok := count(member(o, "tenure_height"))
	if !ok {
		return 0, &Error{Path: path, Detail: "no tenure_height"}
	}
	return n, nil
}

// ConfirmedNonce is the address's last executed nonce, nil when it has
// executed none.
func (c *Client) ConfirmedNonce(ctx context.Context, address string) (*uint64, error) {
	if err := checkAddress(address); err != nil {
		return nil, err
	}
	path := "/extended/v1/address/" + address + "/nonces"
	o, err := c.object(ctx, path)
	if err != nil {
		return nil, err
	}
	v, has := o.Get("last_executed_tx_nonce")
	if !has {
		return nil, &Error{Path: path, Detail: "no last_executed_tx_nonce"}
	}
	if v == nil {
		return nil, nil
	}
	n, ok := count(v)
	if !ok {
		return nil, &Error{Path: path, Detail: "last_executed_tx_nonce is not a non-negative integer"}
	}
	return &n, nil
}

// MaxArgs bounds the call's arguments read from an answer.
const MaxArgs = stacks.MaxArgs

// Tx is the transaction by txid, nil when the API holds none: its status,
// sender and nonce, and for a mined contract call its block (with the
// block's tenure, a second read) and the call's contract, function and
// arguments (hex of their serialization).
func (c *Client) Tx(ctx context.Context, txid [32]byte) (*stacks.Mined, error) {
	path := "/extended/v1/tx/0x" + hex.EncodeToString(txid[:])
	v, err := c.get(ctx, path)
	if err != nil || v == nil {
		return nil, err
	}
	o, ok := jsonv.AsObject(v)
	bad := func(what string) error { return &Error{Path: path, Detail: what} }
	if !ok {
		return nil, bad("the answer is not an object")
	}
	if id, _ := o.GetString("tx_id"); !strings.EqualFold(id, "0x"+hex.EncodeToString(txid[:])) {
		return nil, bad("the answer is another transaction's")
	}
	m := &stacks.Mined{}
	m.Status, _ = o.GetString("tx_status")
	m.Sender, _ = o.GetString("sender_address")
	nonce, okN := count(member(o, "nonce"))
	if m.Status == "" || !okN {
		return nil, bad("no tx_status or nonce")
	}
	m.Nonce = nonce
	if m.Status == "pending" || strings.HasPrefix(m.Status, "dropped_") {
		return m, nil
	}
	m.Mined = true
	h, ok := count(member(o, "block_height"))
	if !ok {
		return nil, bad("a mined transaction without block_height")
	}
	m.BlockHeight = h
	if call, ok := o.GetObject("contract_call"); ok {
		m.Contract, _ = call.GetString("contract_id")
		m.Function, _ = call.GetString("function_name")
		args, _ := jsonv.AsArray(member(call, "function_args"))
		if len(args) > MaxArgs {
			return nil, bad("too many function_args")
		}
		for i, a := range args {
			ao, _ := jsonv.AsObject(a)
			s, _ := ao.GetString("hex")
			b, ok := hexArg(s)
			if !ok {
				return nil, bad("function_args[" + strconv.Itoa(i) + "].hex is not hex")
			}
			m.Args = append(m.Args, b)
		}
	}
	bpath := "/extended/v2/blocks/" + strconv.FormatUint(h, 10)
	b, err := c.object(ctx, bpath)
	if err != nil {
		return nil, err
	}
	if m.Tenure, ok = count(member(b, "tenure_height")); !ok {
		return nil, &Error{Path: bpath, Detail: "no tenure_height"}
	}
	return m, nil
}

func hexArg(s string) ([]byte, bool) {
	if !strings.HasPrefix(s, "0x") || len(s) > 2+2*stacks.MaxTxBytes {
		return nil, false
	}
	b, err := hex.DecodeString(s[2:])
	return b, err == nil
}

// Broadcast posts a signed transaction to the node (POST /v2/transactions,
// its bytes as application/octet-stream) and returns the txid the node
// answers, which must be the transaction's.
func (c *Client) Broadcast(ctx context.Context, raw []byte) ([32]byte, error) {
	const path = "/v2/transactions"
	fail := func(format string, a ...any) error { return &Error{Path: path, Detail: fmt.Sprintf(format, a...)} }
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.URL, "/")+path, bytes.NewReader(raw))
	if err != nil {
		return [32]byte{}, fail("%v", err)
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return [32]byte{}, fail("%v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		return [32]byte{}, fail("%v", err)
	}
	if resp.StatusCode != http.StatusOK {
		if len(body) > 200 {
			body = body[:200]
		}
		return [32]byte{}, &Error{Path: path, Detail: fmt.Sprintf("status %d: %s", resp.StatusCode, body), Status: resp.StatusCode}
	}
	v, err := jsonv.Parse(body)
	s, _ := v.(string)
	want := stacks.TxID(raw)
	if err != nil || strings.TrimPrefix(s, "0x") != hex.EncodeToString(want[:]) {
		return [32]byte{}, fail("the node answered another txid")
	}
	return want, nil
}
