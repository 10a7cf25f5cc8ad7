// Package tvmrpc gives x402/exact/tvm its buyer inputs from a TON Center v3
// endpoint: the W5 wallet's seqno and wallet_id from GET
// /api/v3/walletInformation, and the payer's Jetton wallet for the asset
// from GET /api/v3/jetton/wallets (https://toncenter.com/api/v3/ documents
// both answers). Node is a stand-in that answers as TON Center does, for the
// demo and the tests, which run offline.
package tvmrpc

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/restjson"
	"github.com/termsgate/termsgate/rails/tvm"
)

// DefaultAttachNanotons is the TON sent with the transfer to the payer's
// Jetton wallet for its fees (0.05 TON), as TON wallets attach for a Jetton
// transfer; the excess comes back.
const DefaultAttachNanotons = 50_000_000

const maxAnswer = 64 << 10

// Client asks one TON Center v3 endpoint about one wallet and one Jetton.
type Client struct {
	URL            string // e.g. https://toncenter.com
	APIKey         string // X-API-Key, when the provider asks for one
	HTTP           *http.Client
	Wallet         string // the payer's W5 wallet, raw
	Jetton         string // the Jetton master the buyer pays in, raw
	AttachNanotons uint64 // 0: DefaultAttachNanotons
}

// Error is a failed call: the path and what went wrong.
type Error struct{ Path, Detail string }

func (e *Error) Error() string { return "tvmrpc: " + e.Path + ": " + e.Detail }

// get asks path with query q; its Error names path without the query.
func (c *Client) get(ctx context.Context, path string, q url.Values) (*jsonv.Object, error) {
	h := http.Header{}
	if c.APIKey != "" {
		h.Set("X-API-Key", c.APIKey)
	}
	o, err := restjson.Client{Base: c.URL, HTTP: c.HTTP, Header: h, Max: maxAnswer}.Object(ctx, path+"?"+q.Encode())
	if e, ok := err.(*restjson.Error); ok {
		return nil, &Error{Path: path, Detail: e.Detail}
	}
	return o, err
}

// uint32Of reads a uint32 given as a JSON number or a decimal string (TON
// Center writes both, by version).
func uint32Of(v jsonv.Value) (uint64, bool) {
	if s, ok := jsonv.AsString(v); ok {
		n, err := strconv.ParseUint(s, 10, 32)
		return n, err == nil && s == strconv.FormatUint(n, 10)
	}
	n, ok := jsonv.AsSafeInt(v)
	return uint64(n), ok && n >= 0 && n < 1<<32
}

// Wallet is a W5 wallet's state.
type Wallet struct {
	Seqno, WalletID uint64
}

// WalletInfo reads the wallet's seqno and wallet_id; a wallet that is not
// active is an error (an undeployed wallet needs its state init, which the
// buyer gives).
func (c *Client) WalletInfo(ctx context.Context) (Wallet, error) {
	const path = "/api/v3/walletInformation"
	o, err := c.get(ctx, path, url.Values{"address": {c.Wallet}, "use_v2": {"false"}})
	if err != nil {
		return Wallet{}, err
	}
	if s, _ := o.GetString("status"); s != "active" {
		return Wallet{}, &Error{Path: path, Detail: fmt.Sprintf("the wallet is %q, not active", s)}
	}
	sv, _ := o.Get("seqno")
	iv, _ := o.Get("wallet_id")
	seq, ok1 := uint32Of(sv)
	id, ok2 := uint32Of(iv)
	if !ok1 || !ok2 {
		return Wallet{}, &Error{Path: path, Detail: "answer lacks a uint32 seqno or wallet_id"}
	}
	return Wallet{Seqno: seq, WalletID: id}, nil
}

// JettonWallet is the payer's Jetton wallet for the Jetton: the one entry
// whose owner is the wallet and whose jetton is the master asked.
func (c *Client) JettonWallet(ctx context.Context) (string, error) {
	const path = "/api/v3/jetton/wallets"
	o, err := c.get(ctx, path, url.Values{"owner_address": {c.Wallet}, "jetton_address": {c.Jetton}, "limit": {"1"}})
	if err != nil {
		return "", err
	}
	owner, ok1 := tvm.ParseAddress(c.Wallet)
	jetton, ok2 := tvm.ParseAddress(c.Jetton)
	if !ok1 || !ok2 {
		return "", &Error{Path: path, Detail: "the wallet or the Jetton is not a raw address"}
	}
	lv, _ := o.Get("jetton_wallets")
	list, _ := jsonv.AsArray(lv)
	if len(list) != 1 {
		return "", &Error{Path: path, Detail: fmt.Sprintf("%d Jetton wallets, not one", len(list))}
	}
	e, _ := jsonv.AsObject(list[0])
	a, okA := tvm.ParseAddress(mppString(e, "address"))
	ow, okO := tvm.ParseAddress(mppString(e, "owner"))
	jt, okJ := tvm.ParseAddress(mppString(e, "jetton"))
	if !okA || !okO || !okJ || *ow != *owner || *jt != *jetton {
		return "", &Error{Path: path, Detail: "the answer is not the wallet's Jetton wallet of this Jetton"}
	}
	return a.String(), nil
}

func mppString(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }

// Inputs is the pairing's buyer input: {walletId, seqno, jettonWallet,
// attachNanotons}. Other pairings get none.
func (c *Client) Inputs(ctx context.Context, pairing string) (*jsonv.Object, error) {
	if pairing != tvm.ExactID {
		return nil, nil
	}
	w, err := c.WalletInfo(ctx)
	if err != nil {
		return nil, err
	}
	jw, err := c.JettonWallet(ctx)
	if err != nil {
		return nil, err
	}
	attach := c.AttachNanotons
	if attach == 0 {
		attach = DefaultAttachNanotons
	}
	return jsonv.Obj("walletId", jsonv.Number(w.WalletID), "seqno", jsonv.Number(w.Seqno), "jettonWallet", jw,
		"attachNanotons", strconv.FormatUint(attach, 10)), nil
}

// Inputs adapts a Client to pay.Transport.Inputs: each call asks within
// Timeout; a failure gives no inputs (the payment then declines
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
