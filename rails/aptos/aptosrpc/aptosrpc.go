// Package aptosrpc reads an Aptos network through a node's REST API
// (https://aptos.dev/build/apis/fullnode-rest-api): the ledger's chain id
// and time (GET /v1), an account's sequence number (GET
// /v1/accounts/{address}) and the gas unit price (GET
// /v1/estimate_gas_price) for the payer's wallet; a transaction by hash
// (GET /v1/transactions/by_hash/{hash}) or by the sender's sequence number
// (GET /v1/accounts/{address}/transactions?start=n&limit=1) for the
// seller's status; and a submission (POST /v1/transactions, BCS). Node is a
// stand-in that answers as such a node does and checks a submitted
// transaction as the chain would, for the demo and the tests, which run
// offline.
package aptosrpc

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
	"github.com/termsgate/termsgate/rails/aptos"
)

// maxAnswer bounds one answer.
const maxAnswer = 1 << 20

// ContentTypeSignedBCS is the content type of a BCS SignedTransaction.
const ContentTypeSignedBCS = "application/x.aptos.signed_transaction+bcs"

// Client asks one node.
type Client struct {
	URL  string       // the node's base, e.g. https://api.mainnet.aptoslabs.com (the /v1 paths follow)
	Net  string       // the network it serves: aptos:<chain id>
	HTTP *http.Client // nil: http.DefaultClient
}

var (
	_ aptos.Inputs = (*Client)(nil)
	_ aptos.Reader = (*Client)(nil)
)

// Network is the network the node serves.
func (c *Client) Network() string { return c.Net }

// Error is a failed call: the path and what went wrong; Status is the HTTP
// status when the node answered one.
type Error struct {
	Path, Detail string
	Status       int
}

func (e *Error) Error() string { return "aptosrpc: " + e.Path + ": " + e.Detail }

// do sends one request and reads its JSON answer; a 404 is (nil, nil).
func (c *Client) do(ctx context.Context, method, path string, body []byte) (jsonv.Value, error) {
	fail := func(status int, format string, a ...any) error {
		return &Error{Path: path, Detail: fmt.Sprintf(format, a...), Status: status}
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.URL, "/")+path, rd)
	if err != nil {
		return nil, fail(0, "%v", err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", ContentTypeSignedBCS)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fail(0, "%v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, fail(resp.StatusCode, "%v", err)
	}
	if len(raw) > maxAnswer {
		return nil, fail(resp.StatusCode, "answer longer than %d bytes", maxAnswer)
	}
	if resp.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		msg := ""
		if v, err := jsonv.Parse(raw); err == nil {
			if o, ok := jsonv.AsObject(v); ok {
				msg, _ = o.GetString("message")
			}
		}
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return nil, fail(resp.StatusCode, "status %d %s", resp.StatusCode, msg)
	}
	v, err := jsonv.Parse(raw)
	if err != nil {
		return nil, fail(resp.StatusCode, "answer is not JSON: %v", err)
	}
	return v, nil
}

func (c *Client) object(ctx context.Context, path string) (*jsonv.Object, error) {
	v, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, &Error{Path: path, Detail: "not found", Status: http.StatusNotFound}
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, &Error{Path: path, Detail: "answer is not an object"}
	}
	return o, nil
}

// u64 reads a decimal string of a u64 without leading zeros, or a
// non-negative safe integer (the node writes u64 as strings, some
// estimates as numbers).
func u64(v jsonv.Value) (uint64, bool) {
	if s, ok := v.(string); ok {
		if s == "" || len(s) > 20 || len(s) > 1 && s[0] == '0' {
			return 0, false
		}
		n, err := strconv.ParseUint(s, 10, 64)
		return n, err == nil
	}
	n, ok := jsonv.AsSafeInt(v)
	return uint64(n), ok && n >= 0
}

func member(o *jsonv.Object, k string) jsonv.Value { v, _ := o.Get(k); return v }

