package xrpl

import (
	"crypto/sha256"
	"errors"

	"github.com/termsgate/termsgate/internal/base58"
	"github.com/termsgate/termsgate/internal/memo"
)

// alphabet is the XRP Ledger's base58 alphabet (docs/xrpl.md "Addresses"):
// Bitcoin's characters in another order, so that a classic address, whose
// version byte is 0, begins with r.
const alphabet = "rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz"

var xrplBase58 = base58.New(alphabet)

// Base58Encode writes b in the XRPL alphabet; each leading zero byte is one
// leading r.
func Base58Encode(b []byte) string { return xrplBase58.Encode(b) }

// ErrBase58 is returned for text that is not base58 of the expected size.
var ErrBase58 = errors.New("xrpl: not XRPL base58 of the expected size")

// Base58Decode reads s, refusing it unless it decodes to at most maxBytes.
// Text longer than two characters per byte is refused before any arithmetic,
// so the work is bounded by maxBytes, not by the input.
func Base58Decode(s string, maxBytes int) ([]byte, error) {
	if s == "" || len(s) > 2*maxBytes {
		return nil, ErrBase58
	}
	out, ok := xrplBase58.Decode(s)
	if !ok || len(out) > maxBytes {
		return nil, ErrBase58
	}
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
func (id AccountID) Address() string {
	if s, ok := written.Get(id); ok {
		return s
	}
	s := EncodeChecked([]byte{0}, id[:])
	written.Put(id, s)
	return s
}

// ParseAddress reads a classic address (at most 35 characters) and checks
// its version and checksum.
func ParseAddress(s string) (AccountID, error) {
	if id, ok := read.Get(s); ok {
		return id, nil
	}
	id, err := readAddress(s)
	if err == nil {
		read.Put(s, id)
	}
	return id, err
}

// A payment reads and writes its payer's and payee's addresses several
// times (the option, the build, the signer's summary, the decoded
// transaction), each a base58 decoding and a double SHA-256; the last
// ones read and written are kept (TestAddressMemoAgrees). Only addresses
// that read are kept.
var (
	read    = memo.New[string, AccountID](memoSize)
	written = memo.New[AccountID, string](memoSize)
)

// memoSize bounds a memo: hostile input can name any number of addresses,
// and a full memo is emptied, so it never holds more than this.
const memoSize = 64

func readAddress(s string) (AccountID, error) {
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
