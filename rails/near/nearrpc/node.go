package nearrpc

import (
	"encoding/base64"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/near"
)

// Node is a small stand-in for a NEAR RPC node: block (finality final),
// query view_access_key, and EXPERIMENTAL_tx_status for the transactions
// Relay stored, in the node's shapes; any other call is an error.
type Node struct {
	mu     sync.Mutex
	Height uint64
	keys   map[string]uint64 // account|key → nonce
	txs    map[string]jsonv.Value
	Calls  atomic.Int64
}

// SetKey gives account the access key with nonce.
func (n *Node) SetKey(account, publicKey string, nonce uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.keys == nil {
		n.keys = map[string]uint64{}
	}
	n.keys[account+"|"+publicKey] = nonce
}

// KeyNonce is account's key's nonce, false when it has none.
func (n *Node) KeyNonce(account, publicKey string) (uint64, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	v, ok := n.keys[account+"|"+publicKey]
	return v, ok
}

// Relay executes a signed delegate action as relayer would: the key's
// nonce moves to the action's, and the transaction (hash txHash) is
// stored final with the relayer's, the payer's and the token's receipts,
// the token's failing when tokenFails.
func (n *Node) Relay(txHash, relayer string, s *near.Signed, tokenFails bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	d := s.Action
	if n.keys == nil {
		n.keys = map[string]uint64{}
	}
	n.keys[d.SenderID+"|"+d.PublicKey.String()] = d.Nonce
	a := d.Actions[0]
	tokenStatus := jsonv.Value(jsonv.Obj("SuccessValue", ""))
	if tokenFails {
		tokenStatus = jsonv.Obj("Failure", jsonv.Obj("ActionError", jsonv.Obj("index", 0)))
	}
	receipt := func(exec string, st jsonv.Value) jsonv.Value {
		return jsonv.Obj("id", "r", "outcome", jsonv.Obj("executor_id", exec, "status", st))
	}
	if n.txs == nil {
		n.txs = map[string]jsonv.Value{}
	}
	n.txs[txHash+"|"+relayer] = jsonv.Obj("final_execution_status", "FINAL",
		"transaction", jsonv.Obj("signer_id", relayer, "receiver_id", d.SenderID, "hash", txHash,
			"actions", []jsonv.Value{jsonv.Obj("Delegate", jsonv.Obj("delegate_action", jsonv.Obj(
				"sender_id", d.SenderID, "receiver_id", d.ReceiverID,
				"actions", []jsonv.Value{jsonv.Obj("FunctionCall", jsonv.Obj("method_name", a.Method,
					"args", base64.StdEncoding.EncodeToString(a.Args), "gas", jsonv.Number(a.Gas), "deposit", a.Deposit.String()))},
				"nonce", jsonv.Number(d.Nonce), "max_block_height", jsonv.Number(d.MaxBlockHeight), "public_key", d.PublicKey.String()),
				"signature", "ed25519:1"))}),
		"receipts_outcome", []jsonv.Value{receipt(relayer, jsonv.Obj("SuccessReceiptId", "x")),
			receipt(d.SenderID, jsonv.Obj("SuccessReceiptId", "y")), receipt(d.ReceiverID, tokenStatus)})
}

func (n *Node) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.Calls.Add(1)
	w.Header().Set("Content-Type", "application/json")
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	v, _ := jsonv.Parse(raw)
	o, _ := jsonv.AsObject(v)
	method, _ := o.GetString("method")
	params, _ := o.GetObject("params")
	id, _ := o.Get("id")
	answer := func(res jsonv.Value) {
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("jsonrpc", "2.0", "id", id, "result", res)))
	}
	fail := func(name string) {
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("jsonrpc", "2.0", "id", id, "error", jsonv.Obj("name", "HANDLER_ERROR",
			"cause", jsonv.Obj("name", name, "info", jsonv.Obj()), "code", -32000, "message", "Server error"))))
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	switch method {
	case "block":
		answer(jsonv.Obj("header", jsonv.Obj("height", jsonv.Number(n.Height), "hash", "11111111111111111111111111111111")))
	case "query":
		k := jsonStr(params, "account_id") + "|" + jsonStr(params, "public_key")
		nonce, ok := n.keys[k]
		if jsonStr(params, "request_type") != "view_access_key" {
			fail("UNKNOWN_REQUEST")
			return
		}
		if !ok {
			fail("UNKNOWN_ACCESS_KEY")
			return
		}
		answer(jsonv.Obj("nonce", jsonv.Number(nonce), "permission", "FullAccess", "block_height", jsonv.Number(n.Height),
			"block_hash", "11111111111111111111111111111111"))
	case "EXPERIMENTAL_tx_status":
		tx, ok := n.txs[jsonStr(params, "tx_hash")+"|"+jsonStr(params, "sender_account_id")]
		if !ok {
			fail("UNKNOWN_TRANSACTION")
			return
		}
		answer(tx)
	default:
		fail("METHOD_NOT_FOUND")
	}
}
