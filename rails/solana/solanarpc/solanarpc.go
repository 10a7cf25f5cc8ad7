// Package solanarpc gives the Solana pairings their buyer inputs from a
// Solana JSON-RPC endpoint: a recent blockhash (getLatestBlockhash), a
// mint's decimals and token program (getAccountInfo of the mint: its owner
// is the token program, its data the SPL mint layout) and the current slot
// (getSlot, a batch-settlement channel's opening slot). Methods and answers
// as https://solana.com/docs/rpc/http documents them.
package solanarpc

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/solana"
)

const maxAnswer = 1 << 20

// Client asks one Solana JSON-RPC endpoint.
type Client struct {
	URL  string
	HTTP *http.Client // nil: http.DefaultClient
}

// Error is a failed call: the method and what went wrong (a transport
// failure, a status, an unreadable answer, or the node's error).
type Error struct {
	Method string
	Detail string
}

func (e *Error) Error() string { return "solanarpc: " + e.Method + ": " + e.Detail }

// call posts a JSON-RPC 2.0 request and returns its result.
func (c *Client) call(ctx context.Context, method string, params ...jsonv.Value) (jsonv.Value, error) {
	fail := func(format string, a ...any) error { return &Error{Method: method, Detail: fmt.Sprintf(format, a...)} }
	if params == nil {
		params = []jsonv.Value{}
	}
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
	if resp.StatusCode != http.StatusOK {
		return nil, fail("status %d", resp.StatusCode)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil || len(raw) > maxAnswer {
		return nil, fail("the answer is unreadable or over %d bytes", maxAnswer)
	}
	v, err := jsonv.Parse(raw)
	o, ok := jsonv.AsObject(v)
	if err != nil || !ok {
		return nil, fail("the answer is not a JSON object")
	}
	if e, has := o.GetObject("error"); has {
		msg, _ := e.GetString("message")
		return nil, fail("the node answered error: %s", msg)
	}
	result, has := o.Get("result")
	if !has {
		return nil, fail("the answer has no result")
	}
	return result, nil
}

// LatestBlockhash is getLatestBlockhash at commitment finalized: the
// blockhash (a base58 key) and the last block height it is valid for.
func (c *Client) LatestBlockhash(ctx context.Context) (string, uint64, error) {
	const method = "getLatestBlockhash"
	v, err := c.call(ctx, method, jsonv.Obj("commitment", "finalized"))
	if err != nil {
		return "", 0, err
	}
	result, _ := jsonv.AsObject(v)
	value, _ := result.GetObject("value")
	bh, _ := value.GetString("blockhash")
	lv, _ := value.Get("lastValidBlockHeight")
	last, okLast := jsonv.AsSafeInt(lv)
	if _, ok := solana.ParseKey(bh); !ok || !okLast {
		return "", 0, &Error{Method: method, Detail: "the answer has no blockhash and lastValidBlockHeight"}
	}
	return bh, uint64(last), nil
}

// Mint reads a mint account with getAccountInfo (base64): its owner must be
// the Token or Token-2022 program and its data an initialized SPL mint (82
// bytes or more; decimals at byte 44, initialized at byte 45).
func (c *Client) Mint(ctx context.Context, mint string) (decimals int, tokenProgram string, err error) {
	const method = "getAccountInfo"
	if _, ok := solana.ParseKey(mint); !ok {
		return 0, "", &Error{Method: method, Detail: "the mint is not a key"}
	}
	v, err := c.call(ctx, method, mint, jsonv.Obj("encoding", "base64", "commitment", "finalized"))
	if err != nil {
		return 0, "", err
	}
	result, _ := jsonv.AsObject(v)
	value, has := result.Get("value")
	if has && value == nil {
		return 0, "", &Error{Method: method, Detail: "no such account"}
	}
	acct, _ := jsonv.AsObject(value)
	owner, _ := acct.GetString("owner")
	dv, _ := acct.Get("data")
	data, _ := jsonv.AsArray(dv)
	if len(data) != 2 || data[1] != "base64" {
		return 0, "", &Error{Method: method, Detail: "the account data is not base64"}
	}
	text, _ := data[0].(string)
	raw, derr := base64.StdEncoding.DecodeString(text)
	program, ok := solana.ParseKey(owner)
	switch {
	case !ok || program != solana.TokenProgram && program != solana.Token2022Program:
		return 0, "", &Error{Method: method, Detail: "the account is not owned by a token program"}
	case derr != nil || len(raw) < 82 || raw[45] != 1:
		return 0, "", &Error{Method: method, Detail: "the account is not an initialized mint"}
	}
	return int(raw[44]), owner, nil
}

// Inputs are x402/exact/solana's buyer inputs for the mint: decimals,
// tokenProgram and recentBlockhash, read now.
func (c *Client) Inputs(ctx context.Context, mint string) (*jsonv.Object, error) {
	decimals, program, err := c.Mint(ctx, mint)
	if err != nil {
		return nil, err
	}
	bh, _, err := c.LatestBlockhash(ctx)
	if err != nil {
		return nil, err
	}
	return jsonv.Obj("decimals", decimals, "tokenProgram", program, "recentBlockhash", bh), nil
}

// InputsFor is pay.Transport.InputsFor for the Solana pairings: the inputs
// for the mint of the first option on the account's network in doc
// (x402/exact/solana: Inputs; x402/batch-settlement/solana: BatchInputs,
// the account's key authorizing vouchers; the MPP charges: ChargeInputs;
// x402/upto/solana: UptoInputs).
// Any other pairing, or a document the pairing does not read, has none
// (nil, nil): the gate then declines the offer on its own terms.
func (c *Client) InputsFor(ctx context.Context, pairing string, doc jsonv.Value, account string) (*jsonv.Object, error) {
	var read rails.Read
	var err error
	switch pairing {
	case solana.ExactID:
		read, err = solana.Exact{}.Read(doc)
	case solana.BatchID:
		read, err = solana.Batch{}.Read(doc)
	case solana.ChargeID, solana.ChargeUSDCID:
		return c.chargeInputsFor(ctx, pairing, doc, account)
	case solana.UptoID:
		read, err = solana.Upto{}.Read(doc)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, nil
	}
	parts := strings.Split(account, ":")
	if len(parts) != 3 || parts[0] != "solana" {
		return nil, nil
	}
	for _, v := range read.Options {
		o, _ := jsonv.AsObject(v)
		if n, _ := o.GetString("network"); n == "solana:"+parts[1] {
			mint, _ := o.GetString("asset")
			switch pairing {
			case solana.BatchID:
				return c.BatchInputs(ctx, mint, parts[2])
			case solana.UptoID:
				return c.UptoInputs(ctx, mint)
			}
			return c.Inputs(ctx, mint)
		}
	}
	return nil, nil
}
