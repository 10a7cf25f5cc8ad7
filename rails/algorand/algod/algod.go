// Package algod gives x402/exact/algorand its buyer input, params, from an
// algod node's REST API: GET /v2/transactions/params, the suggested
// parameters (https://dev.algorand.co/reference/rest-api/algod/ documents
// the endpoint and its answer). Node is a stand-in that answers as algod
// does, for the demo and the tests, which run offline.
package algod

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/algorand"
	"github.com/termsgate/termsgate/rails/restjson"
)

// Defaults of a Client.
const (
	DefaultMaxFee = 10_000 // microALGO: refuse a suggested minimum fee above this without being told
	maxAnswer     = 1 << 16
)

// Client asks one algod node.
type Client struct {
	URL    string       // the node's base URL, e.g. https://testnet-api.algonode.cloud
	Token  string       // X-Algo-API-Token, when the node asks for one
	HTTP   *http.Client // nil: http.DefaultClient
	MaxFee uint64       // 0: DefaultMaxFee
}

// Error is a failed call: the path and what went wrong.
type Error struct {
	Path, Detail string
}

func (e *Error) Error() string { return "algod: " + e.Path + ": " + e.Detail }

func (c *Client) rest() restjson.Client {
	h := http.Header{}
	h.Set("Accept", "application/json")
	if c.Token != "" {
		h.Set("X-Algo-API-Token", c.Token)
	}
	return restjson.Client{Base: c.URL, HTTP: c.HTTP, Header: h, Max: maxAnswer}
}

// Params asks the suggested parameters and reads them strictly: every
// member present and of its type, a 32-byte genesis hash, a genesis id of
// at most 64 characters, and fees within MaxFee.
func (c *Client) Params(ctx context.Context) (algorand.Params, error) {
	const path = "/v2/transactions/params"
	fail := func(format string, a ...any) error { return &Error{Path: path, Detail: fmt.Sprintf(format, a...)} }
	o, err := c.rest().Object(ctx, path)
	if e, ok := err.(*restjson.Error); ok {
		return algorand.Params{}, &Error{Path: e.Path, Detail: e.Detail}
	}
	var p algorand.Params
	var ok1, ok2, ok3 bool
	p.FirstValid, ok1 = uintOf(o, "last-round")
	p.MinFee, ok2 = uintOf(o, "min-fee")
	p.FeePerByte, ok3 = uintOf(o, "fee")
	p.GenesisID, _ = o.GetString("genesis-id")
	gh, err := base64.StdEncoding.Strict().DecodeString(str(o, "genesis-hash"))
	if !ok1 || !ok2 || !ok3 || err != nil || len(gh) != 32 || p.GenesisID == "" || len(p.GenesisID) > algorand.MaxGenesisID {
		return algorand.Params{}, fail("answer lacks last-round, min-fee, fee, genesis-id or a 32-byte genesis-hash")
	}
	copy(p.GenesisHash[:], gh)
	maxFee := c.MaxFee
	if maxFee == 0 {
		maxFee = DefaultMaxFee
	}
	if p.MinFee > maxFee || p.FeePerByte > maxFee {
		return algorand.Params{}, fail("the node asks a fee of %d (min) or %d per byte, above the %d microALGO allowed", p.MinFee, p.FeePerByte, maxFee)
	}
	return p, nil
}

func str(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }

// uintOf reads a JSON number that is a non-negative safe integer.
func uintOf(o *jsonv.Object, k string) (uint64, bool) {
	v, _ := o.Get(k)
	n, ok := jsonv.AsSafeInt(v)
	return uint64(n), ok && n >= 0
}

// Inputs is the buyer input of x402/exact/algorand: {params: {firstValid,
// genesisHash, genesisId, minFee, feePerByte}}, the first valid round the
// node's last round. Other pairings get none.
func (c *Client) Inputs(ctx context.Context, pairing string) (*jsonv.Object, error) {
	if pairing != algorand.ExactID {
		return nil, nil
	}
	p, err := c.Params(ctx)
	if err != nil {
		return nil, err
	}
	u := func(n uint64) string { return strconv.FormatUint(n, 10) }
	return jsonv.Obj("params", jsonv.Obj("firstValid", u(p.FirstValid), "genesisHash", base64.StdEncoding.EncodeToString(p.GenesisHash[:]),
		"genesisId", p.GenesisID, "minFee", u(p.MinFee), "feePerByte", u(p.FeePerByte))), nil
}

// Inputs adapts a Client to pay.Transport.Inputs, which has no context and
// no error: each call asks the node within Timeout, and a failure gives no
// inputs (the payment then declines x402/input-missing) and is kept for
// Err.
type Inputs struct {
	Client  *Client
	Timeout time.Duration // 0: 10 s

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
	o, err := in.Client.Inputs(ctx, pairing)
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
