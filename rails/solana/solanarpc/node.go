package solanarpc

import (
	"encoding/base64"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/jsonv"
)

// Node is a small stand-in for a Solana JSON-RPC endpoint answering
// getLatestBlockhash, getAccountInfo, getSlot, getTransaction,
// getSignaturesForAddress and getFirstAvailableBlock in the documented shapes from
// values it holds: for the demo and the tests, which run offline. Any
// other method is the JSON-RPC method-not-found error.
type Node struct {
	mu        sync.Mutex
	Slot      uint64
	Blockhash string
	LastValid uint64
	Mints     map[string]NodeMint // mint address → account
	// Txs are the transactions the node holds, by signature: at
	// finalized when Finalized, else only at confirmed.
	Txs map[string]NodeTx
	// Lists are the signatures the node lists for an address, newest
	// first; FirstAvailable the lowest slot it holds.
	Lists          map[string][]NodeListed
	FirstAvailable uint64
	Calls          atomic.Int64
}

// NodeTx is a landed transaction the node holds.
type NodeTx struct {
	Slot      uint64
	Wire      []byte
	Err       jsonv.Value // meta.err: nil when it succeeded
	Finalized bool
}

// NodeListed is one entry of an address's signature list; Memo "" is null.
type NodeListed struct {
	Signature string
	Slot      uint64
	Memo      string
}

// NodeMint is a mint account the node holds.
type NodeMint struct {
	Owner    string // the token program
	Decimals byte
}

func (n *Node) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.Calls.Add(1)
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	v, err := jsonv.Parse(raw)
	o, _ := jsonv.AsObject(v)
	w.Header().Set("Content-Type", "application/json")
	if err != nil || r.Method != http.MethodPost || o == nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	id, _ := o.Get("id")
	method, _ := o.GetString("method")
	pv, _ := o.Get("params")
	params, _ := jsonv.AsArray(pv)
	n.mu.Lock()
	defer n.mu.Unlock()
	ctx := jsonv.Obj("apiVersion", "2.2.0", "slot", n.Slot)
	answer := func(result jsonv.Value) {
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("jsonrpc", "2.0", "result", result, "id", id)))
	}
	switch method {
	case "getSlot":
		answer(n.Slot)
	case "getLatestBlockhash":
		answer(jsonv.Obj("context", ctx, "value", jsonv.Obj("blockhash", n.Blockhash, "lastValidBlockHeight", n.LastValid)))
	case "getAccountInfo":
		addr := ""
		if len(params) > 0 {
			addr, _ = params[0].(string)
		}
		m, ok := n.Mints[addr]
		if !ok {
			answer(jsonv.Obj("context", ctx, "value", nil))
			return
		}
		data := make([]byte, 82)
		data[44], data[45] = m.Decimals, 1
		answer(jsonv.Obj("context", ctx, "value", jsonv.Obj(
			"data", []jsonv.Value{base64.StdEncoding.EncodeToString(data), "base64"},
			"executable", false, "lamports", 1461600, "owner", m.Owner, "rentEpoch", 18446744073709551615.0, "space", 82)))
	case "getFirstAvailableBlock":
		answer(n.FirstAvailable)
	case "getSignaturesForAddress":
		addr, before, limit := "", "", 1000
		if len(params) > 0 {
			addr, _ = params[0].(string)
		}
		if len(params) > 1 {
			if o, ok := jsonv.AsObject(params[1]); ok {
				before, _ = o.GetString("before")
				if lv, ok := o.Get("limit"); ok {
					if l, ok := jsonv.AsSafeInt(lv); ok && l > 0 && l <= 1000 {
						limit = int(l)
					}
				}
			}
		}
		list := n.Lists[addr]
		if before != "" {
			at := len(list)
			for i, e := range list {
				if e.Signature == before {
					at = i + 1
					break
				}
			}
			list = list[at:]
		}
		if len(list) > limit {
			list = list[:limit]
		}
		out := make([]jsonv.Value, len(list))
		for i, e := range list {
			var memo jsonv.Value
			if e.Memo != "" {
				memo = e.Memo
			}
			out[i] = jsonv.Obj("signature", e.Signature, "slot", e.Slot, "err", nil, "memo", memo, "blockTime", nil, "confirmationStatus", "finalized")
		}
		answer(out)
	case "getTransaction":
		sig, commitment := "", "finalized"
		if len(params) > 0 {
			sig, _ = params[0].(string)
		}
		if len(params) > 1 {
			if o, ok := jsonv.AsObject(params[1]); ok {
				if c, ok := o.GetString("commitment"); ok {
					commitment = c
				}
			}
		}
		tx, ok := n.Txs[sig]
		if !ok || commitment == "finalized" && !tx.Finalized {
			answer(nil)
			return
		}
		answer(jsonv.Obj("slot", tx.Slot, "blockTime", nil, "version", 0,
			"transaction", []jsonv.Value{base64.StdEncoding.EncodeToString(tx.Wire), "base64"},
			"meta", jsonv.Obj("err", tx.Err, "fee", 5000, "innerInstructions", []jsonv.Value{},
				"loadedAddresses", jsonv.Obj("writable", []jsonv.Value{}, "readonly", []jsonv.Value{}),
				"logMessages", []jsonv.Value{}, "status", statusOf(tx.Err))))
	default:
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("jsonrpc", "2.0", "error", jsonv.Obj("code", -32601, "message", "Method not found"), "id", id)))
	}
}

// statusOf is meta.status as nodes still write it: {"Ok": null} or {"Err": err}.
func statusOf(err jsonv.Value) *jsonv.Object {
	if err == nil {
		return jsonv.Obj("Ok", nil)
	}
	return jsonv.Obj("Err", err)
}
