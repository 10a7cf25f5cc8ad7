// Package suirpc reads a Sui full node over its JSON-RPC API
// (https://docs.sui.io/sui-api-ref): the reference gas price
// (suix_getReferenceGasPrice), the epoch (suix_getLatestSuiSystemState),
// an owner's coins (suix_getCoins) for the payer's wallet, and an executed
// transaction by digest (sui_getTransactionBlock with showRawInput and
// showEffects) for the seller's status. Node is a stand-in that answers as
// a full node does, for the demo and the tests, which run offline.
package suirpc

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/internal/base58"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/bcs"
	"github.com/termsgate/termsgate/rails/sui"
)

// maxAnswer bounds one answer: a transaction's raw input is at most 128 KiB,
// 175 KiB in base64, with its effects beside it.
const maxAnswer = 1 << 20

// Client asks one full node.
type Client struct {
	URL  string       // the node's JSON-RPC URL, e.g. https://fullnode.testnet.sui.io:443
	Net  string       // the network it serves: sui:mainnet, sui:testnet or sui:devnet
	HTTP *http.Client // nil: http.DefaultClient
}

var (
	_ sui.Inputs = (*Client)(nil)
	_ sui.Reader = (*Client)(nil)
)

// Network is the network the node serves.
func (c *Client) Network() string { return c.Net }

// Error is a failed call: the method and what went wrong. Code is the
// JSON-RPC error's code when the node answered one.
type Error struct {
	Method, Detail string
	Code           int64
}

func (e *Error) Error() string { return "suirpc: " + e.Method + ": " + e.Detail }

func (c *Client) call(ctx context.Context, method string, params []jsonv.Value) (jsonv.Value, error) {
	fail := func(format string, a ...any) error { return &Error{Method: method, Detail: fmt.Sprintf(format, a...)} }
	body := jsonv.Marshal(jsonv.Obj("jsonrpc", "2.0", "id", 1, "method", method, "params", params))
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
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, fail("answer is not a JSON-RPC response")
	}
	if e, ok := o.GetObject("error"); ok {
		code, _ := e.Get("code")
		n, _ := jsonv.AsInteger(code)
		msg, _ := e.GetString("message")
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return nil, &Error{Method: method, Detail: "error " + strconv.FormatInt(n, 10) + ": " + msg, Code: n}
	}
	res, ok := o.Get("result")
	if !ok {
		return nil, fail("answer has no result")
	}
	return res, nil
}

