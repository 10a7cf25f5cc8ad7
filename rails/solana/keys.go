// Package solana holds the Solana pairings and the pieces they share:
// base58 keys, program-derived addresses, and a strict reader and writer of
// wire transactions and v0 messages (docs/solana.md).
//
// Where H goes, per pairing in this package:
//   - x402/exact/solana: the transaction's one Memo instruction, text lcp:sha256:0x<H> (exact.go).
//   - x402/batch-settlement/solana: the one Memo instruction of the channel-opening transaction, text
//     lcp:sha256:0x<H> (batch.go).
//   - mpp/session/solana: the salt of the channel program's open instruction, H's first 8 bytes as a
//     little-endian u64 (session.go).
//   - mpp/charge/solana, mpp/charge/usdc/solana: the request's externalId, lcp:sha256:0x<H>, signed as the
//     transaction's one LCP Memo instruction (charge.go, charge_usdc.go).
//   - x402/upto/solana: the one Memo instruction of the transaction opening a one-request escrow channel,
//     lcp:sha256:0x<H> (upto.go).
//
// The package uses the standard library and filippo.io/edwards25519 (the
// off-curve test of a program-derived address) only: the gate, the paying
// client and the MCP server import every pairing, and a Solana SDK would
// bring its logging, JSON and compression stacks into all of them. The tests
// hold these pieces to github.com/gagliardetto/solana-go.
package solana

import (
	"crypto/sha256"
	"errors"
	"math/big"

	"filippo.io/edwards25519"

	"github.com/termsgate/termsgate/internal/base58"
)

// Key is a 32-byte Solana public key (an account address).
type Key [32]byte

// Base58 encodes b in Bitcoin's base58 alphabet, one '1' per leading zero
// byte, as Solana writes keys and signatures.
func Base58(b []byte) string { return base58.Bitcoin.Encode(b) }

// DecodeBase58 decodes s; ok is false for any character outside the
// alphabet. Callers bound the length of s first: the work is quadratic.
func DecodeBase58(s string) ([]byte, bool) { return base58.Bitcoin.Decode(s) }

// ParseKey reads a base58 key: 32 to 44 characters decoding to 32 bytes.
func ParseKey(s string) (Key, bool) {
	if len(s) < 32 || len(s) > 44 {
		return Key{}, false
	}
	b, ok := DecodeBase58(s)
	if !ok || len(b) != 32 {
		return Key{}, false
	}
	return Key(b), true
}

// MustKey is ParseKey for the package's constant keys.
func MustKey(s string) Key {
	k, ok := ParseKey(s)
	if !ok {
		panic("solana: bad constant key " + s)
	}
	return k
}

func (k Key) String() string { return Base58(k[:]) }

// IsKey reports whether v is a string ParseKey reads.
func IsKey(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	_, ok = ParseKey(s)
	return ok
}

// The programs and sysvars the pairings name.
var (
	SystemProgram       = MustKey("11111111111111111111111111111111")
	ComputeBudget       = MustKey("ComputeBudget111111111111111111111111111111")
	MemoV3              = MustKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")
	MemoV4              = MustKey("Memo4c2pN8afCj432Lb7RMVKi9PbQnnW7ewFFaV3oAH")
	TokenProgram        = MustKey("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")
	Token2022Program    = MustKey("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb")
	AssociatedTokenProg = MustKey("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL")
)

// IsNetwork reports whether s is a Solana CAIP-2 network: "solana:" and 32
// base58 characters (the genesis hash's prefix).
func IsNetwork(s string) bool {
	if len(s) != 39 || s[:7] != "solana:" {
		return false
	}
	for i := 7; i < len(s); i++ {
		if !base58.Bitcoin.Has(s[i]) {
			return false
		}
	}
	return true
}

var errNoPDA = errors.New("solana: no bump gives an address off the curve")

// onCurve reports whether b is a valid Ed25519 point encoding.
func onCurve(b []byte) bool {
	_, err := new(edwards25519.Point).SetBytes(b)
	return err == nil
}

// FindProgramAddress is the program-derived address of seeds under
// program: for bump 255 down to 0, the first SHA-256(seeds ‖ bump ‖
// program ‖ "ProgramDerivedAddress") that is not an Ed25519 point.
func FindProgramAddress(seeds [][]byte, program Key) (Key, uint8, error) {
	for bump := 255; bump >= 0; bump-- {
		h := sha256.New()
		for _, s := range seeds {
			h.Write(s)
		}
		h.Write([]byte{byte(bump)})
		h.Write(program[:])
		h.Write([]byte("ProgramDerivedAddress"))
		var k Key
		h.Sum(k[:0])
		if isOffCurve(k) {
			return k, uint8(bump), nil
		}
	}
	return Key{}, 0, errNoPDA
}

// AssociatedTokenAccount is owner's token account for mint under
// tokenProgram (Token or Token-2022): the PDA of [owner, tokenProgram,
// mint] under the associated-token-account program.
func AssociatedTokenAccount(owner, tokenProgram, mint Key) (Key, error) {
	k, _, err := FindProgramAddress([][]byte{owner[:], tokenProgram[:], mint[:]}, AssociatedTokenProg)
	return k, err
}

var two64 = new(big.Int).Lsh(big.NewInt(1), 64)

// U64 reads a decimal string of 1 to 20 digits below 2^64.
func U64(s string) (uint64, bool) {
	if len(s) < 1 || len(s) > 20 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.Cmp(two64) >= 0 {
		return 0, false
	}
	return n.Uint64(), true
}
