// Package stellar is the Stellar rail: the pairings x402/exact/stellar and
// mpp/charge/stellar, a buyer's Soroban authorization of one SEP-41 token
// transfer.
//
// Where H goes: the payee is a muxed account (an M… address) whose 64-bit id
// is the first 8 bytes of H read big-endian. The payer signs an
// authorization of transfer(from, to, amount) whose to is that muxed
// address, and the token's transfer event carries the id on chain, so a
// holder of the ATR can recompute it. Only 8 bytes of H are signed: whoever
// assembles an ATR can find a second one with the same id, so these pairings
// bind H weakly (docs/stellar.md says more).
//
// The envelope the buyer signs comes from a Soroban simulation the buyer asks
// for (Inputs: simulatedXdr and currentLedger); the build reads it with the
// checks of envelope.go, and signs only the authorization entry of the payer,
// never the transaction.
package stellar

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/termsgate/termsgate/atr"
)

// Refusal codes of the Stellar rail, as the reference names them.
const (
	CodeNetworkMalformed = "stellar/network-malformed"
	CodeTxMalformed      = "stellar/tx-malformed"
	CodeTxTooLarge       = "stellar/tx-too-large"
	CodeNotOneTransfer   = "stellar/not-one-transfer"
	CodeNoAddressAuth    = "stellar/no-address-auth"
	CodeCarrierMismatch  = "stellar/carrier-mismatch"
	CodeAssetMismatch    = "stellar/asset-mismatch"
	CodeAmountMismatch   = "stellar/amount-mismatch"
	CodePayerMismatch    = "stellar/payer-mismatch"
	CodeNoCarrier        = "stellar/no-carrier"
	CodeCarrierOccupied  = "stellar/carrier-occupied"
	CodeOptionMalformed  = "stellar/option-malformed"
	CodeReadFirst        = "stellar/read-first"
)

// KindAuth is the signing request of both pairings: {kind: "stellar-auth",
// preimage: "0x…"}. The signer signs SHA-256(preimage) with the payer's
// Ed25519 key and answers "0x" and the 64-byte signature in hex.
const KindAuth = "stellar-auth"

// The two networks, by their CAIP-2 ids.
const (
	Pubnet  = "stellar:pubnet"
	Testnet = "stellar:testnet"
)

var passphrases = map[string]string{
	Pubnet:  "Public Global Stellar Network ; September 2015",
	Testnet: "Test SDF Network ; September 2015",
}

// NetworkID is SHA-256 of the network's passphrase, what every Stellar
// signature commits to.
func NetworkID(network string) ([32]byte, bool) {
	p, ok := passphrases[network]
	if !ok {
		return [32]byte{}, false
	}
	return sha256.Sum256([]byte(p)), true
}

// NetworkOfID is the network whose id is id.
func NetworkOfID(id [32]byte) (string, bool) {
	for n := range passphrases {
		if nid, _ := NetworkID(n); nid == id {
			return n, true
		}
	}
	return "", false
}

// MuxedID is the carrier: H's first 8 bytes, big-endian.
func MuxedID(h atr.Hash) uint64 { return binary.BigEndian.Uint64(h[:8]) }

// Muxed is the seller's placement: the muxed address of the account g with
// the id of h. An address already muxed is stellar/carrier-occupied; one
// that is not an account is stellar/option-malformed.
func Muxed(g string, h atr.Hash) (string, error) {
	if _, ok := DecodeMuxed(g); ok {
		return "", refuse(CodeCarrierOccupied)
	}
	key, ok := DecodeAccount(g)
	if !ok {
		return "", refuse(CodeOptionMalformed)
	}
	return EncodeMuxed(key, MuxedID(h)), nil
}

// carries reports whether m is a valid muxed address whose id is h's.
func carries(m string, h atr.Hash) bool {
	mx, ok := DecodeMuxed(m)
	return ok && mx.ID == MuxedID(h)
}
