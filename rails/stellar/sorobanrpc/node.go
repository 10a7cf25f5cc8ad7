package sorobanrpc

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/termsgate/termsgate/rails/stellar"
)

// Node is a small stand-in for a Soroban RPC's settlement methods,
// answering getTransaction, getEvents and getLatestLedger in the
// documented shapes from what it holds: for the tests and the demo, which
// run offline. getEvents applies the contract and topic filters, the
// ledger range and cursor pagination; a startLedger below Oldest is the
// RPC's range error. Any other method is JSON-RPC's method-not-found.
type Node struct {
	mu             sync.Mutex
	Latest, Oldest uint32            // the ledgers it holds
	Txs            map[string]NodeTx // by lowercase hash
	Events         []NodeEvent
	EventsDisabled bool // getEvents answers an error, as an RPC run without events does
	Calls          atomic.Int64
}

// NodeTx is a transaction the node holds: SUCCESS or FAILED, its envelope
// (base64 XDR) and ledger.
type NodeTx struct {
	Status   string
	Envelope string
	Ledger   uint32
}

// NodeEvent is a contract event the node holds.
type NodeEvent struct {
	Contract, TxHash string
	Ledger           uint32
	Topic            []string
	Value            string
	Failed           bool // emitted in a failed contract call
}

// Hold keeps tx under hash (any case).
func (n *Node) Hold(hash string, tx NodeTx) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.Txs == nil {
		n.Txs = map[string]NodeTx{}
	}
	n.Txs[strings.ToLower(hash)] = tx
}

// TransferEvent is a SEP-41 transfer event's topics and data as a token
// contract emits them: [transfer, from, to] and, with toMuxedID, the map
// {amount, to_muxed_id} (CAP-67), else the i128 amount.
func TransferEvent(from, to string, toMuxedID *uint64, amount int64) (topic []string, value string) {
	addr := func(s string) xdr.ScVal {
		a, err := scAddress(s)
		if err != nil {
			c, _ := stellar.DecodeContract(s)
			id := xdr.ContractId(c)
			a = &xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &id}
		}
		return xdr.ScVal{Type: xdr.ScValTypeScvAddress, Address: a}
	}
	b64 := func(v xdr.ScVal) string { b, _ := v.MarshalBinary(); return base64.StdEncoding.EncodeToString(b) }
	sym := func(s string) xdr.ScVal {
		y := xdr.ScSymbol(s)
		return xdr.ScVal{Type: xdr.ScValTypeScvSymbol, Sym: &y}
	}
	amt := xdr.ScVal{Type: xdr.ScValTypeScvI128, I128: &xdr.Int128Parts{Hi: 0, Lo: xdr.Uint64(amount)}}
	topic = []string{b64(sym("transfer")), b64(addr(from)), b64(addr(to))}
	if toMuxedID == nil {
		return topic, b64(amt)
	}
	id := xdr.Uint64(*toMuxedID)
	m := &xdr.ScMap{{Key: sym("amount"), Val: amt}, {Key: sym("to_muxed_id"), Val: xdr.ScVal{Type: xdr.ScValTypeScvU64, U64: &id}}}
	return topic, b64(xdr.ScVal{Type: xdr.ScValTypeScvMap, Map: &m})
}

