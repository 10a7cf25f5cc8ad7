package main

import (
	"context"
	"flag"
	"net/http"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/stellar/sorobanrpc"
)

// stellarFlags give the Stellar pairings their buyer inputs from a Soroban
// RPC endpoint.
type stellarFlags struct{ rpc string }

func addStellarFlags(fs *flag.FlagSet) *stellarFlags {
	s := &stellarFlags{}
	fs.StringVar(&s.rpc, "stellar-rpc", "", "a Soroban RPC URL giving Stellar payments their simulated envelope and current ledger (simulateTransaction, getLatestLedger)")
	return s
}

// inputsFor is pay.Transport.InputsFor: nil without --stellar-rpc.
func (s *stellarFlags) inputsFor(hc *http.Client) func(context.Context, string, jsonv.Value, string) (*jsonv.Object, error) {
	if s == nil || s.rpc == "" {
		return nil
	}
	return (&sorobanrpc.Client{URL: s.rpc, HTTP: hc}).InputsFor
}
