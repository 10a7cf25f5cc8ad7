package suirpc

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/rpcanswer"
	"github.com/termsgate/termsgate/rails/sui"
)

func start(t *testing.T, h http.Handler) *Client {
	t.Helper()
	srv, err := loopback.Start(h, "fullnode.sui.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &Client{URL: "https://fullnode.sui.example", Net: "sui:testnet", HTTP: srv.Client()}
}

var owner = sui.Address{7}

// The wallet's inputs and the seller's read, each one call, against a node
// that answers in a full node's shapes.
func TestInputsAndReadFromTheNode(t *testing.T) {
	node := &Node{GasPrice: 750, Epoch: 1233}
	coin := sui.Coin{Ref: sui.ObjectRef{ID: sui.Address{1}, Version: 9, Digest: [32]byte{2}}, Balance: 42}
	node.AddCoin(owner, "0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI", coin)
	c := start(t, node)
	ctx := context.Background()
	if p, err := c.ReferenceGasPrice(ctx); p != 750 || err != nil {
		t.Fatalf("price %d, %v", p, err)
	}
	if e, err := c.Epoch(ctx); e != 1233 || err != nil {
		t.Fatalf("epoch %d, %v", e, err)
	}
	coins, err := c.Coins(ctx, owner, sui.SUI, 10)
	if err != nil || len(coins) != 1 || coins[0] != coin {
		t.Fatalf("coins %+v, %v", coins, err)
	}
	if node.Calls.Load() != 3 {
		t.Fatalf("%d calls", node.Calls.Load())
	}
	h := atr.Sum([]byte("abc"))
	tx, _ := sui.BuildTransfer(sui.TransferSpec{Sender: owner, PayTo: sui.Address{9}, Amount: 5, SUI: true, GasPayment: []sui.ObjectRef{coin.Ref},
		GasPrice: 750, GasBudget: 1000, UntilEpoch: 1234, H: h})
	raw := tx.Encode()
	d := sui.DigestString(raw)
	a, err := c.Read(ctx, d)
	if err != nil || a.Tx != nil || a.Epoch != 1233 {
		t.Fatalf("before: %+v, %v", a, err)
	}
	node.Execute(raw, make([]byte, 97), true, 7)
	ref := sui.Reference{Network: "sui:testnet", Digest: d, UntilEpoch: 1234}
	if st := sui.PaymentStatus(ctx, ref, h, c); st.State != "settled" || *st.Checkpoint != 7 {
		t.Fatalf("status %+v", st)
	}
	if got, err := sui.Recover(ctx, "sui:testnet", d, c); err != nil || got != h {
		t.Fatalf("recover %v, %v", got, err)
	}
}

func TestNodeFailuresAreErrors(t *testing.T) {
	var e *Error
	for name, body := range map[string]string{
		"not JSON":     `{`,
		"no result":    `{"jsonrpc":"2.0","id":1}`,
		"an error":     `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"busy"}}`,
		"price number": `{"jsonrpc":"2.0","id":1,"result":1000}`,
	} {
		c := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
		if _, err := c.ReferenceGasPrice(context.Background()); !errors.As(err, &e) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// The node's code is kept, negative as JSON-RPC's are.
	busy := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params"}}`))
	}))
	if _, err := busy.ReferenceGasPrice(context.Background()); !errors.As(err, &e) || e.Code != -32602 || !strings.Contains(e.Detail, "error -32602: Invalid params") {
		t.Fatalf("the node's error: %v", err)
	}
	c := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"data":[{"coinType":"0x2::sui::SUI","coinObjectId":"0x01","version":"1","digest":"x","balance":"1"}]}}`))
	}))
	if _, err := c.Coins(context.Background(), owner, sui.SUI, 5); !errors.As(err, &e) {
		t.Fatalf("a coin that does not read: %v", err)
	}
}

// FuzzNodeAnswers: any bytes as the node's answer end every reader in a
// value or an error, never a panic.
func FuzzNodeAnswers(f *testing.F) {
	node := &Node{GasPrice: 1000, Epoch: 5}
	node.AddCoin(owner, sui.SUI, sui.Coin{Ref: sui.ObjectRef{ID: sui.Address{1}, Version: 1}, Balance: 1})
	rec := &rpcanswer.Recorder{Handler: node}
	c := &Client{URL: "http://fullnode.invalid", Net: "sui:testnet", HTTP: &http.Client{Transport: rec}}
	ctx := context.Background()
	_, _ = c.ReferenceGasPrice(ctx)
	_, _ = c.Coins(ctx, owner, sui.SUI, 5)
	for _, a := range rec.Answers {
		f.Add(a)
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"rawTransaction":"AAAA","effects":{"status":{"status":"success"}}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		cost.Bound(t, len(body), func() {
			c := &Client{URL: "http://fullnode.invalid", Net: "sui:testnet", HTTP: &http.Client{Transport: rpcanswer.Fixed(body)}}
			_, _ = c.ReferenceGasPrice(ctx)
			_, _ = c.Epoch(ctx)
			_, _ = c.Coins(ctx, owner, sui.SUI, 5)
			_, _ = c.Read(ctx, "digest")
		})
	})
}
