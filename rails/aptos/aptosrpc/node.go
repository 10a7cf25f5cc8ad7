package aptosrpc

import (
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/aptos"
)

// Node answers as an Aptos node's REST API does for the paths Client asks,
// over an in-memory ledger: accounts' sequence numbers, one gas price, the
// ledger's time, and the transactions it committed. A submitted
// SignedTransaction is committed at once when the chain would accept it:
// an Ed25519 authenticator whose key is the sender's and signed it, the
// node's chain id, the sender's sequence number, an expiration after the
// ledger's time and, as this node moves nothing else, the x402 transfer.
type Node struct {
	Calls atomic.Int64

	mu       sync.Mutex
	chain    uint8
	gasPrice uint64
	usecs    uint64
	version  uint64
	seq      map[aptos.Address]uint64
	byHash   map[string]*jsonv.Object
	bySeq    map[string]*jsonv.Object
}

// NewNode is a node of chain with a gas price and the ledger's time.
func NewNode(chain uint8, gasPrice, ledgerUsecs uint64) *Node {
	return &Node{chain: chain, gasPrice: gasPrice, usecs: ledgerUsecs, version: 7351075000,
		seq: map[aptos.Address]uint64{}, byHash: map[string]*jsonv.Object{}, bySeq: map[string]*jsonv.Object{}}
}

// SetSequence sets an account's next sequence number.
func (n *Node) SetSequence(a aptos.Address, seq uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.seq[a] = seq
}

// Advance moves the ledger's time on by seconds.
func (n *Node) Advance(seconds uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.usecs += seconds * 1_000_000
}

func writeJSON(w http.ResponseWriter, status int, v jsonv.Value) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(jsonv.Marshal(v))
}

func apiError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, jsonv.Obj("message", msg, "error_code", code, "vm_error_code", nil))
}

func seqKey(a aptos.Address, s uint64) string { return a.String() + "/" + strconv.FormatUint(s, 10) }

func (n *Node) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.Calls.Add(1)
	n.mu.Lock()
	defer n.mu.Unlock()
	p := r.URL.Path
	switch {
	case r.Method == http.MethodGet && p == "/v1":
		writeJSON(w, 200, jsonv.Obj("chain_id", jsonv.Number(n.chain), "epoch", "1", "ledger_version", strconv.FormatUint(n.version, 10),
			"oldest_ledger_version", "0", "ledger_timestamp", strconv.FormatUint(n.usecs, 10), "node_role", "full_node",
			"oldest_block_height", "0", "block_height", strconv.FormatUint(n.version/4, 10)))
	case r.Method == http.MethodGet && p == "/v1/estimate_gas_price":
		writeJSON(w, 200, jsonv.Obj("deprioritized_gas_estimate", jsonv.Number(n.gasPrice), "gas_estimate", jsonv.Number(n.gasPrice),
			"prioritized_gas_estimate", jsonv.Number(n.gasPrice*2)))
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/v1/transactions/by_hash/"):
		if o, ok := n.byHash[strings.TrimPrefix(p, "/v1/transactions/by_hash/")]; ok {
			writeJSON(w, 200, o)
			return
		}
		apiError(w, 404, "transaction_not_found", "Transaction not found by Transaction hash")
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/v1/accounts/"):
		rest := strings.TrimPrefix(p, "/v1/accounts/")
		addrText, sub, _ := strings.Cut(rest, "/")
		a, ok := aptos.ParseAddress(addrText)
		if !ok {
			apiError(w, 400, "invalid_input", "invalid account address")
			return
		}
		switch sub {
		case "":
			s, known := n.seq[a]
			if !known {
				apiError(w, 404, "account_not_found", "Account not found")
				return
			}
			writeJSON(w, 200, jsonv.Obj("sequence_number", strconv.FormatUint(s, 10), "authentication_key", a.String()))
		case "transactions":
			start, err := strconv.ParseUint(r.URL.Query().Get("start"), 10, 64)
			if err != nil {
				apiError(w, 400, "invalid_input", "invalid start")
				return
			}
			list := []jsonv.Value{}
			if o, ok := n.bySeq[seqKey(a, start)]; ok {
				list = append(list, o)
			}
			writeJSON(w, 200, list)
		default:
			apiError(w, 404, "web_framework_error", "not found")
		}
	case r.Method == http.MethodPost && p == "/v1/transactions":
		if r.Header.Get("Content-Type") != ContentTypeSignedBCS {
			apiError(w, 415, "web_framework_error", "unsupported content type")
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, aptos.MaxTxBytes+129))
		if err != nil {
			apiError(w, 400, "invalid_input", "unreadable body")
			return
		}
		n.submit(w, body)
	default:
		apiError(w, 404, "web_framework_error", "not found")
	}
}

func (n *Node) submit(w http.ResponseWriter, body []byte) {
	s, err := aptos.DecodeSignedTransaction(body)
	if err != nil {
		apiError(w, 400, "invalid_input", "Failed to deserialize input into SignedTransaction")
		return
	}
	t := s.Tx
	tr, terr := t.ReadTransfer()
	switch {
	case !s.Verifies():
		apiError(w, 400, "vm_error", "Invalid transaction: Type: Validation Code: INVALID_SIGNATURE")
	case t.ChainID != n.chain:
		apiError(w, 400, "vm_error", "Invalid transaction: Type: Validation Code: BAD_CHAIN_ID")
	case t.SequenceNumber != n.seq[t.Sender]:
		apiError(w, 400, "vm_error", "Invalid transaction: Type: Validation Code: SEQUENCE_NUMBER_TOO_OLD")
	case t.Expiration <= n.usecs/1_000_000:
		apiError(w, 400, "vm_error", "Invalid transaction: Type: Validation Code: TRANSACTION_EXPIRED")
	case terr != nil:
		apiError(w, 400, "vm_error", "this node executes the x402 transfer only")
	default:
		h := aptos.TransactionHash(body)
		hash := "0x" + hex.EncodeToString(h[:])
		n.version++
		n.seq[t.Sender] = t.SequenceNumber + 1
		o := jsonv.Obj("type", "user_transaction", "hash", hash, "version", strconv.FormatUint(n.version, 10), "success", true,
			"vm_status", "Executed successfully", "sender", t.Sender.String(), "sequence_number", strconv.FormatUint(t.SequenceNumber, 10),
			"expiration_timestamp_secs", strconv.FormatUint(t.Expiration, 10),
			"payload", jsonv.Obj("function", "0x1::primary_fungible_store::transfer", "type_arguments", []jsonv.Value{"0x1::fungible_asset::Metadata"},
				"arguments", []jsonv.Value{jsonv.Obj("inner", tr.Metadata.String()), tr.Recipient.String(), strconv.FormatUint(tr.Amount, 10)},
				"type", "entry_function_payload"))
		n.byHash[hash] = o
		n.bySeq[seqKey(t.Sender, t.SequenceNumber)] = o
		writeJSON(w, 202, jsonv.Obj("type", "pending_transaction", "hash", hash, "sender", t.Sender.String(),
			"sequence_number", strconv.FormatUint(t.SequenceNumber, 10)))
	}
}
