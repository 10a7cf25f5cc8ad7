// Package cardanorpc reads a Cardano network through a Blockfrost-compatible
// HTTP API (https://docs.blockfrost.io): the latest block (GET
// /blocks/latest), the protocol parameters (GET /epochs/latest/parameters)
// and an address's unspent outputs (GET /addresses/{address}/utxos) for the
// payer's wallet; a transaction by id (GET /txs/{hash}, /txs/{hash}/cbor)
// for the seller's status and recovery; and a submission (POST /tx/submit).
// Node is a stand-in that answers as such an API does and validates a
// submitted transaction as the ledger would, for the demo and the tests,
// which run offline.
package cardanorpc

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/cardano"
)

// maxAnswer bounds one answer: a transaction's CBOR is at most 64 KiB, 128
// KiB in hex; a page of unspent outputs is well under it.
const maxAnswer = 1 << 20

// maxPage is the unspent outputs asked for in one page (Blockfrost's most).
const maxPage = 100

// Client asks one API.
type Client struct {
	URL       string       // the API's base, e.g. https://cardano-preprod.blockfrost.io/api/v0
	Net       string       // the network it serves: cardano:mainnet, cardano:preprod or cardano:preview
	ProjectID string       // sent as the project_id header when not ""
	HTTP      *http.Client // nil: http.DefaultClient
}

var (
	_ cardano.Inputs = (*Client)(nil)
	_ cardano.Reader = (*Client)(nil)
)

// Network is the network the API serves.
func (c *Client) Network() string { return c.Net }

// Error is a failed call: the path and what went wrong; Status is the HTTP
// status when the API answered one.
type Error struct {
	Path, Detail string
	Status       int
}

func (e *Error) Error() string { return "cardanorpc: " + e.Path + ": " + e.Detail }

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
	if body != nil {
		req.Header.Set("Content-Type", "application/cbor")
	}
	if c.ProjectID != "" {
		req.Header.Set("project_id", c.ProjectID)
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
	if resp.StatusCode != http.StatusOK {
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

// u64 reads a non-negative safe integer, or a decimal string of one (the
// API writes some quantities as strings).
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

// Tip is the latest block's height and slot.
func (c *Client) Tip(ctx context.Context) (cardano.Tip, error) {
	o, err := c.object(ctx, "/blocks/latest")
	if err != nil {
		return cardano.Tip{}, err
	}
	hv, _ := o.Get("height")
	sv, _ := o.Get("slot")
	h, ok1 := u64(hv)
	s, ok2 := u64(sv)
	if !ok1 || !ok2 {
		return cardano.Tip{}, &Error{Path: "/blocks/latest", Detail: "no height or slot"}
	}
	return cardano.Tip{BlockHeight: h, Slot: s}, nil
}

// Params are the latest epoch's min_fee_a, min_fee_b and coins_per_utxo_size.
func (c *Client) Params(ctx context.Context) (cardano.Params, error) {
	const path = "/epochs/latest/parameters"
	o, err := c.object(ctx, path)
	if err != nil {
		return cardano.Params{}, err
	}
	a, _ := o.Get("min_fee_a")
	b, _ := o.Get("min_fee_b")
	cs, _ := o.Get("coins_per_utxo_size")
	var p cardano.Params
	var ok1, ok2, ok3 bool
	p.MinFeeA, ok1 = u64(a)
	p.MinFeeB, ok2 = u64(b)
	p.CoinsPerUTxOByte, ok3 = u64(cs)
	if !ok1 || !ok2 || !ok3 || p.MinFeeA > 1<<20 || p.MinFeeB > 1<<32 || p.CoinsPerUTxOByte > 1<<20 {
		return cardano.Params{}, &Error{Path: path, Detail: "min_fee_a, min_fee_b or coins_per_utxo_size does not read"}
	}
	return p, nil
}

// UTxOs are the address's unspent outputs holding lovelace only, in the
// API's order, from its first page; an address the API does not know holds none.
func (c *Client) UTxOs(ctx context.Context, addr cardano.Address, limit int) ([]cardano.UTxO, error) {
	path := "/addresses/" + url.PathEscape(addr.String()) + "/utxos?count=" + strconv.Itoa(maxPage) + "&page=1"
	v, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	list, ok := jsonv.AsArray(v)
	if !ok || len(list) > maxPage {
		return nil, &Error{Path: path, Detail: "answer is not a list of at most 100 outputs"}
	}
	var out []cardano.UTxO
	for _, e := range list {
		o, ok := jsonv.AsObject(e)
		h, _ := o.GetString("tx_hash")
		iv, _ := o.Get("output_index")
		idx, ok2 := u64(iv)
		id, err := hex.DecodeString(h)
		av, _ := o.Get("amount")
		amounts, ok3 := jsonv.AsArray(av)
		if !ok || !ok2 || err != nil || len(id) != 32 || !ok3 {
			return nil, &Error{Path: path, Detail: "an output does not read"}
		}
		var coin uint64
		lovelaceOnly := true
		for _, a := range amounts {
			ao, _ := jsonv.AsObject(a)
			unit, _ := ao.GetString("unit")
			qv, _ := ao.Get("quantity")
			q, ok := u64(qv)
			if !ok {
				return nil, &Error{Path: path, Detail: "an amount does not read"}
			}
			if unit == cardano.Lovelace {
				coin = q
			} else {
				lovelaceOnly = false
			}
		}
		if lovelaceOnly && len(out) < limit {
			out = append(out, cardano.UTxO{Input: cardano.Input{TxID: [32]byte(id), Index: idx}, Coin: coin})
		}
	}
	return out, nil
}

// Transaction reads an included transaction by id (0x and 64 hex digits,
// or the 64 alone); nil when the API does not hold it.
func (c *Client) Transaction(ctx context.Context, txID string, withCBOR bool) (*cardano.OnChain, error) {
	id := strings.ToLower(strings.TrimPrefix(txID, "0x"))
	if _, err := hex.DecodeString(id); err != nil || len(id) != 64 {
		return nil, &Error{Path: "/txs/", Detail: "not a transaction id"}
	}
	path := "/txs/" + id
	v, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil || v == nil {
		return nil, err
	}
	o, ok := jsonv.AsObject(v)
	hv, _ := o.Get("block_height")
	sv, _ := o.Get("slot")
	vv, _ := o.Get("valid_contract")
	h, ok1 := u64(hv)
	s, ok2 := u64(sv)
	valid, ok3 := vv.(bool)
	if !ok || !ok1 || !ok2 || !ok3 {
		return nil, &Error{Path: path, Detail: "block_height, slot or valid_contract does not read"}
	}
	tx := &cardano.OnChain{BlockHeight: h, Slot: s, Valid: valid}
	if withCBOR {
		co, err := c.object(ctx, path+"/cbor")
		if err != nil {
			return nil, err
		}
		text, _ := co.GetString("cbor")
		if tx.CBOR, err = hex.DecodeString(text); err != nil || len(tx.CBOR) > cardano.MaxTxBytes {
			return nil, &Error{Path: path + "/cbor", Detail: "cbor is not hex of at most 64 KiB"}
		}
	}
	return tx, nil
}

// Submit sends a signed transaction's bytes; the answer is its id as the
// API gives it (64 hex digits).
func (c *Client) Submit(ctx context.Context, tx []byte) (string, error) {
	v, err := c.do(ctx, http.MethodPost, "/tx/submit", tx)
	if err != nil {
		return "", err
	}
	id, ok := v.(string)
	if !ok || len(id) != 64 {
		return "", &Error{Path: "/tx/submit", Detail: "answer is not a transaction id"}
	}
	return id, nil
}
