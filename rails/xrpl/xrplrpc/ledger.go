package xrplrpc

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/jsonv"
)

// Ledger is a small stand-in for a rippled JSON-RPC endpoint, answering
// fee, account_info, ledger_current, ledger ("validated") and tx (API
// version 2, JSON or binary) in rippled's documented shapes from values it
// holds: for the demo and the tests, which run offline. Any other method is
// rippled's unknownCmd error.
type Ledger struct {
	mu       sync.Mutex
	Current  uint32            // ledger_current_index
	BaseFee  uint64            // drops.base_fee
	OpenFee  uint64            // drops.open_ledger_fee
	Accounts map[string]uint32 // address → next Sequence; others are actNotFound
	// Validated is the newest validated ledger; HistoryFrom the oldest the
	// node holds. A tx not found within min_ledger…max_ledger reports
	// searched_all when the node holds that whole range.
	Validated, HistoryFrom uint32
	Txs                    map[string]LedgerTx // by uppercase hash
	Calls                  atomic.Int64
	TxCalls                atomic.Int64
}

// LedgerTx is a transaction the stand-in holds: its tx_json and signed blob
// (hex; "" answers a binary read with txnNotFound), whether a validated
// ledger holds it, meta.TransactionResult, its ledger (0: none yet),
// meta.delivered_amount, and the PayChannel entries its meta deleted.
type LedgerTx struct {
	TxJSON          *jsonv.Object
	Blob            string
	Validated       bool
	Result          string
	LedgerIndex     uint32
	Delivered       jsonv.Value
	DeletedChannels []string
}

// Hold keeps tx under hash (any case).
func (l *Ledger) Hold(hash string, tx LedgerTx) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.Txs == nil {
		l.Txs = map[string]LedgerTx{}
	}
	l.Txs[strings.ToUpper(hash)] = tx
}

func rippledError(code string, n int, msg string, request jsonv.Value) *jsonv.Object {
	return jsonv.Obj("result", jsonv.Obj("error", code, "error_code", n, "error_message", msg, "request", request, "status", "error"))
}

func (l *Ledger) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.Calls.Add(1)
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	v, err := jsonv.Parse(raw)
	o, _ := jsonv.AsObject(v)
	w.Header().Set("Content-Type", "application/json")
	if err != nil || r.Method != http.MethodPost {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	method, _ := o.GetString("method")
	pv, _ := o.Get("params")
	params, _ := jsonv.AsArray(pv)
	var p *jsonv.Object
	if len(params) == 1 {
		p, _ = jsonv.AsObject(params[0])
	}
	if p == nil {
		p = &jsonv.Object{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out *jsonv.Object
	switch method {
	case "fee":
		out = jsonv.Obj("result", jsonv.Obj(
			"current_ledger_size", "14", "current_queue_size", "0",
			"drops", jsonv.Obj("base_fee", u(l.BaseFee), "median_fee", u(l.BaseFee*500), "minimum_fee", u(l.BaseFee), "open_ledger_fee", u(l.OpenFee)),
			"expected_ledger_size", "24", "ledger_current_index", jsonv.Number(l.Current),
			"levels", jsonv.Obj("median_level", "128000", "minimum_level", "256", "open_ledger_level", "256", "reference_level", "256"),
			"max_queue_size", "480", "status", "success"))
	case "ledger_current":
		out = jsonv.Obj("result", jsonv.Obj("ledger_current_index", jsonv.Number(l.Current), "status", "success"))
	case "account_info":
		account, _ := p.GetString("account")
		seq, ok := l.Accounts[account]
		if !ok {
			out = rippledError("actNotFound", 19, "Account not found.", p)
			break
		}
		out = jsonv.Obj("result", jsonv.Obj(
			"account_data", jsonv.Obj("Account", account, "Balance", "100000000000", "Flags", 0, "LedgerEntryType", "AccountRoot",
				"OwnerCount", 0, "PreviousTxnID", "0000000000000000000000000000000000000000000000000000000000000000",
				"PreviousTxnLgrSeq", 1, "Sequence", jsonv.Number(seq)),
			"ledger_current_index", jsonv.Number(l.Current), "queue_data", jsonv.Obj("txn_count", 0),
			"status", "success", "validated", false))
	case "ledger":
		if idx, _ := p.GetString("ledger_index"); idx != "validated" {
			out = rippledError("invalidParams", 31, "Invalid parameters.", p)
			break
		}
		out = jsonv.Obj("result", jsonv.Obj(
			"ledger", jsonv.Obj("closed", true, "ledger_index", jsonv.Number(l.Validated), "parent_close_time", 786000000),
			"ledger_hash", strings.Repeat("4B", 32), "ledger_index", jsonv.Number(l.Validated),
			"status", "success", "validated", true))
	case "tx":
		l.TxCalls.Add(1)
		out = l.tx(p)
	default:
		out = rippledError("unknownCmd", 32, "Unknown method.", p)
	}
	_, _ = w.Write(jsonv.Marshal(out))
}

// tx answers rippled's tx: txnNotFound (with searched_all when a range was
// asked), or the transaction in API version 2's shape.
func (l *Ledger) tx(p *jsonv.Object) *jsonv.Object {
	hash, _ := p.GetString("transaction")
	binary, _ := p.Get("binary")
	t, ok := l.Txs[strings.ToUpper(hash)]
	if ok && binary == true && t.Blob == "" {
		ok = false
	}
	if !ok {
		e := rippledError("txnNotFound", 29, "Transaction not found.", p)
		minv, hasMin := p.Get("min_ledger")
		maxv, hasMax := p.Get("max_ledger")
		if hasMin && hasMax {
			lo, _ := jsonv.AsSafeInt(minv)
			hi, _ := jsonv.AsSafeInt(maxv)
			r, _ := e.GetObject("result")
			r.Set("searched_all", lo >= int64(l.HistoryFrom) && hi <= int64(l.Validated))
		}
		return e
	}
	res := jsonv.Obj("hash", strings.ToUpper(hash))
	if t.LedgerIndex != 0 {
		res.Set("ledger_index", jsonv.Number(t.LedgerIndex))
		res.Set("ledger_hash", strings.Repeat("4B", 32))
	}
	if binary == true {
		res.Set("tx_blob", t.Blob)
	} else {
		var nodes []jsonv.Value
		for _, c := range t.DeletedChannels {
			nodes = append(nodes, jsonv.Obj("DeletedNode", jsonv.Obj("FinalFields", jsonv.Obj("Flags", 0),
				"LedgerEntryType", "PayChannel", "LedgerIndex", c)))
		}
		meta := jsonv.Obj("AffectedNodes", append([]jsonv.Value{}, nodes...), "TransactionIndex", 0, "TransactionResult", t.Result)
		if t.Delivered != nil {
			meta.Set("delivered_amount", t.Delivered)
		}
		res.Set("meta", meta)
		res.Set("tx_json", t.TxJSON)
	}
	res.Set("status", "success")
	res.Set("validated", t.Validated)
	return jsonv.Obj("result", res)
}

func u(n uint64) string { return itoa(n) }

func itoa(n uint64) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
