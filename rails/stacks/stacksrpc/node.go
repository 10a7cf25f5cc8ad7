package stacksrpc

import (
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/stacks"
)

// Node is a small stand-in for a Stacks node and the Stacks Blockchain API
// in front of it. It answers GET /v2/accounts/{address}, /v2/fees/transfer,
// /v2/info, /extended/v1/tx/{txid}, /extended/v2/blocks/{height} and
// /extended/v1/address/{address}/nonces in their shapes, and takes POST
// /v2/transactions as the chain would: a transaction of the codec's shape
// whose signature recovers to its signer and whose nonce is the origin's
// next is mined at once (status success) in a block of Height and Tenure,
// which then advance; anything else is answered 400.
type Node struct {
	mu      sync.Mutex
	FeeRate uint64
	Height  uint64 // the next block's height
	Tenure  uint64 // the next block's tenure
	nonces  map[string]uint64
	mined   map[[32]byte]minedTx
	blocks  map[uint64]uint64 // height → tenure
	Calls   atomic.Int64
}

type minedTx struct {
	tx     *stacks.Tx
	sender string
	height uint64
}

func (n *Node) init() {
	if n.nonces == nil {
		n.nonces, n.mined, n.blocks = map[string]uint64{}, map[[32]byte]minedTx{}, map[uint64]uint64{}
	}
}

func (n *Node) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.Calls.Add(1)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.init()
	w.Header().Set("Content-Type", "application/json")
	answer := func(v jsonv.Value) { _, _ = w.Write(jsonv.Marshal(v)) }
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && p == "/v2/transactions":
		raw, _ := io.ReadAll(io.LimitReader(r.Body, stacks.MaxTxBytes+1))
		id, why := n.take(raw)
		if why != "" {
			w.WriteHeader(http.StatusBadRequest)
			answer(jsonv.Obj("error", "transaction rejected", "reason", why))
			return
		}
		answer(hex.EncodeToString(id[:]))
	case r.Method != http.MethodGet:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	case strings.HasPrefix(p, "/v2/accounts/"):
		a := strings.TrimPrefix(p, "/v2/accounts/")
		answer(jsonv.Obj("balance", "0x00000000000000000000000000000000", "locked", "0x00000000000000000000000000000000",
			"unlock_height", 0, "nonce", jsonv.Number(n.nonces[a])))
	case p == "/v2/fees/transfer":
		answer(jsonv.Number(n.FeeRate))
	case p == "/v2/info":
		answer(jsonv.Obj("stacks_tip_height", jsonv.Number(n.Height-1), "tenure_height", jsonv.Number(n.Tenure)))
	case strings.HasPrefix(p, "/extended/v1/address/") && strings.HasSuffix(p, "/nonces"):
		a := strings.TrimSuffix(strings.TrimPrefix(p, "/extended/v1/address/"), "/nonces")
		var last jsonv.Value
		if next := n.nonces[a]; next > 0 {
			last = jsonv.Number(next - 1)
		}
		answer(jsonv.Obj("last_mempool_tx_nonce", nil, "last_executed_tx_nonce", last,
			"possible_next_nonce", jsonv.Number(n.nonces[a]), "detected_missing_nonces", []jsonv.Value{}))
	case strings.HasPrefix(p, "/extended/v1/tx/0x"):
		b, err := hex.DecodeString(strings.TrimPrefix(p, "/extended/v1/tx/0x"))
		var m minedTx
		ok := err == nil && len(b) == 32
		if ok {
			m, ok = n.mined[[32]byte(b)]
		}
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			answer(jsonv.Obj("error", "could not find transaction by ID"))
			return
		}
		args := make([]jsonv.Value, len(m.tx.Args))
		for i, a := range m.tx.Args {
			args[i] = jsonv.Obj("hex", "0x"+hex.EncodeToString(a))
		}
		answer(jsonv.Obj("tx_id", "0x"+hex.EncodeToString(b), "tx_type", "contract_call", "tx_status", "success",
			"sender_address", m.sender, "nonce", jsonv.Number(m.tx.Nonce), "fee_rate", strconv.FormatUint(m.tx.Fee, 10),
			"block_height", jsonv.Number(m.height),
			"contract_call", jsonv.Obj("contract_id", m.tx.Contract.String(), "function_name", m.tx.Function, "function_args", args)))
	case strings.HasPrefix(p, "/extended/v2/blocks/"):
		h, err := strconv.ParseUint(strings.TrimPrefix(p, "/extended/v2/blocks/"), 10, 64)
		t, ok := n.blocks[h]
		if err != nil || !ok {
			w.WriteHeader(http.StatusNotFound)
			answer(jsonv.Obj("error", "cannot find block"))
			return
		}
		answer(jsonv.Obj("height", jsonv.Number(h), "tenure_height", jsonv.Number(t)))
	default:
		w.WriteHeader(http.StatusNotFound)
		answer(jsonv.Obj("error", "not found"))
	}
}

// take checks a transaction as the chain would and mines it.
func (n *Node) take(raw []byte) ([32]byte, string) {
	t, err := stacks.DecodeTx(raw)
	if err != nil {
		return [32]byte{}, "Deserialization"
	}
	tr, ok := stacks.ReadTransfer(t)
	if !ok {
		return [32]byte{}, "NotATransfer"
	}
	if !stacks.VerifySignature(t) {
		return [32]byte{}, "SignatureValidation"
	}
	sender := tr.Origin.String()
	if t.Nonce != n.nonces[sender] {
		return [32]byte{}, "BadNonce"
	}
	id := stacks.TxID(raw)
	n.nonces[sender]++
	n.blocks[n.Height] = n.Tenure
	n.mined[id] = minedTx{tx: t, sender: sender, height: n.Height}
	n.Height++
	return id, ""
}

// Advance moves the tip on by tenures.
func (n *Node) Advance(tenures uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.Tenure += tenures
}