func (n *Node) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.Calls.Add(1)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	w.Header().Set("Content-Type", "application/json")
	if err := json.Unmarshal(raw, &req); err != nil || r.Method != http.MethodPost {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	answer := func(result any) {
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
	fail := func(code int, msg string) {
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": code, "message": msg}})
	}
	switch req.Method {
	case "getLatestLedger":
		answer(map[string]any{"id": strings.Repeat("ab", 32), "protocolVersion": 23, "sequence": n.Latest})
	case "getTransaction":
		var p struct {
			Hash string `json:"hash"`
		}
		if json.Unmarshal(req.Params, &p) != nil {
			fail(-32602, "invalid parameters")
			return
		}
		out := map[string]any{"latestLedger": n.Latest, "latestLedgerCloseTime": "1790000000", "oldestLedger": n.Oldest,
			"oldestLedgerCloseTime": "1780000000", "status": stellar.TxNotFound}
		if t, ok := n.Txs[strings.ToLower(p.Hash)]; ok {
			out["status"], out["envelopeXdr"], out["ledger"] = t.Status, t.Envelope, t.Ledger
			out["applicationOrder"], out["createdAt"], out["txHash"] = 1, "1789999000", strings.ToLower(p.Hash)
			out["resultXdr"], out["resultMetaXdr"] = "AAAAAAAAAGQAAAAAAAAAAQAAAAAAAAAYAAAAAAAAAAA=", ""
		}
		answer(out)
	case "getEvents":
		if n.EventsDisabled {
			fail(-32601, "method not found")
			return
		}
		n.events(req.Params, answer, fail)
	default:
		fail(-32601, "method not found")
	}
}

func (n *Node) events(params json.RawMessage, answer func(any), fail func(int, string)) {
	var p struct {
		StartLedger uint32 `json:"startLedger"`
		EndLedger   uint32 `json:"endLedger"`
		Filters     []struct {
			ContractIDs []string   `json:"contractIds"`
			Topics      [][]string `json:"topics"`
		} `json:"filters"`
		Pagination struct {
			Cursor string `json:"cursor"`
			Limit  int    `json:"limit"`
		} `json:"pagination"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Filters) != 1 || p.Pagination.Limit <= 0 {
		fail(-32602, "invalid parameters")
		return
	}
	from := 0
	if p.Pagination.Cursor != "" {
		i, err := strconv.Atoi(p.Pagination.Cursor)
		if err != nil {
			fail(-32602, "invalid cursor")
			return
		}
		from = i
	} else if p.StartLedger < n.Oldest || p.StartLedger > n.Latest {
		fail(-32600, "startLedger must be between the oldest ledger: "+strconv.Itoa(int(n.Oldest))+" and the latest ledger: "+strconv.Itoa(int(n.Latest)))
		return
	} else {
		for from < len(n.Events) && n.Events[from].Ledger < p.StartLedger {
			from++
		}
	}
	f := p.Filters[0]
	matches := func(e NodeEvent) bool {
		if len(f.ContractIDs) > 0 && !contains(f.ContractIDs, e.Contract) {
			return false
		}
		if p.EndLedger != 0 && e.Ledger >= p.EndLedger {
			return false
		}
		for _, t := range f.Topics {
			if topicMatches(t, e.Topic) {
				return true
			}
		}
		return len(f.Topics) == 0
	}
	events := []any{}
	i := from
	for ; i < len(n.Events) && len(events) < p.Pagination.Limit; i++ {
		e := n.Events[i]
		if !matches(e) {
			continue
		}
		events = append(events, map[string]any{
			"type": "contract", "ledger": e.Ledger, "ledgerClosedAt": "2026-09-25T12:00:00Z", "contractId": e.Contract,
			"id": strconv.Itoa(i), "operationIndex": 0, "transactionIndex": 1, "txHash": e.TxHash,
			"inSuccessfulContractCall": !e.Failed, "topic": e.Topic, "value": e.Value,
		})
	}
	answer(map[string]any{"events": events, "cursor": strconv.Itoa(i), "latestLedger": n.Latest, "oldestLedger": n.Oldest,
		"latestLedgerCloseTime": "1790000000", "oldestLedgerCloseTime": "1780000000"})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// topicMatches applies a topic filter: each segment an exact base64 XDR,
// "*" any one topic, a final "**" any number more.
func topicMatches(filter, topic []string) bool {
	for i, seg := range filter {
		if seg == "**" && i == len(filter)-1 {
			return true
		}
		if i >= len(topic) || seg != "*" && seg != topic[i] {
			return false
		}
	}
	return len(filter) == len(topic)
}
