package mpp

import "testing"

// The other rails' challenges name a network by one methodDetails member;
// nothing else of their request is read, and they offer no pairing here.
func TestNetworkOfTheOtherRails(t *testing.T) {
	for _, c := range []struct {
		method, details, want, code string
	}{
		{"solana", `{"network":"devnet"}`, "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", ""},
		{"solana", `{}`, "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", ""},
		{"solana", `{"network":"localnet"}`, "", CodeSVMNetworkUndeclared},
		{"solana", `{"network":"testnet"}`, "", CodeSVMNetworkMalformed},
		{"solana", `{"network":1}`, "", CodeSVMNetworkMalformed},
		{"xrpl", `{"network":"mainnet"}`, "xrpl:0", ""},
		{"xrpl", `{"network":"devnet"}`, "xrpl:2", ""},
		{"xrpl", `{}`, "", CodeXRPLNetworkMissing},
		{"xrpl", `{"network":"xrpl:1"}`, "", CodeXRPLNetworkMalformed},
		{"hedera", `{"chainId":295}`, "hedera:mainnet", ""},
		{"hedera", `{"chainId":"296"}`, "", CodeHederaChainIDUnnamed},
		{"hedera", `{"chainId":297}`, "", CodeHederaChainIDUnnamed},
		{"hedera", `{}`, "", CodeHederaChainIDUnnamed},
		{"stellar", `{"network":"stellar:pubnet"}`, "stellar:pubnet", ""},
		{"stellar", `{"network":"stellar:futurenet"}`, "", CodeStellarOptionMalformed},
		{"nearintents", `{"originNetwork":"near:mainnet"}`, "near:mainnet", ""},
		{"nearintents", `{"originNetwork":"Arbitrum"}`, "", CodeRequestMalformed},
	} {
		ch := issued(c.method, "charge", `{"methodDetails":`+c.details+`}`)
		n, err := Network(ch)
		if n != c.want || code(err) != c.code {
			t.Errorf("%s %s: %q (%v)", c.method, c.details, n, err)
		}
		if _, err := PairingsOf(ch); c.method != "xrpl" && c.method != "stellar" && c.method != "solana" && c.method != "hedera" && c.method != "nearintents" && code(err) != CodeNotThisPairing { // xrpl, stellar, solana, hedera, nearintents: their own checks, methods_xrpl.go, methods_stellar.go, methods_solana_charge.go, methods_hedera.go, methods_nearintents.go
			t.Errorf("%s offers a pairing: %v", c.method, err)
		}
	}
	// The shared checks still run first.
	noExpiry := issued("xrpl", "charge", `{"methodDetails":{"network":"testnet"}}`)
	noExpiry.Delete("expires")
	if _, err := Network(noExpiry); code(err) != CodeExpiresRequired {
		t.Errorf("no expiry: %v", err)
	}
	if _, err := Network(issued("xrpl", "charge", `{"methodDetails":[]}`)); code(err) != CodeRequestMalformed {
		t.Errorf("methodDetails a list: %v", err)
	}
	// A Solana session must name its network; localnet names none.
	for details, want := range map[string]string{`{}`: CodeSVMNetworkMalformed, `{"network":"localnet"}`: CodeSVMNetworkUndeclared} {
		if _, err := Network(issued("solana", "session", `{"methodDetails":`+details+`}`)); code(err) != want {
			t.Errorf("a Solana session with %s: %v", details, err)
		}
	}
}
