package relay_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/hedera/relay"
)

// relayAt is a loopback JSON-RPC server answering eth_chainId with chain
// (hex) and eth_getTransactionReceipt with receipt (raw JSON), as the
// Hedera relay does; calls counts requests.
func relayAt(t *testing.T, chain, receipt string, calls *atomic.Int64) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		result := "null"
		switch {
		case strings.Contains(string(body), `"eth_chainId"`):
			result = `"` + chain + `"`
		case strings.Contains(string(body), `"eth_getTransactionReceipt"`):
			result = receipt
		}
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":` + result + `}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

const tx = "0x109d8a611ce3a54019be191c7992faf5798b498af0904cf185282cca5f806f66"

// The relay's chain id names the network (296 testnet, 295 mainnet); a
// receipt reads in the form the pairing's reads take; another chain is
// refused.
func TestReader(t *testing.T) {
	var calls atomic.Int64
	receipt := `{"transactionHash":"` + tx + `","status":"0x1","blockNumber":"0x26f40f4","logs":[{"address":"0x8aaf6690c2a6397d595f97e224fc19759de6fdae","topics":["0xcd6e60364f8ee4c2b0d62afc07a1fb04fd267ce94693f93f8f85daaa099b5c94"],"data":"0x","transactionHash":"` + tx + `","blockNumber":"0x26f40f4"}]}`
	for chain, network := range map[string]string{"0x128": "hedera:testnet", "0x127": "hedera:mainnet"} {
		node, err := relay.Dial(relayAt(t, chain, receipt, &calls))
		if err != nil {
			t.Fatal(err)
		}
		r, err := relay.Reader(context.Background(), node)
		if err != nil || r.Network() != network {
			t.Fatalf("%s: %v, %v", chain, r, err)
		}
		v, err := r.Receipt(tx)
		if err != nil || !strings.Contains(string(mustJSON(t, v)), `"blockNumber":"40845556"`) {
			t.Fatalf("receipt %s, %v", mustJSON(t, v), err)
		}
	}
	node, _ := relay.Dial(relayAt(t, "0x14a34", "null", &calls))
	if _, err := relay.Reader(context.Background(), node); err == nil {
		t.Fatal("a Base Sepolia node read as a Hedera relay")
	}
	if calls.Load() == 0 {
		t.Fatal("no relay read")
	}
}

func mustJSON(t *testing.T, v jsonv.Value) []byte {
	t.Helper()
	return jsonv.Marshal(v)
}
