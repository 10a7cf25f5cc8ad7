// Package solana holds the Solana pairings and the pieces they share:
// base58 keys, program-derived addresses, and a strict reader and writer of
// wire transactions and v0 messages (docs/solana.md).
//
// Where H goes, per pairing in this package:
//   - x402/exact/solana: the transaction's one Memo instruction, text lcp:sha256:0x<H> (exact.go).
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
)

// Key is a 32-byte Solana public key (an account address).
type Key [32]byte

const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

var alphabetIndex = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = int8(i)
	}
	return t
}()

// Base58 encodes b in Bitcoin's base58 alphabet, one '1' per leading zero
// byte, as Solana writes keys and signatures.
func Base58(b []byte) string {
	zeros := 0
	for zeros < len(b) && b[zeros] == 0 {
		zeros++
	}
	// log(256)/log(58) < 1.366: enough digits for any input.
	digits := make([]byte, 0, len(b)*138/100+1)
	for _, c := range b[zeros:] {
		carry := int(c)
		for i := range digits {
			carry += int(digits[i]) << 8
			digits[i] = byte(carry % 58)
			carry /= 58
		}
		for carry > 0 {
			digits = append(digits, byte(carry%58))
			carry /= 58
		}
	}
	out := make([]byte, zeros+len(digits))
	for i := 0; i < zeros; i++ {
		out[i] = '1'
	}
	for i, d := range digits {
		out[len(out)-1-i] = alphabet[d]
	}
	return string(out)
}

// DecodeBase58 decodes s; ok is false for any character outside the
// alphabet. Callers bound the length of s first: the work is quadratic.
func DecodeBase58(s string) ([]byte, bool) {
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	bytes := make([]byte, 0, len(s)*733/1000+1)
	for i := zeros; i < len(s); i++ {
		v := alphabetIndex[s[i]]
		if v < 0 {
			return nil, false
		}
		carry := int(v)
		for j := range bytes {
			carry += int(bytes[j]) * 58
			bytes[j] = byte(carry)
			carry >>= 8
		}
		for carry > 0 {
			bytes = append(bytes, byte(carry))
			carry >>= 8
		}
	}
	out := make([]byte, zeros+len(bytes))
	for i, b := range bytes {
		out[len(out)-1-i] = b
	}
	return out, true
}

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
		if alphabetIndex[s[i]] < 0 {
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
		if !onCurve(k[:]) {
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
