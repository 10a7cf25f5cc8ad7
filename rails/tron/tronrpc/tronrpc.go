// Package tronrpc gives x402/exact/tron/lcp-trc20-memo its buyer inputs
// from a java-tron FullNode's HTTP API: the reference block from
// POST /wallet/getnowblock (its blockID and block_header.raw_data.number;
// https://developers.tron.network/reference/getnowblock documents the
// answer), and the fee limit the buyer allows. Node is a stand-in that
// answers as a FullNode does, for the demo and the tests, which run
// offline.
package tronrpc

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/restjson"
	"github.com/termsgate/termsgate/rails/tron"
)

// DefaultFeeLimit is the energy fee the buyer lets a transfer burn, in sun
// (100 TRX): a TRC-20 transfer costs far less, and a contract that would
// burn more fails instead.
const DefaultFeeLimit = 100_000_000

const maxAnswer = 1 << 20 // a block answer lists its transactions

// Client asks one FullNode.
type Client struct {
	URL      string       // the node's base URL, e.g. https://api.trongrid.io
	APIKey   string       // TRON-PRO-API-KEY, when the provider asks for one
	HTTP     *http.Client // nil: http.DefaultClient
	FeeLimit uint64       // sun; 0: DefaultFeeLimit
}

// Error is a failed call: the path and what went wrong.
type Error struct{ Path, Detail string }

func (e *Error) Error() string { return "tronrpc: " + e.Path + ": " + e.Detail }

func (c *Client) rest() restjson.Client {
	h := http.Header{}
	if c.APIKey != "" {
		h.Set("TRON-PRO-API-KEY", c.APIKey)
	}
	return restjson.Client{Base: c.URL, HTTP: c.HTTP, Header: h, Max: maxAnswer}
}

// Block is a block's number and id.
type Block struct {
	Number uint64
	ID     [32]byte
}

// NowBlock asks the node's latest block and reads its id and number
// strictly: a 64-digit hex blockID whose first 8 bytes are the number, as
// java-tron makes block ids.
func (c *Client) NowBlock(ctx context.Context) (Block, error) {
	const path = "/wallet/getnowblock"
	fail := func(format string, a ...any) error { return &Error{Path: path, Detail: fmt.Sprintf(format, a...)} }
	v, err := c.rest().Do(ctx, http.MethodPost, path, "application/json", []byte("{}"))
	if e, ok := err.(*restjson.Error); ok {
		return Block{}, &Error{Path: e.Path, Detail: e.Detail}
	}
	if v == nil {
		return Block{}, fail("status %d", http.StatusNotFound) // a FullNode always has a latest block
	}
	o, _ := jsonv.AsObject(v)
	id, _ := o.GetString("blockID")
	hdr, _ := o.GetObject("block_header")
	rd, _ := hdr.GetObject("raw_data")
	nv, _ := rd.Get("number")
	n, okN := jsonv.AsSafeInt(nv)
	b, err := hex.DecodeString(id)
	if len(id) != 64 || err != nil || !okN || n < 0 {
		return Block{}, fail("answer lacks a 64-digit blockID or a block_header.raw_data.number")
	}
	var out Block
	copy(out.ID[:], b)
	out.Number = uint64(n)
	if strconv.FormatUint(beUint64(out.ID[:8]), 10) != strconv.FormatUint(out.Number, 10) {
		return Block{}, fail("the blockID %s does not begin with the block number %d", id, n)
	}
	return out, nil
}

func beUint64(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

// Inputs is the pairing's buyer input: {refBlock: {number, id}, feeLimit}.
// Other pairings get none.
func (c *Client) Inputs(ctx context.Context, pairing string) (*jsonv.Object, error) {
	if pairing != tron.ExactID {
		return nil, nil
	}
	b, err := c.NowBlock(ctx)
	if err != nil {
		return nil, err
	}
	fl := c.FeeLimit
	if fl == 0 {
		fl = DefaultFeeLimit
	}
	return jsonv.Obj("refBlock", jsonv.Obj("number", strconv.FormatUint(b.Number, 10), "id", "0x"+hex.EncodeToString(b.ID[:])),
		"feeLimit", strconv.FormatUint(fl, 10)), nil
}

// Inputs adapts a Client to pay.Transport.Inputs: each call asks the node
// within Timeout; a failure gives no inputs (the payment then declines
// x402/input-missing) and is kept for Err.
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
