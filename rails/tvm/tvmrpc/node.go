package tvmrpc

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/jsonv"
)

// Node is a small stand-in for a TON Center v3 endpoint: walletInformation
// for its one wallet and jetton/wallets for its one Jetton wallet, in TON
// Center's shapes (raw addresses in uppercase hex, as v3 writes them); any
// other path or address is 404 or an empty list.
type Node struct {
	mu                           sync.Mutex
	Wallet, Jetton, JettonWallet string // raw
	Seqno, WalletID              uint64
	Calls                        atomic.Int64
}

func upper(raw string) string {
	wc, h, _ := strings.Cut(raw, ":")
	return wc + ":" + strings.ToUpper(h)
}

func (n *Node) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.Calls.Add(1)
	n.mu.Lock()
	defer n.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	q := r.URL.Query()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v3/walletInformation" && strings.EqualFold(q.Get("address"), n.Wallet):
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("balance", "1000000000", "wallet_type", "wallet v5 r1",
			"seqno", jsonv.Number(n.Seqno), "wallet_id", jsonv.Number(n.WalletID), "last_transaction_lt", "0",
			"last_transaction_hash", "", "status", "active")))
	case r.Method == http.MethodGet && r.URL.Path == "/api/v3/jetton/wallets":
		list := []jsonv.Value{}
		if strings.EqualFold(q.Get("owner_address"), n.Wallet) && strings.EqualFold(q.Get("jetton_address"), n.Jetton) {
			list = append(list, jsonv.Obj("address", upper(n.JettonWallet), "balance", "1000000", "owner", upper(n.Wallet),
				"jetton", upper(n.Jetton), "last_transaction_lt", "0", "code_hash", "", "data_hash", ""))
		}
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("jetton_wallets", list)))
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}
