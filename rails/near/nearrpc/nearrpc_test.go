package nearrpc

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/rpcanswer"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/near"
)

const (
	payer = "8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c"
	key   = "ed25519:AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9"
)

func start(t *testing.T, h http.Handler) *Client {
	t.Helper()
	srv, err := loopback.Start(h, "rpc.near.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &Client{URL: "https://rpc.near.example", Net: "near:testnet", HTTP: srv.Client(), Published: []string{"relayer.testnet"}}
}

// The vectors' inputs (nonce 100, final height 200000000) from a node that
// answers as NEAR's RPC does, two calls; a relayed transaction read back
// settled, then a failing token receipt read failed.
func TestInputsAndStatusFromTheNode(t *testing.T) {
	node := &Node{Height: 200_000_000}
	node.SetKey(payer, key, 100)
	c := start(t, node)
	ctx := context.Background()
	in, err := c.Inputs(ctx, near.ExactID, payer, key)
	want := `{"publicKey":"` + key + `","accessKeyNonce":"100","finalHeight":"200000000"}`
	if err != nil || string(jsonv.Marshal(in)) != want || node.Calls.Load() != 2 {
		t.Fatalf("inputs %s, %v", jsonv.Marshal(in), err)
	}
	if o, err := c.Inputs(ctx, "x402/exact/sui", payer, key); o != nil || err != nil {
		t.Fatalf("another pairing: %v %v", o, err)
	}
	if _, ok, err := c.AccessKeyNonce(ctx, "nobody.testnet", key); ok || err != nil {
		t.Fatalf("no key: %v %v", ok, err)
	}
	pk, _ := near.ParsePublicKey(key)
	h := atr.Sum([]byte("abc"))
	d := &near.DelegateAction{SenderID: payer, ReceiverID: "usdc.testnet", Nonce: 101, MaxBlockHeight: 200_000_060, PublicKey: pk,
		Actions: []near.Action{{Kind: 2, Method: "ft_transfer", Args: []byte(`{"receiver_id":"merchant.testnet","amount":"1","memo":"lcp:sha256:` + h.String() + `"}`),
			Gas: near.FTTransferGas, Deposit: bigOne()}}}
	s := &near.Signed{Action: d, Sig: make([]byte, 64)}
	ref := near.Reference{Network: "near:testnet", Asset: "usdc.testnet", Payer: payer, PublicKey: key, Nonce: 101, MaxBlockHeight: 200_000_060, Transaction: "tx1"}
	if st := near.PaymentStatus(ctx, ref, c); st.State != "pending" || st.Why != "not-found" {
		t.Fatalf("before: %+v", st)
	}
	node.Relay("tx1", "relayer.testnet", s, false)
	if st := near.PaymentStatus(ctx, ref, c); st.State != "settled" || st.Finality != "final" {
		t.Fatalf("after: %+v", st)
	}
	if got, err := near.Recover(ctx, "near:testnet", "tx1", c); err != nil || got != h {
		t.Fatalf("recover %v, %v", got, err)
	}
	node.Relay("tx1", "relayer.testnet", s, true)
	if st := near.PaymentStatus(ctx, ref, c); st.State != "failed" || st.Why != "transfer-failed" {
		t.Fatalf("token failed: %+v", st)
	}
}

func TestNodeFailuresAreErrors(t *testing.T) {
	var e *Error
	for name, body := range map[string]string{
		"not JSON":   `{`,
		"no result":  `{"jsonrpc":"2.0","id":1}`,
		"an error":   `{"jsonrpc":"2.0","id":1,"error":{"cause":{"name":"INTERNAL_ERROR"}}}`,
		"no height":  `{"jsonrpc":"2.0","id":1,"result":{"header":{}}}`,
		"big height": `{"jsonrpc":"2.0","id":1,"result":{"header":{"height":1e300}}}`,
	} {
		c := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
		if _, err := c.FinalHeight(context.Background()); !errors.As(err, &e) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	broken := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	in := &Inputs{Client: broken, Account: payer, PublicKey: key}
	if o := in.For(near.ExactID); o != nil || in.Err() == nil {
		t.Fatalf("inputs %v, %v", o, in.Err())
	}
}

// FuzzNodeAnswers: any bytes as the node's answer end every reader in a
// value or an error, never a panic.
func FuzzNodeAnswers(f *testing.F) {
	node := &Node{Height: 5}
	node.SetKey(payer, key, 1)
	rec := &rpcanswer.Recorder{Handler: node}
	c := &Client{URL: "http://rpc.invalid", Net: "near:testnet", HTTP: &http.Client{Transport: rec}}
	ctx := context.Background()
	_, _ = c.FinalHeight(ctx)
	_, _, _ = c.AccessKeyNonce(ctx, payer, key)
	for _, a := range rec.Answers {
		f.Add(a)
	}
	f.Add([]byte(`{"result":{"final_execution_status":"FINAL","transaction":{"actions":[{"Delegate":{"delegate_action":{"nonce":1,"sender_id":"a","public_key":"k","actions":[{"FunctionCall":{"args":"e30="}}]}}}]},"receipts_outcome":[{"outcome":{"executor_id":"x","status":{"Failure":{}}}}]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		cost.Bound(t, len(body), func() {
			c := &Client{URL: "http://rpc.invalid", Net: "near:testnet", HTTP: &http.Client{Transport: rpcanswer.Fixed(body)}}
			_, _ = c.FinalHeight(ctx)
			_, _, _ = c.AccessKeyNonce(ctx, payer, key)
			_, _ = c.TxStatus(ctx, "tx", "relayer.testnet")
		})
	})
}

func bigOne() *big.Int { return big.NewInt(1) }
