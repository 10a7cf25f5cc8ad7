package algod

import (
	"encoding/base64"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/jsonv"
)

// Node is a small stand-in for an algod node's REST API, answering GET
// /v2/transactions/params in algod's shape from the values it holds, and
// algod's error object ({"message"}) for anything else or a wrong token.
type Node struct {
	mu          sync.Mutex
	LastRound   uint64
	MinFee      uint64 // microALGO
	FeePerByte  uint64
	GenesisID   string
	GenesisHash [32]byte
	Token       string // "": no token asked
	Calls       atomic.Int64
}

func (n *Node) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.Calls.Add(1)
	w.Header().Set("Content-Type", "application/json")
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.Token != "" && r.Header.Get("X-Algo-API-Token") != n.Token {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("message", "Invalid API Token")))
		return
	}
	if r.Method != http.MethodGet || r.URL.Path != "/v2/transactions/params" {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("message", "Not Found")))
		return
	}
	_, _ = w.Write(jsonv.Marshal(jsonv.Obj(
		"consensus-version", "https://github.com/algorandfoundation/specs/tree/236dcc18c9c507d794813ab768e467ea42d1b4d9",
		"fee", jsonv.Number(n.FeePerByte), "genesis-hash", base64.StdEncoding.EncodeToString(n.GenesisHash[:]),
		"genesis-id", n.GenesisID, "last-round", jsonv.Number(n.LastRound), "min-fee", jsonv.Number(n.MinFee))))
}

// Mu is the lock under which the node's values are read and set while it
// serves.
func (n *Node) Mu() *sync.Mutex { return &n.mu }

// Advance moves the node's last round on by rounds.
func (n *Node) Advance(rounds uint64) {
	n.mu.Lock()
	n.LastRound += rounds
	n.mu.Unlock()
}
