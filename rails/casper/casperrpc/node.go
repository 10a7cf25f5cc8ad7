package casperrpc

import (
	"encoding/hex"
	"io"
	"math/big"
	"net/http"
	"sync"
	"sync/atomic"

	"golang.org/x/crypto/blake2b"

	"github.com/termsgate/termsgate/jsonv"
)

// Node is a small stand-in for a Casper node's JSON-RPC API: it answers
// info_get_status (its chainspec name) and info_get_transaction (the
// Version1 transactions Execute stored, with their execution) in the
// node's shapes; an unknown transaction is NoSuchTransaction (or
// NoSuchDeploy when asked as a Deploy), any other method a JSON-RPC error.
type Node struct {
	Chainspec string // casper-test when ""
	mu        sync.Mutex
	txs       map[string]*jsonv.Object
	Calls     atomic.Int64
}

// Execution is one contract call Execute stores: the package and entry
// point it calls, its CEP-3009 arguments, the block it executed in (nil:
// not executed yet) and its error message ("" for none).
type Execution struct {
	PackageHash, EntryPoint string
	From, To                string
	Value                   *big.Int
	Nonce                   [32]byte
	BlockHeight             *uint64
	ErrorMessage            string
}

func clKey(addr string) jsonv.Value {
	return jsonv.Obj("cl_type", "Key", "bytes", addr, "parsed", addr)
}

func clU256(v *big.Int) jsonv.Value {
	be := v.Bytes()
	b := make([]byte, 0, 1+len(be))
	b = append(b, byte(len(be)))
	for i := len(be) - 1; i >= 0; i-- {
		b = append(b, be[i])
	}
	return jsonv.Obj("cl_type", "U256", "bytes", hex.EncodeToString(b), "parsed", v.String())
}

// Execute stores e as a Version1 transaction calling its package by hash,
// and returns the transaction's hash: the stand-in names it by BLAKE2b-256
// of its payload's JSON (a node hashes the payload's bytes).
func (n *Node) Execute(e Execution) string {
	args := []jsonv.Value{
		[]jsonv.Value{"from", clKey(e.From)}, []jsonv.Value{"to", clKey(e.To)}, []jsonv.Value{"value", clU256(e.Value)},
		[]jsonv.Value{"nonce", jsonv.Obj("cl_type", jsonv.Obj("ByteArray", 32), "bytes", hex.EncodeToString(e.Nonce[:]),
			"parsed", hex.EncodeToString(e.Nonce[:]))},
	}
	payload := jsonv.Obj("chain_name", n.chainspec(), "fields", jsonv.Obj(
		"args", jsonv.Obj("Named", args),
		"entry_point", jsonv.Obj("Custom", e.EntryPoint),
		"scheduling", "Standard",
		"target", jsonv.Obj("Stored", jsonv.Obj("id", jsonv.Obj("ByPackageHash", jsonv.Obj("addr", e.PackageHash, "version", nil)),
			"runtime", "VmCasperV1"))))
	sum := blake2b.Sum256(jsonv.Marshal(payload))
	hash := hex.EncodeToString(sum[:])
	res := jsonv.Obj("api_version", "2.0.0", "transaction", jsonv.Obj("Version1", jsonv.Obj("hash", hash, "payload", payload, "approvals", []jsonv.Value{})))
	if e.BlockHeight != nil {
		var msg jsonv.Value
		if e.ErrorMessage != "" {
			msg = e.ErrorMessage
		}
		res.Set("execution_info", jsonv.Obj("block_hash", hex.EncodeToString(make([]byte, 32)), "block_height", jsonv.Number(*e.BlockHeight),
			"execution_result", jsonv.Obj("Version2", jsonv.Obj("error_message", msg, "limit", "2500000000", "consumed", "1000000000",
				"cost", "2500000000", "transfers", []jsonv.Value{}, "effects", []jsonv.Value{}))))
	} else {
		res.Set("execution_info", nil)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.txs == nil {
		n.txs = map[string]*jsonv.Object{}
	}
	n.txs[hash] = res
	return hash
}

func (n *Node) chainspec() string {
	if n.Chainspec == "" {
		return "casper-test"
	}
	return n.Chainspec
}

func (n *Node) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.Calls.Add(1)
	w.Header().Set("Content-Type", "application/json")
	answer := func(v jsonv.Value) { _, _ = w.Write(jsonv.Marshal(v)) }
	fail := func(code int, msg string) {
		answer(jsonv.Obj("jsonrpc", "2.0", "id", 1, "error", jsonv.Obj("code", code, "message", msg)))
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if err != nil {
		fail(-32700, "Parse error")
		return
	}
	v, err := jsonv.Parse(body)
	req, ok := jsonv.AsObject(v)
	if err != nil || !ok {
		fail(-32700, "Parse error")
		return
	}
	method, _ := req.GetString("method")
	switch method {
	case "info_get_status":
		answer(jsonv.Obj("jsonrpc", "2.0", "id", 1, "result", jsonv.Obj("api_version", "2.0.0", "chainspec_name", n.chainspec())))
	case "info_get_transaction":
		params, _ := req.GetObject("params")
		th, _ := params.GetObject("transaction_hash")
		if h, ok := th.GetString("Deploy"); ok && h != "" {
			fail(CodeNoSuchDeploy, "No such deploy")
			return
		}
		h, _ := th.GetString("Version1")
		n.mu.Lock()
		res, ok := n.txs[h]
		n.mu.Unlock()
		if !ok {
			fail(CodeNoSuchTransaction, "No such transaction")
			return
		}
		answer(jsonv.Obj("jsonrpc", "2.0", "id", 1, "result", res))
	default:
		fail(-32601, "Method not found")
	}
}
