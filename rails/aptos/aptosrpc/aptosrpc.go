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
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/aptos"
	"github.com/termsgate/termsgate/rails/restjson"
)

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

// do sends one request (a body as ContentTypeSignedBCS) and reads its JSON answer; a 404
// is (nil, nil).
func (c *Client) do(ctx context.Context, method, path string, body []byte) (jsonv.Value, error) {
	v, err := c.rest().Do(ctx, method, path, ContentTypeSignedBCS, body)
	return v, asError(err)
}

func (c *Client) object(ctx context.Context, path string) (*jsonv.Object, error) {
	o, err := c.rest().Object(ctx, path)
	return o, asError(err)
}

func (c *Client) rest() restjson.Client {
	h := http.Header{}
	h.Set("Accept", "application/json")
	return restjson.Client{Base: c.URL, HTTP: c.HTTP, Header: h, OK: []int{http.StatusAccepted}}
}

// asError gives a restjson failure this package's Error type.
func asError(err error) error {
	if e, ok := err.(*restjson.Error); ok {
		return &Error{Path: e.Path, Detail: e.Detail, Status: e.Status}
	}
	return err
}

func member(o *jsonv.Object, k string) jsonv.Value { v, _ := o.Get(k); return v }

// ledger reads GET /v1 and checks its chain id is the network's.
func (c *Client) ledger(ctx context.Context) (*jsonv.Object, error) {
	o, err := c.object(ctx, "/v1")
	if err != nil {
		return nil, err
	}
	id, ok := restjson.U64(member(o, "chain_id"))
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
	us, ok := restjson.U64(member(o, "ledger_timestamp"))
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
	n, ok := restjson.U64(member(o, "sequence_number"))
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
	n, ok := restjson.U64(member(o, "gas_estimate"))
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