func u64(v jsonv.Value) (uint64, bool) {
	s, ok := v.(string)
	if !ok || s == "" || len(s) > 20 || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// ReferenceGasPrice is the epoch's reference gas price, in MIST.
func (c *Client) ReferenceGasPrice(ctx context.Context) (uint64, error) {
	v, err := c.call(ctx, "suix_getReferenceGasPrice", []jsonv.Value{})
	if err != nil {
		return 0, err
	}
	n, ok := u64(v)
	if !ok || n == 0 {
		return 0, &Error{Method: "suix_getReferenceGasPrice", Detail: "the price is not a positive decimal string"}
	}
	return n, nil
}

// Epoch is the current epoch.
func (c *Client) Epoch(ctx context.Context) (uint64, error) {
	v, err := c.call(ctx, "suix_getLatestSuiSystemState", []jsonv.Value{})
	if err != nil {
		return 0, err
	}
	o, _ := jsonv.AsObject(v)
	e, _ := o.Get("epoch")
	n, ok := u64(e)
	if !ok {
		return 0, &Error{Method: "suix_getLatestSuiSystemState", Detail: "no epoch as a decimal string"}
	}
	return n, nil
}

// Coins is the first page of the owner's coins of coinType, at most limit
// (1 to 50) of them, each read strictly: its type the one asked, an object
// id, a version, a 32-byte base58 digest and a balance.
func (c *Client) Coins(ctx context.Context, owner sui.Address, coinType string, limit int) ([]sui.Coin, error) {
	const method = "suix_getCoins"
	if limit < 1 || limit > 50 {
		limit = 50
	}
	v, err := c.call(ctx, method, []jsonv.Value{owner.String(), coinType, nil, jsonv.Number(limit)})
	if err != nil {
		return nil, err
	}
	o, _ := jsonv.AsObject(v)
	dv, _ := o.Get("data")
	data, ok := jsonv.AsArray(dv)
	if !ok || len(data) > limit {
		return nil, &Error{Method: method, Detail: "no data list of at most the limit"}
	}
	out := make([]sui.Coin, 0, len(data))
	for i, e := range data {
		co, _ := jsonv.AsObject(e)
		id, okID := sui.ParseAddress(strings.ToLower(str(co, "coinObjectId")))
		ver, okV := u64(get(co, "version"))
		bal, okB := u64(get(co, "balance"))
		dg, okD := base58.Bitcoin.Decode(str(co, "digest"))
		if !okID || !okV || !okB || !okD || len(dg) != 32 || !sameCoinType(str(co, "coinType"), coinType) {
			return nil, &Error{Method: method, Detail: "coin " + strconv.Itoa(i) + " does not read"}
		}
		out = append(out, sui.Coin{Ref: sui.ObjectRef{ID: id, Version: ver, Digest: [32]byte(dg)}, Balance: bal})
	}
	return out, nil
}

// sameCoinType compares coin types with their addresses padded, as nodes
// write 0x2::sui::SUI in its long form.
func sameCoinType(a, b string) bool { return longType(a) == longType(b) }

func longType(t string) string {
	addr, rest, ok := strings.Cut(t, "::")
	if !ok || !strings.HasPrefix(addr, "0x") || len(addr) > 66 {
		return t
	}
	return "0x" + strings.Repeat("0", 66-len(addr)) + strings.ToLower(addr[2:]) + "::" + rest
}

func str(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }

func get(o *jsonv.Object, k string) jsonv.Value { v, _ := o.Get(k); return v }

// notFound is a node's answer for a digest it does not hold.
func notFound(err error) bool {
	e, ok := err.(*Error)
	return ok && strings.Contains(e.Detail, "Could not find the referenced transaction")
}

// Read is the executed transaction by digest and the current epoch: two
// calls. The raw input is Sui's SenderSignedData; the TransactionData is
// read out of it and returned as signed.
func (c *Client) Read(ctx context.Context, digest string) (sui.Answer, error) {
	const method = "sui_getTransactionBlock"
	v, err := c.call(ctx, method, []jsonv.Value{digest, jsonv.Obj("showRawInput", true, "showEffects", true)})
	var a sui.Answer
	switch {
	case notFound(err):
	case err != nil:
		return sui.Answer{}, err
	default:
		o, _ := jsonv.AsObject(v)
		raw, err := base64.StdEncoding.Strict().DecodeString(str(o, "rawTransaction"))
		if err != nil {
			return sui.Answer{}, &Error{Method: method, Detail: "rawTransaction is not base64"}
		}
		txb, err := TransactionData(raw)
		if err != nil {
			return sui.Answer{}, &Error{Method: method, Detail: "rawTransaction is not one signed transaction"}
		}
		eff, _ := o.GetObject("effects")
		st, _ := eff.GetObject("status")
		status := str(st, "status")
		if status != "success" && status != "failure" {
			return sui.Answer{}, &Error{Method: method, Detail: "effects.status.status is neither success nor failure"}
		}
		a.Tx = &sui.Executed{TransactionBCS: txb, Success: status == "success"}
		if cp, has := o.Get("checkpoint"); has {
			n, ok := u64(cp)
			if !ok {
				return sui.Answer{}, &Error{Method: method, Detail: "checkpoint is not a decimal string"}
			}
			a.Tx.Checkpoint = &n
		}
	}
	if a.Epoch, err = c.Epoch(ctx); err != nil {
		return sui.Answer{}, err
	}
	return a, nil
}

// TransactionData reads SenderSignedData (one transaction: the intent
// 0,0,0, the TransactionData and its signatures) and returns the
// TransactionData's bytes.
func TransactionData(raw []byte) ([]byte, error) {
	if len(raw) > sui.MaxTxBytes+64*1024 {
		return nil, bcs.ErrMalformed
	}
	r := bcs.NewReader(raw)
	if r.Len(1, 1) != 1 || string(r.Fixed(3)) != "\x00\x00\x00" {
		return nil, bcs.ErrMalformed
	}
	start := r.Offset()
	if _, err := sui.ReadTx(r); err != nil {
		return nil, err
	}
	tx := r.Bytes0(start)
	n := r.Len(1, 16)
	for i := 0; i < n; i++ {
		r.Bytes(4096)
	}
	if err := r.Done(); err != nil {
		return nil, err
	}
	return tx, nil
}

// SenderSignedData writes one signed transaction as a node's rawTransaction
// holds it.
func SenderSignedData(tx []byte, sigs ...[]byte) []byte {
	w := &bcs.Writer{}
	w.ULEB128(1)
	w.Fixed([]byte{0, 0, 0})
	w.Fixed(tx)
	w.ULEB128(uint32(len(sigs)))
	for _, s := range sigs {
		w.Bytes(s)
	}
	return w.B
}
