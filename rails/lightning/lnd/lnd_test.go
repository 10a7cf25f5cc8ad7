package lnd_test

import (
	"context"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/lightningseller"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/lightning"
	"github.com/termsgate/termsgate/rails/lightning/lnd"
)

// A node on loopback TLS that answers as LND's REST API does, routing to a
// receiving node that issued the invoice.
func start(t *testing.T, h http.Handler) *loopback.Server {
	t.Helper()
	srv, err := loopback.Start(h, "node.payer.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

func TestNodePaysAnInvoice(t *testing.T) {
	rc := lightningseller.NewReceiver(lightningseller.TestKey())
	payer := &lightningseller.Payer{Key: lightningseller.PayerKey(), Macaroon: []byte{1, 2, 3}, Receivers: []*lightningseller.Receiver{rc}}
	srv := start(t, payer)
	ctx := context.Background()
	n, err := lnd.Dial(ctx, "https://node.payer.example/", payer.Macaroon, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	if want := lightning.Mainnet + ":" + hex.EncodeToString(lightningseller.PayerKey().PubKey().SerializeCompressed()); n.Account() != want {
		t.Fatalf("account %s", n.Account())
	}
	inv, hash, err := rc.Issue(5000, 60, make([]byte, 32), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := n.Sign(ctx, jsonv.Obj("kind", lightning.KindBolt11Pay, "invoice", inv))
	if err != nil {
		t.Fatal(err)
	}
	if !rc.Settled(hash) || payer.Payments.Load() != 1 {
		t.Fatal("the receiving node was not paid")
	}
	s, _ := jsonv.AsString(got)
	if len(s) != 64 {
		t.Fatalf("preimage %v", got)
	}
	// Paid once: the node answers payment_error the second time.
	if _, err := n.Sign(ctx, jsonv.Obj("kind", lightning.KindBolt11Pay, "invoice", inv)); err == nil || !strings.Contains(err.Error(), "already paid") {
		t.Fatalf("second payment: %v", err)
	}
	// Not a request a node pays.
	if _, err := n.Sign(ctx, jsonv.Obj("kind", "eip712")); err == nil {
		t.Fatal("signed an eip712 request")
	}
	// A testnet invoice on a mainnet node.
	tb := lightningseller.NewReceiver(lightningseller.TestKey())
	tb.Currency = "tb"
	inv2, _, _ := tb.Issue(5000, 60, make([]byte, 32), nil)
	if _, err := n.Sign(ctx, jsonv.Obj("kind", lightning.KindBolt11Pay, "invoice", inv2)); err == nil {
		t.Fatal("paid a testnet invoice")
	}
	// A wrong macaroon is refused by the node.
	if _, err := lnd.Dial(ctx, "https://node.payer.example", []byte{9}, srv.Client()); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("wrong macaroon: %v", err)
	}
}

// A node whose answer is not the invoice's preimage, or no JSON, or too
// long, yields no payment.
func TestNodeAnswersChecked(t *testing.T) {
	rc := lightningseller.NewReceiver(lightningseller.TestKey())
	inv, _, err := rc.Issue(5000, 60, make([]byte, 32), nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"other preimage": `{"payment_error":"","payment_preimage":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}`,
		"short preimage": `{"payment_error":"","payment_preimage":"AAAA"}`,
		"not json":       `<html>`,
		"too long":       `{"x":"` + strings.Repeat("a", lnd.MaxAnswer) + `"}`,
		"not an object":  `[]`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) }))
			n := &lnd.Node{URL: "https://node.payer.example", Client: srv.Client(), Network: lightning.Mainnet}
			if got, err := n.Sign(context.Background(), jsonv.Obj("kind", lightning.KindBolt11Pay, "invoice", inv)); err == nil {
				t.Fatalf("answered %v", got)
			}
		})
	}
}
