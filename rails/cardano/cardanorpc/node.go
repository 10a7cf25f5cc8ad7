package cardanorpc

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/cardano"
	"github.com/termsgate/termsgate/rails/cbor"
)

// Node is a small stand-in for a Blockfrost-compatible API over one
// network's ledger: it answers the paths Client reads in the API's shapes
// (404 with the API's error object for what it does not hold) and, on
// POST /tx/submit, validates the transaction as the ledger does for a
// payment (its inputs unspent, a witness of each input's payment key over
// the id, inputs equal to outputs and fee, a fee of at least the minimum,
// every output at least the minimum coin, the TTL not passed, the
// auxiliary data hashing to key 7) before including it in a new block.
type Node struct {
	mu     sync.Mutex
	Params cardano.Params
	tip    cardano.Tip
	utxos  map[cardano.Input]utxo
	txs    map[string]included
	Calls  atomic.Int64
}

type utxo struct {
	addr cardano.Address
	coin uint64
}

type included struct {
	raw          []byte
	height, slot uint64
	valid        bool
}

// NewNode is a node at tip with params.
func NewNode(params cardano.Params, tip cardano.Tip) *Node {
	return &Node{Params: params, tip: tip, utxos: map[cardano.Input]utxo{}, txs: map[string]included{}}
}

// Fund gives addr an unspent output of coin lovelace at in.
func (n *Node) Fund(addr cardano.Address, in cardano.Input, coin uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.utxos[in] = utxo{addr: addr, coin: coin}
}

// Include stores raw as included at height and slot (valid as given),
// without validating it: a fixture of an indexer's history.
func (n *Node) Include(raw []byte, height, slot uint64, valid bool) (string, error) {
	t, err := cardano.DecodeTx(raw)
	if err != nil {
		return "", err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	id := hex.EncodeToString(t.ID[:])
	n.txs[id] = included{raw: raw, height: height, slot: slot, valid: valid}
	return id, nil
}

// Advance moves the tip by blocks blocks and slots slots.
func (n *Node) Advance(blocks, slots uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.tip.BlockHeight += blocks
	n.tip.Slot += slots
}

// Tip is the node's tip.
func (n *Node) Tip() cardano.Tip {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.tip
}

func writeJSON(w http.ResponseWriter, status int, v jsonv.Value) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(jsonv.Marshal(v))
}

func apiError(w http.ResponseWriter, status int, e, msg string) {
	writeJSON(w, status, jsonv.Obj("status_code", status, "error", e, "message", msg))
}

func notFound(w http.ResponseWriter) {
	apiError(w, http.StatusNotFound, "Not Found", "The requested component has not been found.")
}

func (n *Node) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.Calls.Add(1)
	path := strings.TrimPrefix(r.URL.Path, "/api/v0")
	parts := strings.Split(strings.Trim(path, "/"), "/")
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && path == "/tx/submit":
		raw, err := io.ReadAll(io.LimitReader(r.Body, cardano.MaxTxBytes+1))
		if err != nil || r.Header.Get("Content-Type") != "application/cbor" {
			apiError(w, http.StatusBadRequest, "Bad Request", "a transaction's CBOR, as application/cbor")
			return
		}
		id, err := n.submit(raw)
		if err != nil {
			apiError(w, http.StatusBadRequest, "Bad Request", err.Error())
			return
		}
		writeJSON(w, http.StatusOK, id)
	case r.Method != http.MethodGet:
		apiError(w, http.StatusMethodNotAllowed, "Method Not Allowed", "")
	case path == "/blocks/latest":
		writeJSON(w, http.StatusOK, jsonv.Obj("height", jsonv.Number(n.tip.BlockHeight), "slot", jsonv.Number(n.tip.Slot),
			"hash", strings.Repeat("0", 64)))
	case path == "/epochs/latest/parameters":
		writeJSON(w, http.StatusOK, jsonv.Obj("min_fee_a", jsonv.Number(n.Params.MinFeeA), "min_fee_b", jsonv.Number(n.Params.MinFeeB),
			"coins_per_utxo_size", strconv.FormatUint(n.Params.CoinsPerUTxOByte, 10)))
	case len(parts) == 3 && parts[0] == "addresses" && parts[2] == "utxos":
		addr, err := cardano.ParseAddress(parts[1])
		if err != nil {
			apiError(w, http.StatusBadRequest, "Bad Request", "Invalid address for this network or malformed address format.")
			return
		}
		var list []jsonv.Value
		for in, u := range n.utxos {
			if string(u.addr) == string(addr) {
				list = append(list, jsonv.Obj("address", addr.String(), "tx_hash", hex.EncodeToString(in.TxID[:]),
					"output_index", jsonv.Number(in.Index), "amount", []jsonv.Value{jsonv.Obj("unit", "lovelace", "quantity", strconv.FormatUint(u.coin, 10))},
					"data_hash", nil, "inline_datum", nil, "reference_script_hash", nil))
			}
		}
		if list == nil {
			notFound(w)
			return
		}
		writeJSON(w, http.StatusOK, list)
	case (len(parts) == 2 || len(parts) == 3 && parts[2] == "cbor") && parts[0] == "txs":
		t, ok := n.txs[parts[1]]
		if !ok {
			notFound(w)
			return
		}
		if len(parts) == 3 {
			writeJSON(w, http.StatusOK, jsonv.Obj("cbor", hex.EncodeToString(t.raw)))
			return
		}
		writeJSON(w, http.StatusOK, jsonv.Obj("hash", parts[1], "block_height", jsonv.Number(t.height), "slot", jsonv.Number(t.slot),
			"valid_contract", t.valid, "size", jsonv.Number(len(t.raw))))
	default:
		notFound(w)
	}
}

