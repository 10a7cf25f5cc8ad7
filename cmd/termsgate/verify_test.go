package main

import (
	"strings"
	"testing"
)

// --verify-settlement needs the chain's RPC, and a chain it can read: the
// usage error comes before anything is fetched or signed.
func TestPayVerifySettlementNeedsRPC(t *testing.T) {
	for _, c := range []struct{ network, want string }{
		{"xrpl:1", "--xrpl-rpc"},
		{"stellar:testnet", "--stellar-rpc"},
		{"eip155:84532", "--rpc"},
		{"solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", "--solana-rpc"},
		{"near:testnet", "none of them"},
	} {
		code, _, errs := runCLI(t, "", "pay", "--dev-key", "--network", c.network, "--max-amount", "1", "--verify-settlement",
			"https://api.seller.example/v1/report")
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Fatalf("%s: exit %d, %s", c.network, code, errs)
		}
	}
}
