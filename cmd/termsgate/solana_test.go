package main

import (
	"context"
	"flag"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/termsgate/termsgate/internal/solanaseller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana/solanarpc"
)

// --solana-rpc gives x402/exact/solana its inputs from the node for the
// offer's mint, and leaves every other pairing to the next provider.
func TestSolanaRPCFlag(t *testing.T) {
	node := &solanarpc.Node{Blockhash: solanaseller.Blockhash, LastValid: 1,
		Mints: map[string]solanarpc.NodeMint{solanaseller.Mint: {Owner: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", Decimals: 6}}}
	srv := httptest.NewServer(node)
	defer srv.Close()
	fs := flag.NewFlagSet("pay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s := addSolanaFlags(fs)
	if err := fs.Parse([]string{"--solana-rpc", srv.URL}); err != nil {
		t.Fatal(err)
	}
	nextCalls := 0
	next := func(context.Context, string, jsonv.Value, string) (*jsonv.Object, error) {
		nextCalls++
		return nil, nil
	}
	inputsFor := s.inputsFor(srv.Client(), next)
	option := jsonv.Obj("scheme", "exact", "network", solanaseller.Devnet, "amount", "1000", "asset", solanaseller.Mint, "payTo", solanaseller.PayTo,
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("feePayer", "9hSR6S7WPtxmTojgo6GG3k4yDPecgJY292j7xrsUGWBu"))
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{option}, "extensions", jsonv.Obj("legalContext", jsonv.Obj("info",
		jsonv.Obj("type", "sha256", "value", "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "legalContextUrl", "https://atr.seller.example/x"))))
	in, err := inputsFor(context.Background(), "x402/exact/solana", doc, solanaseller.Devnet+":AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9")
	if err != nil || jsonv.String(in) != `{"decimals":6,"tokenProgram":"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA","recentBlockhash":"`+solanaseller.Blockhash+`"}` {
		t.Fatalf("inputs %s (%v)", jsonv.Marshal(in), err)
	}
	if _, err := inputsFor(context.Background(), "x402/exact/stellar", doc, "stellar:testnet:G"); err != nil || nextCalls != 1 {
		t.Fatalf("another pairing: %v, next called %d times", err, nextCalls)
	}
	// Without the flag, the next provider stands alone.
	if got := (&solanaFlags{}).inputsFor(nil, nil); got != nil {
		t.Fatal("a provider without --solana-rpc")
	}
}
