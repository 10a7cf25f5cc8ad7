// Package polkadotrpc reads a Polkadot Asset Hub network through Substrate
// API Sidecar's REST API (https://paritytech.github.io/substrate-api-sidecar/dist/):
// the transaction material (GET /transaction/material: genesis hash, spec
// and transaction versions, the finalized block) for the payer's wallet,
// and the account's nonce from the node's JSON-RPC (system_accountNextIndex,
// which counts the account's extrinsics waiting in the node's pool; Sidecar
// has no endpoint that does: its GET /accounts/{id}/balance-info reads the
// nonce stored at a block, which a second payment made before the first
// lands would reuse, and is asked only when no node is named); an extrinsic by
// block and index (GET /blocks/{block}/extrinsics/{index}), a block's raw
// extrinsics (GET /blocks/{block}/extrinsics-raw) and the finalized height
// (GET /blocks/head/header) for the seller's status; and a submission
// (POST /transaction). Node is a stand-in that answers as Sidecar does and
// checks a submitted extrinsic as the runtime would, for the demo and the
// tests, which run offline.
package polkadotrpc

import (
	"context"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/polkadot"
	"github.com/termsgate/termsgate/rails/restjson"
)

// Client asks one Sidecar.
type Client struct {
	URL string // Sidecar's base, e.g. https://polkadot-asset-hub-public-sidecar.parity-chains.parity.io
	// RPC is the node's JSON-RPC over HTTP, e.g.
	// https://polkadot-asset-hub-rpc.polkadot.io, asked for the payer's next
	// nonce; "" reads balance-info's, which ignores the pool.
	RPC  string
	Net  string       // the network it serves: polkadot:<genesis prefix>
	HTTP *http.Client // nil: http.DefaultClient
}

var (
	_ polkadot.Chain  = (*Client)(nil)
	_ polkadot.Reader = (*Client)(nil)
)

// Network is the network the Sidecar serves.
func (c *Client) Network() string { return c.Net }

// Error is a failed call: the path and what went wrong; Status is the HTTP
// status when Sidecar answered one.
type Error struct {
	Path, Detail string
	Status       int
}

func (e *Error) Error() string { return "polkadotrpc: " + e.Path + ": " + e.Detail }

func (c *Client) rest() restjson.Client {
	h := http.Header{}
	h.Set("Accept", "application/json")
	return restjson.Client{Base: c.URL, HTTP: c.HTTP, Header: h}
}

func asError(err error) error {
	if e, ok := err.(*restjson.Error); ok {
		return &Error{Path: e.Path, Detail: e.Detail, Status: e.Status}
	}
	return err
}

func (c *Client) get(ctx context.Context, path string) (*jsonv.Object, bool, error) {
	v, err := c.rest().Do(ctx, http.MethodGet, path, "", nil)
	if err != nil {
		return nil, false, asError(err)
	}
	if v == nil {
		return nil, false, nil
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, false, &Error{Path: path, Detail: "answer is not an object"}
	}
	return o, true, nil
}

func fail(path, what string) error { return &Error{Path: path, Detail: what} }

func str(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }

func u32(v jsonv.Value) (uint32, bool) {
	n, ok := restjson.U64(v)
	return uint32(n), ok && n < 1<<32
}

func hash32(s string) ([32]byte, bool) {
	b, ok := mpp.HexBytes(s, 32, 32)
	var h [32]byte
	copy(h[:], b)
	return h, ok
}

