package ccdrpc

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/rpcanswer"
)

const testnet = "ccd:4221332d34e1694168c2a0c0b3fd0f27"

var account = []byte{31: 9}

func start(t *testing.T, h http.Handler) *Client {
	t.Helper()
	srv, err := loopback.Start(h, "grpc.ccd.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &Client{URL: "https://grpc.ccd.example", Net: testnet, HTTP: srv.Client()}
}

// The wallet's two reads over gRPC-web against the node, and the node's
// NOT_FOUND for what it does not hold as an error.
func TestInputsFromTheNode(t *testing.T) {
	node := &Node{Net: testnet}
	node.SetNonce(account, 12)
	node.AddToken("EURR", 6)
	c := start(t, node)
	ctx := context.Background()
	if n, err := c.NextNonce(ctx, account); err != nil || n != 12 {
		t.Fatalf("nonce %d, %v", n, err)
	}
	if d, err := c.TokenDecimals(ctx, "EURR"); err != nil || d != 6 {
		t.Fatalf("decimals %d, %v", d, err)
	}
	var e *Error
	if _, err := c.NextNonce(ctx, make([]byte, 32)); !errors.As(err, &e) || e.Method != "GetNextAccountSequenceNumber" {
		t.Fatalf("an unknown account: %v", err)
	}
	if _, err := c.TokenDecimals(ctx, "USDR"); !errors.As(err, &e) {
		t.Fatalf("an unknown token: %v", err)
	}
	if node.Calls.Load() != 4 {
		t.Fatalf("%d calls", node.Calls.Load())
	}
}

// Every malformed answer is an error: frames cut short, no trailer, a
// failing status in the trailer, a message that is not protobuf, a token
// the answer does not name.
func TestNodeFailuresAreErrors(t *testing.T) {
	ok := []byte{0, 0, 0, 0, 4, 0x0a, 0x02, 0x08, 0x07}
	trailer := append([]byte{0x80, 0, 0, 0, 14}, "grpc-status:0\r\n"[:14]...)
	for name, body := range map[string][]byte{
		"empty":          nil,
		"cut short":      ok[:6],
		"no trailer":     ok,
		"failing status": append(append([]byte{}, ok...), append([]byte{0x80, 0, 0, 0, 13}, "grpc-status:5"...)...),
		"no message":     trailer,
		"not protobuf":   append([]byte{0, 0, 0, 0, 2, 0x0a, 0x05}, trailer...),
		"nonce zero":     append([]byte{0, 0, 0, 0, 2, 0x0a, 0x00}, trailer...),
		"two messages":   append(append(append([]byte{}, ok...), ok...), trailer...),
	} {
		c := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) }))
		var e *Error
		if _, err := c.NextNonce(context.Background(), account); !errors.As(err, &e) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	c := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(append(append([]byte{}, ok...), trailer...))
	}))
	if n, err := c.NextNonce(context.Background(), account); err != nil || n != 7 {
		t.Fatalf("the well-formed answer: %d, %v", n, err)
	}
	if _, err := c.TokenDecimals(context.Background(), "EURR"); err == nil {
		t.Fatal("an answer naming no token was taken")
	}
	if _, err := c.NextNonce(context.Background(), account[:31]); err == nil {
		t.Fatal("a 31-byte account was asked for")
	}
}

// FuzzNodeAnswers: any bytes as the node's answer end both readers in a
// value or an error, never a panic, within internal/cost's bound.
func FuzzNodeAnswers(f *testing.F) {
	node := &Node{Net: testnet}
	node.SetNonce(account, 3)
	node.AddToken("EURR", 6)
	rec := &rpcanswer.Recorder{Handler: node}
	c := &Client{URL: "http://grpc.invalid", Net: testnet, HTTP: &http.Client{Transport: rec}}
	ctx := context.Background()
	_, _ = c.NextNonce(ctx, account)
	_, _ = c.TokenDecimals(ctx, "EURR")
	for _, a := range rec.Answers {
		f.Add(a)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		cost.Bound(t, len(body), func() {
			c := &Client{URL: "http://grpc.invalid", Net: testnet, HTTP: &http.Client{Transport: rpcanswer.Fixed(body)}}
			_, _ = c.NextNonce(ctx, account)
			_, _ = c.TokenDecimals(ctx, "EURR")
		})
	})
}