// ledger reads GET /v1 and checks its chain id is the network's.
func (c *Client) ledger(ctx context.Context) (*jsonv.Object, error) {
	o, err := c.object(ctx, "/v1")
	if err != nil {
		return nil, err
	}
	id, ok := u64(member(o, "chain_id"))
	want, okW := aptos.ChainID(c.Net)
	if !ok || !okW || id != uint64(want) {
		return nil, &Error{Path: "/v1", Detail: fmt.Sprintf("chain_id %v is not %s's", member(o, "chain_id"), c.Net)}
	}
	return o, nil
}

// ChainID is the ledger's chain id, which must be the network's.
func (c *Client) ChainID(ctx context.Context) (uint8, error) {
	if _, err := c.ledger(ctx); err != nil {
		return 0, err
	}
	id, _ := aptos.ChainID(c.Net)
	return id, nil
}

// LedgerUsecs is the ledger's time in microseconds.
func (c *Client) LedgerUsecs(ctx context.Context) (uint64, error) {
	o, err := c.ledger(ctx)
	if err != nil {
		return 0, err
	}
	us, ok := u64(member(o, "ledger_timestamp"))
	if !ok {
		return 0, &Error{Path: "/v1", Detail: "ledger_timestamp unreadable"}
	}
	return us, nil
}

// SequenceNumber is the account's next sequence number; an account the
// node does not hold yet has 0.
func (c *Client) SequenceNumber(ctx context.Context, account aptos.Address) (uint64, error) {
	path := "/v1/accounts/" + account.String()
	v, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return 0, err
	}
	if v == nil {
		return 0, nil
	}
	o, _ := jsonv.AsObject(v)
	n, ok := u64(member(o, "sequence_number"))
	if !ok {
		return 0, &Error{Path: path, Detail: "sequence_number unreadable"}
	}
	return n, nil
}

// GasUnitPrice is the node's gas_estimate, at least 1.
func (c *Client) GasUnitPrice(ctx context.Context) (uint64, error) {
	o, err := c.object(ctx, "/v1/estimate_gas_price")
	if err != nil {
		return 0, err
	}
	n, ok := u64(member(o, "gas_estimate"))
	if !ok || n == 0 || n > 1<<40 {
		return 0, &Error{Path: "/v1/estimate_gas_price", Detail: "gas_estimate unreadable"}
	}
	return n, nil
}

// ByHash is the transaction with hash, nil when the node holds none.
func (c *Client) ByHash(ctx context.Context, hash [32]byte) (*jsonv.Object, error) {
	path := "/v1/transactions/by_hash/0x" + hex.EncodeToString(hash[:])
	v, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil || v == nil {
		return nil, err
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, &Error{Path: path, Detail: "answer is not an object"}
	}
	return o, nil
}

// BySequence is the sender's committed transaction at sequence, nil when
// there is none yet.
func (c *Client) BySequence(ctx context.Context, sender aptos.Address, sequence uint64) (*jsonv.Object, error) {
	path := "/v1/accounts/" + sender.String() + "/transactions?start=" + strconv.FormatUint(sequence, 10) + "&limit=1"
	v, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil || v == nil {
		return nil, err
	}
	a, ok := jsonv.AsArray(v)
	if !ok || len(a) > 1 {
		return nil, &Error{Path: path, Detail: "answer is not a list of at most one transaction"}
	}
	if len(a) == 0 {
		return nil, nil
	}
	o, ok := jsonv.AsObject(a[0])
	if !ok {
		return nil, &Error{Path: path, Detail: "answer is not a transaction"}
	}
	return o, nil
}

// Submit sends a BCS SignedTransaction and returns the hash the node
// names.
func (c *Client) Submit(ctx context.Context, signed []byte) (string, error) {
	v, err := c.do(ctx, http.MethodPost, "/v1/transactions", signed)
	if err != nil {
		return "", err
	}
	o, _ := jsonv.AsObject(v)
	h, ok := o.GetString("hash")
	if !ok {
		return "", &Error{Path: "/v1/transactions", Detail: "no hash in the answer"}
	}
	return h, nil
}
