// Package evmref computes EIP-712 hashes with go-ethereum's apitypes, the
// reference implementation the tests hold rails/evm's own hashing to. Only
// tests import it: apitypes pulls go-ethereum's core types (and with them
// the KZG, gnark and blst code) into whatever imports it, which a payment
// gate never runs.
package evmref

import (
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/termsgate/termsgate/jsonv"
)

// Hashes returns the domain separator, the message's struct hash and the
// digest of a typed-data object in its JSON request form.
func Hashes(typedData *jsonv.Object) (domainSeparator, structHash, digest [32]byte, err error) {
	var td apitypes.TypedData
	if err = json.Unmarshal(jsonv.Marshal(typedData), &td); err != nil {
		return domainSeparator, structHash, digest, fmt.Errorf("typed data: %w", err)
	}
	domain, err := td.HashStruct("EIP712Domain", td.Domain.Map())
	if err != nil {
		return domainSeparator, structHash, digest, fmt.Errorf("typed data domain: %w", err)
	}
	msg, err := td.HashStruct(td.PrimaryType, td.Message)
	if err != nil {
		return domainSeparator, structHash, digest, fmt.Errorf("typed data message: %w", err)
	}
	copy(domainSeparator[:], domain)
	copy(structHash[:], msg)
	copy(digest[:], crypto.Keccak256([]byte{0x19, 0x01}, domain, msg))
	return domainSeparator, structHash, digest, nil
}
