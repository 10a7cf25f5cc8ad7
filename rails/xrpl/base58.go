package xrpl

import (
	"crypto/sha256"
	"errors"
	"math/big"
)

// alphabet is the XRP Ledger's base58 alphabet (docs/xrpl.md "Addresses"):
// Bitcoin's characters in another order, so that a classic address, whose
// version byte is 0, begins with r.
const alphabet = "rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz"

var alphabetIndex = func() (idx [256]int8) {
	for i := range idx {
		idx[i] = -1
	}
	for i := 0; i < len(alphabet); i++ {
		idx[alphabet[i]] = int8(i)
	}
	return idx
}()

// Base58Encode writes b in the XRPL alphabet; each leading zero byte is one
// leading r.
func Base58Encode(b []byte) string {
	zeros := 0
	for zeros < len(b) && b[zeros] == 0 {
		zeros++
	}
	// Quadratic in len(b), which is at most a few dozen bytes here.
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
		out[i] = alphabet[0]
	}
	for i, d := range digits {
		out[len(out)-1-i] = alphabet[d]
	}
	return string(out)
}

// ErrBase58 is returned for text that is not base58 of the expected size.
var ErrBase58 = errors.New("xrpl: not XRPL base58 of the expected size")

// Base58Decode reads s, refusing it unless it decodes to at most maxBytes.
// Text longer than two characters per byte is refused before any arithmetic,
// so the work is bounded by maxBytes, not by the input.
func Base58Decode(s string, maxBytes int) ([]byte, error) {
	if s == "" || len(s) > 2*maxBytes {
		return nil, ErrBase58
	}
	zeros := 0
	for zeros < len(s) && s[zeros] == alphabet[0] {
		zeros++
	}
	n := new(big.Int)
	fifty8 := big.NewInt(58)
	for i := 0; i < len(s); i++ {
		v := alphabetIndex[s[i]]
		if v < 0 {
			return nil, ErrBase58
		}
		n.Mul(n, fifty8)
		n.Add(n, big.NewInt(int64(v)))
	}
	body := n.Bytes()
	if zeros+len(body) > maxBytes {
		return nil, ErrBase58
	}
	out := make([]byte, zeros+len(body))
	copy(out[zeros:], body)
	return out, nil
}

func checksum(b []byte) [4]byte {
	first := sha256.Sum256(b)
	second := sha256.Sum256(first[:])
	return [4]byte(second[:4])
}

// EncodeChecked writes version ‖ payload ‖ checksum in base58.
func EncodeChecked(version []byte, payload []byte) string {
	b := make([]byte, 0, len(version)+len(payload)+4)
	b = append(b, version...)
	b = append(b, payload...)
	sum := checksum(b)
	return Base58Encode(append(b, sum[:]...))
}

// DecodeChecked reads base58 text that must be version ‖ payloadLen bytes ‖
// a matching checksum, and returns the payload.
func DecodeChecked(s string, version []byte, payloadLen int) ([]byte, error) {
	total := len(version) + payloadLen + 4
	raw, err := Base58Decode(s, total)
	if err != nil || len(raw) != total {
		return nil, ErrBase58
	}
	for i, v := range version {
		if raw[i] != v {
			return nil, ErrBase58
		}
	}
	if checksum(raw[:total-4]) != [4]byte(raw[total-4:]) {
		return nil, ErrBase58
	}
	return raw[len(version) : total-4], nil
}

// AccountID is the 20-byte account identifier a classic address encodes.
type AccountID [20]byte

// Address is the classic address of id: version 0, the id, a checksum.
func (id AccountID) Address() string { return EncodeChecked([]byte{0}, id[:]) }

// ParseAddress reads a classic address (at most 35 characters) and checks
// its version and checksum.
func ParseAddress(s string) (AccountID, error) {
	if len(s) > 35 {
		return AccountID{}, ErrBase58
	}
	p, err := DecodeChecked(s, []byte{0}, 20)
	if err != nil {
		return AccountID{}, err
	}
	return AccountID(p), nil
}

// IsAddressShape is the address regex the pairings filter with before any
// checksum: r and 24 to 34 more base58 characters.
func IsAddressShape(s string) bool {
	if len(s) < 25 || len(s) > 35 || s[0] != 'r' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= '1' && c <= '9' || c >= 'A' && c <= 'H' || c >= 'J' && c <= 'N' || c >= 'P' && c <= 'Z' || c >= 'a' && c <= 'k' || c >= 'm' && c <= 'z') {
			return false
		}
	}
	return true
}
