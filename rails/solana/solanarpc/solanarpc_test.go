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

func TestInputsForTheOffer(t *testing.T) {
	node := &solanarpc.Node{Blockhash: blockhash, LastValid: 1, Mints: map[string]solanarpc.NodeMint{mint: {Owner: token, Decimals: 6}}}
	srv := httptest.NewServer(node)
	defer srv.Close()
	c := &solanarpc.Client{URL: srv.URL, HTTP: srv.Client()}
	doc, _ := jsonv.Parse([]byte(`{"x402Version":2,"accepts":[{"scheme":"exact","network":"solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1","amount":"1000","asset":"` + mint +
		`","payTo":"2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4","maxTimeoutSeconds":60,"extra":{"feePayer":"9hSR6S7WPtxmTojgo6GG3k4yDPecgJY292j7xrsUGWBu"}}],` +
		`"extensions":{"legalContext":{"info":{"type":"sha256","value":"0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad","legalContextUrl":"https://atr.seller.example/x"}}}}`))
	account := "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1:AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9"
	in, err := c.InputsFor(context.Background(), "x402/exact/solana", doc, account)
	if err != nil || in == nil {
		t.Fatalf("%v %v", in, err)
	}
	if d, _ := in.Get("decimals"); d != jsonv.Number(6) {
		t.Fatalf("inputs %s", jsonv.Marshal(in))
	}
	// Another pairing, another network: none, and the node is not asked.
	calls := node.Calls.Load()
	for _, c2 := range [][2]string{{"x402/exact/eip155/eip3009", account}, {"x402/exact/solana", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9"}} {
		if in, err := c.InputsFor(context.Background(), c2[0], doc, c2[1]); in != nil || err != nil {
			t.Fatalf("%v: %v %v", c2, in, err)
		}
	}
	if node.Calls.Load() != calls {
		t.Fatal("the node was asked for an offer it has no inputs for")
	}
}

// x402/batch-settlement/solana's inputs: the mint's program, the slot and
// a blockhash, three calls; the account's key authorizes the vouchers.
func TestBatchInputsFromANode(t *testing.T) {
	node := &solanarpc.Node{Slot: 341000000, Blockhash: blockhash, LastValid: 1, Mints: map[string]solanarpc.NodeMint{mint: {Owner: token, Decimals: 6}}}
	srv := httptest.NewServer(node)
	defer srv.Close()
	c := &solanarpc.Client{URL: srv.URL, HTTP: srv.Client()}
	doc, _ := jsonv.Parse([]byte(`{"x402Version":2,"accepts":[{"scheme":"batch-settlement","network":"solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1","amount":"1000","asset":"` + mint +
		`","payTo":"2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4","maxTimeoutSeconds":300,"extra":{"feePayer":"9hSR6S7WPtxmTojgo6GG3k4yDPecgJY292j7xrsUGWBu","withdrawDelay":3600,"tokenProgram":"` + token + `"}}],` +
		`"extensions":{"legalContext":{"info":{"type":"sha256","value":"0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad","legalContextUrl":"https://atr.seller.example/x"}}}}`))
	account := "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1:AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9"
	in, err := c.InputsFor(context.Background(), "x402/batch-settlement/solana", doc, account)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"payerAuthorizer":"AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9","openSlot":"341000000","tokenProgram":"` + token + `","recentBlockhash":"` + blockhash + `"}`
	if got := jsonv.String(in); got != want || node.Calls.Load() != 3 {
		t.Fatalf("inputs %s after %d calls", got, node.Calls.Load())
	}
	// The exact pairing does not read a batch option.
	if in, err := c.InputsFor(context.Background(), "x402/exact/solana", doc, account); in != nil || err != nil {
		t.Fatalf("exact on a batch offer: %v %v", in, err)
	}
	// getSlot's answer must be a slot.
	for _, body := range []string{`{"jsonrpc":"2.0","result":-1,"id":1}`, `{"jsonrpc":"2.0","result":"341000000","id":1}`,
		`{"jsonrpc":"2.0","result":9007199254740993,"id":1}`, `{"jsonrpc":"2.0","result":1.5,"id":1}`} {
		bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
		c := &solanarpc.Client{URL: bad.URL, HTTP: bad.Client()}
		if _, err := c.Slot(context.Background()); err == nil || !strings.Contains(err.Error(), "getSlot") {
			t.Fatalf("%s: %v", body, err)
		}
		bad.Close()
	}
}
