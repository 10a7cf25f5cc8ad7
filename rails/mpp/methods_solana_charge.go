package mpp

import (
	"github.com/termsgate/termsgate/jsonv"
)

// PairingSolanaCharge is MPP's Solana charge (rails/solana/charge.go).
const PairingSolanaCharge = "mpp/charge/solana"

// MaxExternalIDBytes bounds a Solana charge's externalId: the most a memo
// the request asks for may hold (docs/solana.md, "MPP charge").
const MaxExternalIDBytes = 566

func init() { methodChecks["charge/solana"] = solanaCharge }

// isU64Positive is a decimal string of a value from 1 to 2^64-1.
func isU64Positive(v jsonv.Value) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	n, ok := Uint256(s)
	return ok && n.Sign() > 0 && n.Cmp(twoTo64) < 0
}

// SolanaChargeNetwork is the CAIP-2 network of a Solana charge's details:
// network one of MPP Solana's three names, mainnet when absent unless
// required (svm/network-malformed); localnet names none
// (svm/network-undeclared).
func SolanaChargeNetwork(details *jsonv.Object, required bool) (string, error) {
	if required && !details.Has("network") {
		return "", refuse(CodeSVMNetworkMalformed)
	}
	return solanaChargeNetwork(details)
}

// SolanaChargeRequest is the Solana charge request's check, which the
// solana method and usdc's Solana profile (details its own object, network
// required) share: the network (localnet passes here and is refused by the
// build), then amount a positive u64, currency "sol" or a key, recipient a
// key, externalId absent or a string of at most 566 bytes, feePayer a
// boolean where present and, when true, feePayerKey a key
// (mpp/request-malformed).
func SolanaChargeRequest(r, d *jsonv.Object, networkRequired bool) error {
	if n, _ := d.Get("network"); n != "localnet" {
		if _, err := SolanaChargeNetwork(d, networkRequired); err != nil {
			return err
		}
	}
	currency, _ := r.Get("currency")
	if !isU64Positive(member(r, "amount")) || !(currency == "sol" || isSolanaKey(currency)) || !isSolanaKey(member(r, "recipient")) {
		return refuse(CodeRequestMalformed)
	}
	if x, has := r.Get("externalId"); has {
		if s, ok := x.(string); !ok || len(s) > MaxExternalIDBytes {
			return refuse(CodeRequestMalformed)
		}
	}
	fp, has := d.Get("feePayer")
	if has && fp != true && fp != false {
		return refuse(CodeRequestMalformed)
	}
	if fp == true && !isSolanaKey(member(d, "feePayerKey")) {
		return refuse(CodeRequestMalformed)
	}
	return nil
}

func solanaCharge(r, d *jsonv.Object) ([]string, error) {
	if err := SolanaChargeRequest(r, d, false); err != nil {
		return nil, err
	}
	return []string{PairingSolanaCharge}, nil
}