// Inputs are the account's nonce and the transaction material at the
// finalized block: an era that starts there is one every node knows.
func (c *Client) Inputs(ctx context.Context, account [32]byte) (polkadot.Inputs, error) {
	const mpath = "/transaction/material?noMeta=true"
	m, found, err := c.get(ctx, mpath)
	if err != nil {
		return polkadot.Inputs{}, err
	}
	if !found {
		return polkadot.Inputs{}, fail(mpath, "not found")
	}
	var in polkadot.Inputs
	var ok [6]bool
	in.Genesis, ok[0] = hash32(str(m, "genesisHash"))
	sv, _ := m.Get("specVersion")
	tv, _ := m.Get("txVersion")
	in.SpecVersion, ok[1] = u32(sv)
	in.TxVersion, ok[2] = u32(tv)
	at, _ := m.GetObject("at")
	hv, _ := at.Get("height")
	var height uint32
	height, ok[3] = u32(hv)
	in.BlockNumber = uint64(height)
	in.BlockHash, ok[4] = hash32(str(at, "hash"))
	ok[5] = true
	for _, k := range ok {
		if !k {
			return polkadot.Inputs{}, fail(mpath, "no genesisHash, specVersion, txVersion or at {height, hash} of their forms")
		}
	}
	if c.RPC != "" {
		n, err := c.NextIndex(ctx, account)
		if err != nil {
			return polkadot.Inputs{}, err
		}
		in.Nonce = n
		return in, nil
	}
	apath := "/accounts/0x" + hex.EncodeToString(account[:]) + "/balance-info"
	a, found, err := c.get(ctx, apath)
	if err != nil {
		return polkadot.Inputs{}, err
	}
	if !found {
		return polkadot.Inputs{}, fail(apath, "not found")
	}
	nv, _ := a.Get("nonce")
	n, okN := u32(nv)
	if !okN {
		return polkadot.Inputs{}, fail(apath, "no nonce (a u32)")
	}
	in.Nonce = n
	return in, nil
}

// NextIndex asks the node (RPC) for system_accountNextIndex of the
// account, given as its SS58 address on the network: the nonce its next
// extrinsic takes once those in the pool have landed.
func (c *Client) NextIndex(ctx context.Context, account [32]byte) (uint32, error) {
	const method = "system_accountNextIndex"
	if c.RPC == "" {
		return 0, fail(method, "no node JSON-RPC URL")
	}
	body := jsonv.Marshal(jsonv.Obj("jsonrpc", "2.0", "id", 1, "method", method,
		"params", []jsonv.Value{polkadot.Address(c.Net, account)}))
	rc := restjson.Client{Base: c.RPC, HTTP: c.HTTP, Max: 1 << 12}
	v, err := rc.Do(ctx, http.MethodPost, "", "application/json", body)
	if err != nil {
		return 0, &Error{Path: method, Detail: err.Error()}
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return 0, fail(method, "answer is not a JSON-RPC response")
	}
	if e, ok := o.GetObject("error"); ok {
		msg, _ := e.GetString("message")
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return 0, fail(method, "error: "+msg)
	}
	rv, _ := o.Get("result")
	n, ok := jsonv.AsSafeInt(rv)
	if !ok || n < 0 || n >= 1<<32 {
		return 0, fail(method, "no result (a u32)")
	}
	return uint32(n), nil
}

// block is a block id in a path: a hash or a decimal height.
func block(b string) (string, bool) {
	if len(b) == 66 && mpp.IsHex(b) {
		return strings.ToLower(b), true
	}
	_, err := strconv.ParseUint(b, 10, 32)
	return b, err == nil && (b == "0" || b[0] != '0')
}

// MaxEvents bounds the events read of one extrinsic.
const MaxEvents = 256

// Extrinsic is the extrinsic at index of block; nil when either does not
// exist.
func (c *Client) Extrinsic(ctx context.Context, blk string, index int) (*polkadot.Landed, error) {
	id, ok := block(blk)
	if !ok || index < 0 {
		return nil, fail("/blocks", "a block that is no hash or height, or a negative index")
	}
	path := "/blocks/" + id + "/extrinsics/" + strconv.Itoa(index)
	o, found, err := c.get(ctx, path)
	if e, is := err.(*Error); is && e.Status == http.StatusBadRequest {
		return nil, nil // Sidecar answers 400 for an index past the block's last extrinsic
	}
	if err != nil || !found {
		return nil, err
	}
	l, ok := ReadExtrinsic(o)
	if !ok {
		return nil, fail(path, "an answer that is not Sidecar's extrinsic shape")
	}
	return l, nil
}

