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
	"context"
	"encoding/hex"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/cardano"
	"github.com/termsgate/termsgate/rails/restjson"
)

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

// do sends one request (a body as "application/cbor") and reads its JSON answer; a 404
// is (nil, nil).
func (c *Client) do(ctx context.Context, method, path string, body []byte) (jsonv.Value, error) {
	v, err := c.rest().Do(ctx, method, path, "application/cbor", body)
	return v, asError(err)
}

func (c *Client) object(ctx context.Context, path string) (*jsonv.Object, error) {
	o, err := c.rest().Object(ctx, path)
	return o, asError(err)
}

func (c *Client) rest() restjson.Client {
	h := http.Header{}
	if c.ProjectID != "" {
		h.Set("project_id", c.ProjectID)
	}
	return restjson.Client{Base: c.URL, HTTP: c.HTTP, Header: h}
}

// asError gives a restjson failure this package's Error type.
func asError(err error) error {
	if e, ok := err.(*restjson.Error); ok {
		return &Error{Path: e.Path, Detail: e.Detail, Status: e.Status}
	}
	return err
}

// Tip is the latest block's height and slot.
func (c *Client) Tip(ctx context.Context) (cardano.Tip, error) {
	o, err := c.object(ctx, "/blocks/latest")
	if err != nil {
		return cardano.Tip{}, err
	}
	hv, _ := o.Get("height")
	sv, _ := o.Get("slot")
	h, ok1 := restjson.U64(hv)
	s, ok2 := restjson.U64(sv)
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
	p.MinFeeA, ok1 = restjson.U64(a)
	p.MinFeeB, ok2 = restjson.U64(b)
	p.CoinsPerUTxOByte, ok3 = restjson.U64(cs)
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
		idx, ok2 := restjson.U64(iv)
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
			q, ok := restjson.U64(qv)
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
	h, ok1 := restjson.U64(hv)
	s, ok2 := restjson.U64(sv)
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
