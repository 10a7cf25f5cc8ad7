package tronrpc

import (
	"encoding/binary"
	"encoding/hex"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/jsonv"
)

// Node is a small stand-in for a java-tron FullNode's HTTP API: POST
// /wallet/getnowblock answers the block it holds in java-tron's shape (a
// block id whose first 8 bytes are its number); any other path is 404.
type Node struct {
	mu        sync.Mutex
	Number    uint64
	Hash      [24]byte // the id's last 24 bytes
	Timestamp int64    // milliseconds
	Calls     atomic.Int64
}

// ID is the block id: the number's 8 bytes and the hash.
func (n *Node) ID() [32]byte {
	n.mu.Lock()
	defer n.mu.Unlock()
	var id [32]byte
	binary.BigEndian.PutUint64(id[:8], n.Number)
	copy(id[8:], n.Hash[:])
	return id
}

func (n *Node) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.Calls.Add(1)
	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodPost || r.URL.Path != "/wallet/getnowblock" {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	id := n.ID()
	n.mu.Lock()
	defer n.mu.Unlock()
	_, _ = w.Write(jsonv.Marshal(jsonv.Obj("blockID", hex.EncodeToString(id[:]),
		"block_header", jsonv.Obj("raw_data", jsonv.Obj("number", jsonv.Number(n.Number), "txTrieRoot", "0000000000000000000000000000000000000000000000000000000000000000",
			"witness_address", "41928c9af0651632157ef27a2cf17ca72c575a4d21", "parentHash", hex.EncodeToString(id[:]), "version", 31,
			"timestamp", jsonv.Number(n.Timestamp)),
			"witness_signature", ""))))
}
