package xrplrpc

// The settlement reads: rippled's tx method (API version 2: tx_json, meta,
// validated, ledger_index; with binary, tx_blob) and ledger at "validated",
// as https://xrpl.org/docs/references/http-websocket-apis/public-api-methods/transaction-methods/tx
// and .../ledger-methods/ledger document them; Reader adapts them to
// xrpl.Reader.

import (
	"context"
	"encoding/hex"
	"strings"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/xrpl"
)

// maxAffected bounds the meta's AffectedNodes read: a transaction touches a
// few entries; a node answering thousands is not answering a payment.
const maxAffected = 1024

func isHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// Tx reads the transaction hash names (64 hex digits), searched between
// r.Min and r.Max when r is given. A txnNotFound answer is nil with its
// searched_all; an answer for another hash, or whose tx_json, meta,
// validated or ledger_index is not of the documented type, is an error.
func (c *Client) Tx(ctx context.Context, hash string, r *xrpl.Range) (*xrpl.Landed, bool, error) {
	if !isHash(hash) {
		return nil, false, &Error{Method: "tx", Detail: "the hash is not 64 hex digits"}
	}
	params := jsonv.Obj("transaction", strings.ToUpper(hash), "binary", false, "api_version", 2)
	if r != nil {
		params.Set("min_ledger", jsonv.Number(r.Min))
		params.Set("max_ledger", jsonv.Number(r.Max))
	}
	res, err := c.answer(ctx, "tx", params)
	if err != nil {
		return nil, false, err
	}
	bad := func(what string) error { return &Error{Method: "tx", Detail: what} }
	if s, _ := res.GetString("status"); s != "success" {
		if code, _ := res.GetString("error"); code == "txnNotFound" {
			all, _ := res.Get("searched_all")
			return nil, all == true, nil
		}
		code, _ := res.GetString("error")
		msg, _ := res.GetString("error_message")
		return nil, false, bad("rippled error " + code + ": " + msg)
	}
	if h, _ := res.GetString("hash"); !strings.EqualFold(h, hash) {
		return nil, false, bad("the answer is for another transaction")
	}
	l := &xrpl.Landed{LedgerIndex: -1}
	var ok bool
	if l.TxJSON, ok = res.GetObject("tx_json"); !ok {
		return nil, false, bad("tx_json is not an object")
	}
	if _, ok := l.TxJSON.GetString("TransactionType"); !ok {
		return nil, false, bad("tx_json.TransactionType is not a string")
	}
	v, _ := res.Get("validated")
	if l.Validated, ok = v.(bool); !ok {
		return nil, false, bad("validated is not a boolean")
	}
	if iv, has := res.Get("ledger_index"); has {
		n, ok := jsonv.AsSafeInt(iv)
		if !ok || n < 0 || n > 1<<32-1 {
			return nil, false, bad("ledger_index is not a u32")
		}
		l.LedgerIndex = n
	}
	meta, ok := res.GetObject("meta")
	if !ok {
		return nil, false, bad("meta is not an object")
	}
	if l.Result, ok = meta.GetString("TransactionResult"); !ok {
		return nil, false, bad("meta.TransactionResult is not a string")
	}
	l.Delivered, _ = meta.Get("delivered_amount")
	if av, has := meta.Get("AffectedNodes"); has {
		nodes, ok := jsonv.AsArray(av)
		if !ok || len(nodes) > maxAffected {
			return nil, false, bad("meta.AffectedNodes is not a bounded array")
		}
		for _, nv := range nodes {
			n, _ := jsonv.AsObject(nv)
			d, ok := n.GetObject("DeletedNode")
			if !ok {
				continue
			}
			if t, _ := d.GetString("LedgerEntryType"); t != "PayChannel" {
				continue
			}
			id, _ := d.GetString("LedgerIndex")
			if !isHash(id) {
				return nil, false, bad("a deleted PayChannel's LedgerIndex is not 64 hex digits")
			}
			l.DeletedChannels = append(l.DeletedChannels, strings.ToUpper(id))
		}
	}
	return l, false, nil
}

// TxBlob is the signed blob (hex) of the transaction hash names, read with
// binary: "" when rippled has no such transaction. A blob whose
// transaction hash is not the one asked is an error: the node answered
// another transaction.
func (c *Client) TxBlob(ctx context.Context, hash string) (string, error) {
	if !isHash(hash) {
		return "", &Error{Method: "tx", Detail: "the hash is not 64 hex digits"}
	}
	res, err := c.answer(ctx, "tx", jsonv.Obj("transaction", strings.ToUpper(hash), "binary", true, "api_version", 2))
	if err != nil {
		return "", err
	}
	if s, _ := res.GetString("status"); s != "success" {
		if code, _ := res.GetString("error"); code == "txnNotFound" {
			return "", nil
		}
		return "", &Error{Method: "tx", Detail: "rippled error"}
	}
	blob, _ := res.GetString("tx_blob")
	raw, err := hex.DecodeString(blob)
	if err != nil || len(blob) == 0 || len(blob) > xrpl.MaxBlobHex {
		return "", &Error{Method: "tx", Detail: "tx_blob is not a bounded hex blob"}
	}
	if !strings.EqualFold(xrpl.TxHash(raw), hash) {
		return "", &Error{Method: "tx", Detail: "tx_blob is another transaction"}
	}
	return blob, nil
}

// ValidatedLedger is the index of the newest validated ledger (ledger with
// ledger_index "validated").
func (c *Client) ValidatedLedger(ctx context.Context) (int64, error) {
	res, err := c.call(ctx, "ledger", jsonv.Obj("ledger_index", "validated", "api_version", 2))
	if err != nil {
		return 0, err
	}
	n, ok := u32Of(res, "ledger_index")
	if v, _ := res.Get("validated"); !ok || v != true {
		return 0, &Error{Method: "ledger", Detail: "ledger_index is not a validated u32"}
	}
	return int64(n), nil
}

// Reader is an xrpl.Reader over a Client for one network; each read is
// bounded by Timeout (0: 10 s).
type Reader struct {
	Client  *Client
	Of      string // the CAIP-2 network the endpoint serves
	Timeout time.Duration
}

func (r Reader) ctx() (context.Context, context.CancelFunc) {
	t := r.Timeout
	if t == 0 {
		t = 10 * time.Second
	}
	return context.WithTimeout(context.Background(), t)
}

// Network is the network read.
func (r Reader) Network() string { return r.Of }

// Tx is Client.Tx within the timeout.
func (r Reader) Tx(hash string, rng *xrpl.Range) (*xrpl.Landed, bool, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	return r.Client.Tx(ctx, hash, rng)
}

// TxBlob is Client.TxBlob within the timeout.
func (r Reader) TxBlob(hash string) (string, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	return r.Client.TxBlob(ctx, hash)
}

// ValidatedLedger is Client.ValidatedLedger within the timeout.
func (r Reader) ValidatedLedger() (int64, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	return r.Client.ValidatedLedger(ctx)
}
