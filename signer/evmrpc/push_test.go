package evmrpc_test

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/temponode"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

var (
	terms = []byte(`{"atrVersion":"1","id":"push","seller":{"note":"pushed"}}`)
	h     = atr.Sum(terms)
)

// pushDoc is an mpp/charge/tempo/push challenge on Tempo Moderato (42431),
// 1 pathUSD, placed with H.
func pushDoc(t *testing.T) []jsonv.Value {
	t.Helper()
	request := jsonv.Obj("amount", "1000000", "currency", strings.ToLower(tempo.PathUSD.Hex()),
		"methodDetails", jsonv.Obj("chainId", 42431), "recipient", "0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00")
	c := jsonv.Obj("realm", "api.seller.example", "method", "tempo", "intent", "charge",
		"request", mpp.EncodeObject(request), "expires", time.Now().Add(5*time.Minute).UTC().Format("2006-01-02T15:04:05Z"))
	d, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func termsGate(t *testing.T) *gate.Gate {
	t.Helper()
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(terms) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client(), Timeout: 5 * time.Second}}
}

func tempoNode(t *testing.T, fault string) (*temponode.Node, string) {
	return tempoNodeOf(t, 42431, fault)
}

func tempoNodeOf(t *testing.T, chain uint64, fault string) (*temponode.Node, string) {
	n, url, stop := temponode.Start(chain, fault)
	t.Cleanup(stop)
	return n, url
}

// counting counts the signer's calls.
type counting struct {
	gate.Signer
	n int
}

func (c *counting) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	c.n++
	return c.Signer.Sign(ctx, req)
}

func tempoWallet(t *testing.T, url string) (*counting, *evmrpc.Node) {
	t.Helper()
	key, err := signer.FromHex(signer.AnvilKey, "eip155:42431")
	if err != nil {
		t.Fatal(err)
	}
	node, err := evmrpc.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(node.Close)
	node.CallTimeout, node.Wait, node.Poll = 500*time.Millisecond, 300*time.Millisecond, 10*time.Millisecond
	return &counting{Signer: signer.NewTempo(key, node)}, node
}

// TestPushOverJSONRPC: termsgate pays mpp/charge/tempo/push through a
// loopback Tempo node over HTTP JSON-RPC: fees and gas from the node, an
// expiring nonce, the transaction decoded and landed by the node, H read back
// from the landed log.
func TestPushOverJSONRPC(t *testing.T) {
	node, url := tempoNode(t, "")
	wallet, _ := tempoWallet(t, url)
	g := termsGate(t)
	res, err := g.Transact(context.Background(), pushDoc(t), tempo.PushID, wallet, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(node.Sent()) != 1 || wallet.n != 1 || res.Landed == nil {
		t.Fatalf("sends %d, signer calls %d, landed %v", len(node.Sent()), wallet.n, res.Landed)
	}
	held := res.Signed.(*jsonv.Object).Clone()
	held.Set("landed", res.Landed)
	if got, err := g.Check(terms, tempo.PushID, held); err != nil || got != h {
		t.Fatalf("gate.Check with the landed receipt: %s, %v", got, err)
	}
	f := temponode.FeesOf(node.Sent()[0])
	wantMax := new(big.Int).Add(new(big.Int).Lsh(node.BaseFee, 1), node.Tip)
	if f.Tip.Cmp(node.Tip) != 0 || f.MaxFee.Cmp(wantMax) != 0 || f.Gas != 21_000+node.GasCall {
		t.Fatalf("fees tip %s max %s gas %d; the node's tip %s, 2·base+tip %s", f.Tip, f.MaxFee, f.Gas, node.Tip, wantMax)
	}
	if f.NonceKey.Cmp(tempo.MaxNonceKey) != 0 {
		t.Fatalf("nonce key %s: not the expiring nonce", f.NonceKey)
	}
	def := signer.DefaultTempoFees()
	if f.MaxFee.Cmp(def.MaxFeePerGas) == 0 || f.Gas == def.GasPerCall {
		t.Fatal("the placeholder fees were broadcast")
	}
	if est := node.Estimates(); len(est) != 1 || est[0]["calls"] == nil {
		t.Fatalf("estimates %v", est)
	}
}

// TestPushBadNodes: whatever the node does after the transaction was handed
// to it, the payment is declined with what was signed kept as moved, and
// nothing is signed twice; a node that fails before anything was signed
// gets a signer-failed decline with nothing moved.
func TestPushBadNodes(t *testing.T) {
	for _, fault := range []string{"slow", "send-error", "receipt-error", "status-0", "other-receipt", "never-lands"} {
		t.Run(fault, func(t *testing.T) {
			node, url := tempoNode(t, fault)
			wallet, _ := tempoWallet(t, url)
			start := time.Now()
			_, err := termsGate(t).Transact(context.Background(), pushDoc(t), tempo.PushID, wallet, nil)
			var d *gate.Decline
			if !errors.As(err, &d) || d.Code != gate.SignedNotBound || d.Moved == nil {
				t.Fatalf("want signed-not-bound with moved, got %v", err)
			}
			if len(node.Sent()) != 1 || wallet.n != 1 {
				t.Fatalf("sends %d, signer calls %d", len(node.Sent()), wallet.n)
			}
			moved, _ := jsonv.AsObject(d.Moved.Signed)
			payload, _ := moved.GetObject("payload")
			if hash, _ := payload.GetString("hash"); !strings.HasPrefix(hash, "0x") || len(hash) != 66 {
				t.Fatalf("the moved payment names no transaction: %s", jsonv.String(moved))
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Fatalf("the bounded wait took %s", took)
			}
		})
	}
	t.Run("estimate-error", func(t *testing.T) {
		node, url := tempoNode(t, "estimate-error")
		wallet, _ := tempoWallet(t, url)
		_, err := termsGate(t).Transact(context.Background(), pushDoc(t), tempo.PushID, wallet, nil)
		var d *gate.Decline
		if !errors.As(err, &d) || d.Code != gate.SignerFailed || d.Moved != nil || len(node.Sent()) != 0 {
			t.Fatalf("want signer-failed with nothing moved, got %v (sends %d)", err, len(node.Sent()))
		}
		if d.Err == nil || !strings.Contains(d.Err.Error(), "insufficient fee token balance") {
			t.Fatalf("the cause is lost: %v", d.Err)
		}
	})
	t.Run("another chain", func(t *testing.T) {
		node, url := tempoNodeOf(t, 4217, "")
		wallet, _ := tempoWallet(t, url)
		_, err := termsGate(t).Transact(context.Background(), pushDoc(t), tempo.PushID, wallet, nil)
		var d *gate.Decline
		if !errors.As(err, &d) || d.Code != gate.SignerFailed || d.Moved != nil || len(node.Sent()) != 0 {
			t.Fatalf("want signer-failed with nothing moved, got %v (sends %d)", err, len(node.Sent()))
		}
	})
	t.Run("no node", func(t *testing.T) {
		key, _ := signer.FromHex(signer.AnvilKey, "eip155:42431")
		_, err := termsGate(t).Transact(context.Background(), pushDoc(t), tempo.PushID, signer.NewTempo(key, nil), nil)
		var d *gate.Decline
		if !errors.As(err, &d) || d.Code != gate.SignerFailed || d.Moved != nil || d.Err == nil || !strings.Contains(d.Err.Error(), "--rpc") {
			t.Fatalf("want signer-failed naming --rpc, got %v (cause %v)", err, d.Err)
		}
	})
}
