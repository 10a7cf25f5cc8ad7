package atr

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
)

// Hash is H: SHA-256 over the ATR's bytes exactly as received.
type Hash [32]byte

// Sum returns SHA-256 of b. The bytes are hashed as given: never parsed,
// decoded or normalised, since any re-serialisation would change H.
func Sum(b []byte) Hash { return sha256.Sum256(b) }

// ParseHash reads "0x" followed by exactly 64 hex digits in either case. The
// error says what is wrong so that a caller can pass it on to a person.
func ParseHash(s string) (Hash, error) {
	var h Hash
	if len(s) < 2 || s[0] != '0' || s[1] != 'x' {
		return h, errors.New(`atr: hash must start with "0x" (lowercase x)`)
	}
	digits := s[2:]
	if len(digits) != 64 {
		return h, fmt.Errorf("atr: hash must have 64 hex digits after 0x, has %d characters", len(digits))
	}
	for i := 0; i < len(digits); i++ {
		if !isHex(digits[i]) {
			return h, fmt.Errorf("atr: hash has a non-hex character at position %d", i+2)
		}
	}
	// Decoded from the string itself: hex.Decode wants a []byte, and the
	// copy of 64 digits went to the heap on every read (twice a payment).
	for i := range h {
		h[i] = nibble(digits[2*i])<<4 | nibble(digits[2*i+1])
	}
	return h, nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// nibble is the value of a hex digit isHex accepted.
func nibble(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// String writes the one form the gate emits: "0x" and 64 lowercase hex digits.
func (h Hash) String() string {
	var b [66]byte
	b[0], b[1] = '0', 'x'
	hex.Encode(b[2:], h[:])
	return string(b[:])
}

// Equal compares in constant time, so that how long a comparison takes says
// nothing about where two hashes differ.
func (h Hash) Equal(o Hash) bool { return subtle.ConstantTimeCompare(h[:], o[:]) == 1 }

// MarshalText writes String's form, so a Hash is a JSON string.
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText accepts what ParseHash accepts.
func (h *Hash) UnmarshalText(b []byte) error {
	v, err := ParseHash(string(b))
	if err != nil {
		return err
	}
	*h = v
	return nil
}

// EqualText is upstream's hashEquals with one side already decoded: the
// advertised text must be "0x" and 64 hex digits in either case, and is equal
// when its 32 bytes equal h's (compared in constant time). Anything malformed
// is unequal, never an error, because a malformed advertised hash is a
// mismatch, not a reason to stop differently.
func EqualText(advertised string, h Hash) bool {
	a, err := ParseHash(advertised)
	if err != nil {
		return false
	}
	return a.Equal(h)
}