// submit validates raw as the ledger does for a payment and includes it in
// the next block, one slot after the tip.
func (n *Node) submit(raw []byte) (string, error) {
	t, err := cardano.DecodeTx(raw)
	if err != nil {
		return "", fmt.Errorf("the transaction does not decode: %v", err)
	}
	if !t.Valid {
		return "", errors.New("is_valid false: no script is run here")
	}
	if !t.AuxMatches() {
		return "", errors.New("ConflictingMetadataHash: the auxiliary data do not hash to the body's key 7")
	}
	if !t.HasTTL || n.tip.Slot >= t.TTL {
		return "", fmt.Errorf("OutsideValidityIntervalUTxO: TTL %d, slot %d", t.TTL, n.tip.Slot)
	}
	ins, err := t.Inputs()
	if err != nil || len(ins) == 0 {
		return "", errors.New("the inputs do not read")
	}
	outs, err := t.Outputs()
	if err != nil {
		return "", errors.New("the outputs do not read")
	}
	fee, ok := t.Fee()
	if !ok {
		return "", errors.New("no fee")
	}
	if min := n.Params.MinFee(len(raw)); fee < min {
		return "", fmt.Errorf("FeeTooSmallUTxO: %d < %d", fee, min)
	}
	var in, out uint64
	seen := map[cardano.Input]bool{}
	for _, i := range ins {
		u, ok := n.utxos[i]
		if !ok || seen[i] {
			return "", fmt.Errorf("BadInputsUTxO: %s", i)
		}
		seen[i] = true
		if kh := u.addr.PaymentKeyHash(); kh == nil || !cardano.WitnessedBy(t, kh) {
			return "", fmt.Errorf("MissingVKeyWitnessesUTXOW: %s", i)
		}
		in += u.coin
	}
	for _, o := range outs {
		if len(o.Assets) > 0 {
			return "", errors.New("native assets are not held here")
		}
		if o.Coin < n.Params.MinCoin(len(cbor.Encode(cbor.A(cbor.B(o.Address), cbor.U(o.Coin))))) {
			return "", fmt.Errorf("BabbageOutputTooSmallUTxO: %d", o.Coin)
		}
		out += o.Coin
	}
	if in != out+fee {
		return "", fmt.Errorf("ValueNotConservedUTxO: %d in, %d out and fee", in, out+fee)
	}
	for _, i := range ins {
		delete(n.utxos, i)
	}
	for k, o := range outs {
		n.utxos[cardano.Input{TxID: t.ID, Index: uint64(k)}] = utxo{addr: o.Address, coin: o.Coin}
	}
	n.tip.BlockHeight++
	n.tip.Slot++
	id := hex.EncodeToString(t.ID[:])
	n.txs[id] = included{raw: raw, height: n.tip.BlockHeight, slot: n.tip.Slot, valid: true}
	return id, nil
}
