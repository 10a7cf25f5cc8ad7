// Package evm holds the EVM pairings and their EIP-712 pieces.
//
// Where H goes, per pairing in this package:
//   - x402/exact/eip155/eip3009: the EIP-3009 TransferWithAuthorization nonce (exact_eip3009.go).
//   - x402/exact/eip155/permit2: the Permit2 PermitWitnessTransferFrom nonce (exact_permit2.go).
//   - x402/upto/eip155/permit2: the same nonce, through the upto proxy (upto_permit2.go).
//   - x402/auth-capture/eip155/eip3009: the escrow PaymentInfo's salt, to which the ReceiveWithAuthorization nonce commits (auth_capture_eip3009.go).
//   - x402/auth-capture/eip155/permit2: the same salt, through a Permit2 PermitTransferFrom nonce (auth_capture_permit2.go).
//   - x402/exact/eip155/erc7710-salt: the salt of the permission context's leaf delegation (erc7710_salt.go).
//   - x402/exact/eip155/erc7710: only the echoed extensions.legalContext; no public proof (erc7710.go).
package evm

import (
	"encoding/hex"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// IsAddress reports whether s is 0x and 40 hex digits (no checksum check:
// addresses are echoed exactly as the seller wrote them).
func IsAddress(s string) bool { return rails.IsHex(s, 40) }

var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// IsUint256Decimal reports whether s is a decimal string of a value < 2^256.
func IsUint256Decimal(s string) bool {
	if !rails.IsDecimal(s) {
		return false
	}
	if len(s) <= 77 {
		return true // below 10^77, which is below 2^256: no big.Int needed
	}
	n, ok := new(big.Int).SetString(s, 10)
	return ok && n.Cmp(maxUint256) <= 0
}

// HexBytes decodes 0x-prefixed hex with an even number of digits.
func HexBytes(s string) ([]byte, bool) {
	if len(s) < 2 || s[0] != '0' || s[1] != 'x' || len(s)%2 != 0 {
		return nil, false
	}
	b, err := hex.DecodeString(s[2:])
	return b, err == nil
}

// TypedDataDigest is the EIP-712 digest of a typed-data object in its JSON
// request form ({domain, types, primaryType, message}; chainId a JSON number,
// integers as decimal strings, bytes as 0x hex).
func TypedDataDigest(typedData *jsonv.Object) ([32]byte, error) {
	p, err := typedDataHashes(typedData)
	return p.Digest, err
}

// TypedDataParts are the hashes EIP-712 combines into the digest.
type TypedDataParts struct {
	DomainSeparator, StructHash, Digest [32]byte
}

// TypedDataHashes computes the domain separator, the message's struct hash
// and the digest keccak256(0x1901 ‖ domainSeparator ‖ structHash).
func TypedDataHashes(typedData *jsonv.Object) (TypedDataParts, error) {
	return typedDataHashes(typedData)
}

// Recover returns the address whose key made sig (65 bytes r‖s‖v, v 27/28
// as the vectors and wallets write it) over digest.
func Recover(digest [32]byte, sig []byte) (common.Address, error) {
	if len(sig) != 65 {
		return common.Address{}, errors.New("signature is not 65 bytes")
	}
	s := append([]byte(nil), sig...)
	if s[64] >= 27 {
		s[64] -= 27 // go-ethereum wants v as 0/1
	}
	pub, err := crypto.SigToPub(digest[:], s)
	if err != nil {
		return common.Address{}, err
	}
	return crypto.PubkeyToAddress(*pub), nil
}

func field(name, typ string) *jsonv.Object { return jsonv.Obj("name", name, "type", typ) }

// eip712DomainType is the four-field domain every pairing here signs under.
func eip712DomainType() []jsonv.Value {
	return []jsonv.Value{
		field("name", "string"), field("version", "string"),
		field("chainId", "uint256"), field("verifyingContract", "address"),
	}
}
