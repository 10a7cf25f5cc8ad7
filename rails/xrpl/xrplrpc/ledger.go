package xrplrpc

import (
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/jsonv"
)

// Ledger is a small stand-in for a rippled JSON-RPC endpoint, answering
// fee, account_info and ledger_current in rippled's documented shapes from
// values it holds: for the demo and the tests, which run offline. Any other
// method is rippled's unknownCmd error.
type Ledger struct {
	mu       sync.Mutex
	Current  uint32            // ledger_current_index
	BaseFee  uint64            // drops.base_fee
	OpenFee  uint64            // drops.open_ledger_fee
	Accounts map[string]uint32 // address → next Sequence; others are actNotFound
	Calls    atomic.Int64
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
	default:
		out = rippledError("unknownCmd", 32, "Unknown method.", p)
	}
	_, _ = w.Write(jsonv.Marshal(out))
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
