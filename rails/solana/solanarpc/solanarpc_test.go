package solanarpc_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana/solanarpc"
)

const (
	mint      = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"
	blockhash = "EZ3rST5dvHmbanh75jc4PuLfV96vp9fEYBVeNk4FfM1k"
	token     = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
)

func TestInputsFromANode(t *testing.T) {
	node := &solanarpc.Node{Slot: 341000000, Blockhash: blockhash, LastValid: 320000150,
		Mints: map[string]solanarpc.NodeMint{mint: {Owner: token, Decimals: 6}}}
	srv := httptest.NewServer(node)
	defer srv.Close()
	c := &solanarpc.Client{URL: srv.URL, HTTP: srv.Client()}
	in, err := c.Inputs(context.Background(), mint)
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonv.String(in); got != `{"decimals":6,"tokenProgram":"`+token+`","recentBlockhash":"`+blockhash+`"}` {
		t.Fatalf("inputs %s", got)
	}
	if node.Calls.Load() != 2 {
		t.Fatalf("%d calls", node.Calls.Load())
	}
	// An unknown mint, a mint owned by another program, and a node error.
	if _, _, err := c.Mint(context.Background(), "9hSR6S7WPtxmTojgo6GG3k4yDPecgJY292j7xrsUGWBu"); err == nil || !strings.Contains(err.Error(), "no such account") {
		t.Fatalf("unknown mint: %v", err)
	}
	node.Mints[mint] = solanarpc.NodeMint{Owner: "11111111111111111111111111111111", Decimals: 6}
	if _, _, err := c.Mint(context.Background(), mint); err == nil || !strings.Contains(err.Error(), "token program") {
		t.Fatalf("system-owned mint: %v", err)
	}
}

// Hostile answers are errors naming the method, never inputs.
func TestHostileAnswers(t *testing.T) {
	for name, body := range map[string]string{
		"not JSON":       `{"jsonrpc":`,
		"node error":     `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Node is behind"},"id":1}`,
		"no result":      `{"jsonrpc":"2.0","id":1}`,
		"bad blockhash":  `{"jsonrpc":"2.0","result":{"context":{"slot":1},"value":{"blockhash":"0OIl","lastValidBlockHeight":1}},"id":1}`,
		"no last height": `{"jsonrpc":"2.0","result":{"context":{"slot":1},"value":{"blockhash":"` + blockhash + `"}},"id":1}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
			defer srv.Close()
			c := &solanarpc.Client{URL: srv.URL, HTTP: srv.Client()}
			if _, _, err := c.LatestBlockhash(context.Background()); err == nil || !strings.Contains(err.Error(), "getLatestBlockhash") {
				t.Fatalf("got %v", err)
			}
		})
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","result":{"context":{"slot":1},"value":{"data":["AAAA","base64"],"owner":"` + token + `"}},"id":1}`))
	}))
	defer srv.Close()
	c := &solanarpc.Client{URL: srv.URL, HTTP: srv.Client()}
	if _, _, err := c.Mint(context.Background(), mint); err == nil || !strings.Contains(err.Error(), "initialized mint") {
		t.Fatalf("short mint data: %v", err)
	}
}
