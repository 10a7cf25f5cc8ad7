package main

import (
	"context"
	"flag"
	"net/http"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/solana/solanarpc"
)

// solanaFlags give the Solana pairings (x402/exact/solana,
// x402/batch-settlement/solana) their buyer inputs from a Solana JSON-RPC
// endpoint.
type solanaFlags struct{ rpc string }

func addSolanaFlags(fs *flag.FlagSet) *solanaFlags {
	s := &solanaFlags{}
	fs.StringVar(&s.rpc, "solana-rpc", "", "a Solana JSON-RPC URL giving Solana payments the mint's decimals and program, a recent blockhash and, for a channel, the opening slot (getAccountInfo, getLatestBlockhash, getSlot)")
	return s
}

// inputsFor is pay.Transport.InputsFor: the Solana pairings' inputs from
// --solana-rpc, every other pairing's from next.
func (s *solanaFlags) inputsFor(hc *http.Client, next func(context.Context, string, jsonv.Value, string) (*jsonv.Object, error)) func(context.Context, string, jsonv.Value, string) (*jsonv.Object, error) {
	if s == nil || s.rpc == "" {
		return next
	}
	c := &solanarpc.Client{URL: s.rpc, HTTP: hc}
	return func(ctx context.Context, pairing string, doc jsonv.Value, account string) (*jsonv.Object, error) {
		switch pairing {
		case solana.ExactID, solana.BatchID:
			return c.InputsFor(ctx, pairing, doc, account)
		case solana.SessionID:
			return c.SessionInputsFor(ctx, pairing, doc, account)
		}
		if next == nil {
			return nil, nil
		}
		return next(ctx, pairing, doc, account)
	}
}
