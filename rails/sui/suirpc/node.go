package suirpc

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/internal/base58"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/sui"
)

// Node is a small stand-in for a Sui full node's JSON-RPC API: it answers
// suix_getReferenceGasPrice, suix_getLatestSuiSystemState (the epoch),
// suix_getCoins (the coins it was given, by owner and type) and
// sui_getTransactionBlock (the transactions Execute stored) in the node's
// shapes; any other method is a JSON-RPC error.
type Node struct {
	mu       sync.Mutex
	GasPrice uint64
	Epoch    uint64
	coins    map[string][]sui.Coin // owner|long coin type
	executed map[string]executed
	Calls    atomic.Int64
}

type executed struct {
	raw        []byte
	success    bool
	checkpoint uint64
}

// AddCoin gives owner a coin of coinType.
func (n *Node) AddCoin(owner sui.Address, coinType string, c sui.Coin) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.coins == nil {
		n.coins = map[string][]sui.Coin{}
	}
	k := owner.String() + "|" + longType(coinType)
	n.coins[k] = append(n.coins[k], c)
}

// Execute stores a signed transaction as executed (success or not) at
// checkpoint; it returns the digest.
func (n *Node) Execute(tx, sig []byte, success bool, checkpoint uint64) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.executed == nil {
		n.executed = map[string]executed{}
	}
	d := sui.DigestString(tx)
	n.executed[d] = executed{raw: SenderSignedData(tx, sig), success: success, checkpoint: checkpoint}
	return d
}

func (n *Node) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.Calls.Add(1)
	w.Header().Set("Content-Type", "application/json")
	body := http.MaxBytesReader(w, r.Body, 1<<16)
	var buf [1 << 16]byte
	k, _ := readAll(body, buf[:])
	v, err := jsonv.Parse(buf[:k])
	o, _ := jsonv.AsObject(v)
	method, _ := o.GetString("method")
	pv, _ := o.Get("params")
	params, _ := jsonv.AsArray(pv)
	answer := func(res jsonv.Value) {
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("jsonrpc", "2.0", "id", get(o, "id"), "result", res)))
	}
	fail := func(code int, msg string) {
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("jsonrpc", "2.0", "id", get(o, "id"), "error", jsonv.Obj("code", code, "message", msg))))
	}
	if err != nil || r.Method != http.MethodPost {
		fail(-32700, "Parse error")
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	switch method {
	case "suix_getReferenceGasPrice":
		answer(strconv.FormatUint(n.GasPrice, 10))
	case "suix_getLatestSuiSystemState":
		answer(jsonv.Obj("epoch", strconv.FormatUint(n.Epoch, 10), "referenceGasPrice", strconv.FormatUint(n.GasPrice, 10)))
	case "suix_getCoins":
		if len(params) < 2 {
			fail(-32602, "Invalid params")
			return
		}
		owner, _ := params[0].(string)
		ct, _ := params[1].(string)
		data := []jsonv.Value{}
		for _, c := range n.coins[owner+"|"+longType(ct)] {
			data = append(data, jsonv.Obj("coinType", ct, "coinObjectId", c.Ref.ID.String(),
				"version", strconv.FormatUint(c.Ref.Version, 10), "digest", base58.Bitcoin.Encode(c.Ref.Digest[:]),
				"balance", strconv.FormatUint(c.Balance, 10), "previousTransaction", "11111111111111111111111111111111"))
		}
		answer(jsonv.Obj("data", data, "nextCursor", nil, "hasNextPage", false))
	case "sui_getTransactionBlock":
		var d string
		if len(params) > 0 {
			d, _ = params[0].(string)
		}
		e, ok := n.executed[d]
		if !ok {
			fail(-32602, "Could not find the referenced transaction [TransactionDigest("+d+")].")
			return
		}
		status := "failure"
		if e.success {
			status = "success"
		}
		answer(jsonv.Obj("digest", d, "rawTransaction", base64.StdEncoding.EncodeToString(e.raw),
			"effects", jsonv.Obj("messageVersion", "v1", "status", jsonv.Obj("status", status)),
			"checkpoint", strconv.FormatUint(e.checkpoint, 10)))
	default:
		fail(-32601, "Method not found")
	}
}

func readAll(r interface{ Read([]byte) (int, error) }, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		k, err := r.Read(buf[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