// ReadExtrinsic reads Sidecar's /blocks/{block}/extrinsics/{index} answer:
// {at: {height, hash}, extrinsics: {hash, success, events: [{method:
// {pallet, method}, data}]}}.
func ReadExtrinsic(o *jsonv.Object) (*polkadot.Landed, bool) {
	at, _ := o.GetObject("at")
	x, _ := o.GetObject("extrinsics")
	hv, _ := at.Get("height")
	h, okH := restjson.U64(hv)
	sv, _ := x.Get("success")
	success, okS := sv.(bool)
	ev, _ := x.Get("events")
	events, okE := jsonv.AsArray(ev)
	l := &polkadot.Landed{Height: h, BlockHash: str(at, "hash"), Hash: str(x, "hash"), Success: success}
	if !okH || !okS || !okE || len(events) > MaxEvents {
		return nil, false
	}
	if _, ok := hash32(l.BlockHash); !ok {
		return nil, false
	}
	if _, ok := hash32(l.Hash); !ok {
		return nil, false
	}
	for _, e := range events {
		eo, _ := jsonv.AsObject(e)
		m, _ := eo.GetObject("method")
		dv, _ := eo.Get("data")
		data, _ := jsonv.AsArray(dv)
		l.Events = append(l.Events, polkadot.Event{Pallet: str(m, "pallet"), Method: str(m, "method"), Data: data})
	}
	return l, true
}

// MaxExtrinsics bounds the raw extrinsics read of one block.
const MaxExtrinsics = 4096

// RawExtrinsics are the block's extrinsics in 0x hex; nil when the block
// does not exist.
func (c *Client) RawExtrinsics(ctx context.Context, blk string) ([]string, error) {
	id, ok := block(blk)
	if !ok {
		return nil, fail("/blocks", "a block that is no hash or height")
	}
	path := "/blocks/" + id + "/extrinsics-raw"
	o, found, err := c.get(ctx, path)
	if e, is := err.(*Error); is && e.Status == http.StatusBadRequest {
		return nil, nil // a height above the chain's
	}
	if err != nil || !found {
		return nil, err
	}
	xv, _ := o.Get("extrinsics")
	xs, ok := jsonv.AsArray(xv)
	if !ok || len(xs) > MaxExtrinsics {
		return nil, fail(path, "no extrinsics list (at most 4096)")
	}
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		s, ok := x.(string)
		if !ok {
			return nil, fail(path, "an extrinsic that is not a string")
		}
		out = append(out, s)
	}
	return out, nil
}

// FinalizedHeight is the finalized head's number.
func (c *Client) FinalizedHeight(ctx context.Context) (uint64, error) {
	const path = "/blocks/head/header?finalized=true"
	o, found, err := c.get(ctx, path)
	if err != nil {
		return 0, err
	}
	nv, _ := o.Get("number")
	n, ok := restjson.U64(nv)
	if !found || !ok {
		return 0, fail(path, "no number")
	}
	return n, nil
}

// Submit sends a signed extrinsic (POST /transaction): its hash as the
// node names it.
func (c *Client) Submit(ctx context.Context, xt []byte) (string, error) {
	const path = "/transaction"
	body := jsonv.Marshal(jsonv.Obj("tx", "0x"+hex.EncodeToString(xt)))
	v, err := c.rest().Do(ctx, http.MethodPost, path, "application/json", body)
	if err != nil {
		return "", asError(err)
	}
	o, _ := jsonv.AsObject(v)
	h := str(o, "hash")
	if _, ok := hash32(h); !ok {
		return "", fail(path, "no hash")
	}
	return h, nil
}
