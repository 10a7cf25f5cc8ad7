package mpp

// The network a challenge of a rail termsgate builds no pairing for yet
// (Solana, XRPL, Hedera, Stellar, NEAR Intents) names: only the member of
// methodDetails each method's draft names its network by, mapped to CAIP-2.
// Such a challenge still offers no pairing here (PairingsOf refuses it); the
// rest of its request is that rail's check, which comes with its pairings.
// Reading the network alone is enough to say where a challenge pays, which
// is all Network answers.

import (
	"regexp"

	"github.com/termsgate/termsgate/jsonv"
)

// The network codes of those rails, as the reference names them.
const (
	CodeSVMNetworkMalformed    = "svm/network-malformed"
	CodeSVMNetworkUndeclared   = "svm/network-undeclared"
	CodeXRPLNetworkMissing     = "xrpl/network-missing"
	CodeXRPLNetworkMalformed   = "xrpl/network-malformed"
	CodeHederaChainIDUnnamed   = "hedera/chain-id-unnamed"
	CodeStellarOptionMalformed = "stellar/option-malformed"
)

// railNetworks read methodDetails for the rails' charges.
var railNetworks = map[string]func(details *jsonv.Object) (string, error){
	"charge/solana":      solanaChargeNetwork,
	"charge/xrpl":        xrplNetwork,
	"session/xrpl":       xrplNetwork,
	"charge/hedera":      hederaChargeNetwork,
	"charge/stellar":     stellarNetwork,
	"charge/nearintents": nearIntentsNetwork,
}

// MPP Solana's network names. localnet has no CAIP-2 id, so a challenge on
// it names no network anyone else can read.
var solanaNetworks = map[string]string{
	"mainnet": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
	"devnet":  "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
}

// solanaChargeNetwork: methodDetails.network, mainnet when absent (the
// Solana draft's default for a charge).
func solanaChargeNetwork(d *jsonv.Object) (string, error) {
	v, has := d.Get("network")
	if !has {
		return solanaNetworks["mainnet"], nil
	}
	if v == "localnet" {
		return "", refuse(CodeSVMNetworkUndeclared)
	}
	name, _ := v.(string)
	n, ok := solanaNetworks[name]
	if !ok {
		return "", refuse(CodeSVMNetworkMalformed)
	}
	return n, nil
}

// MPP XRPL's network names.
var xrplNetworks = map[string]string{"mainnet": "xrpl:0", "testnet": "xrpl:1", "devnet": "xrpl:2"}

// xrplNetwork: methodDetails.network, which has no default.
func xrplNetwork(d *jsonv.Object) (string, error) {
	v, has := d.Get("network")
	if !has {
		return "", refuse(CodeXRPLNetworkMissing)
	}
	name, _ := v.(string)
	n, ok := xrplNetworks[name]
	if !ok {
		return "", refuse(CodeXRPLNetworkMalformed)
	}
	return n, nil
}

// hederaChargeNetwork: methodDetails.chainId, 295 (mainnet) or 296
// (testnet), the EIP-155 ids MPP's Hedera draft names; no default.
func hederaChargeNetwork(d *jsonv.Object) (string, error) {
	switch v, _ := d.Get("chainId"); v {
	case jsonv.Number(295):
		return "hedera:mainnet", nil
	case jsonv.Number(296):
		return "hedera:testnet", nil
	}
	return "", refuse(CodeHederaChainIDUnnamed)
}

// stellarNetwork: methodDetails.network, already a CAIP-2 id, one of the two
// Stellar networks.
func stellarNetwork(d *jsonv.Object) (string, error) {
	n, _ := d.GetString("network")
	if n != "stellar:pubnet" && n != "stellar:testnet" {
		return "", refuse(CodeStellarOptionMalformed)
	}
	return n, nil
}

var caip2 = regexp.MustCompile(`^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$`)

// nearIntentsNetwork: methodDetails.originNetwork, the CAIP-2 network the
// buyer deposits on (the destination is the solver's side).
func nearIntentsNetwork(d *jsonv.Object) (string, error) {
	n, _ := d.GetString("originNetwork")
	if !caip2.MatchString(n) {
		return "", refuse(CodeRequestMalformed)
	}
	return n, nil
}
