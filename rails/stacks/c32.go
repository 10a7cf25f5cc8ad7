package stacks

import (
	"crypto/sha256"

	"github.com/termsgate/termsgate/internal/memo"
)

// c32check addresses: "S", the version's c32 character, and c32 of the
// hash160 followed by a 4-byte double-SHA-256 checksum of version and hash.

const c32Alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// c32Encode writes b as one base-32 number, most significant digit first,
// without leading zero digits, then one '0' for each leading zero byte.
func c32Encode(b []byte) string {
	var buf [64]byte // 24 bytes of an address are 39 digits
	out := buf[:0]
	if len(b)*8/5+2 > len(buf) {
		out = make([]byte, 0, len(b)*8/5+2)
	}
	// Digits from the least significant end, five bits at a time.
	var acc uint32
	bits := 0
	for i := len(b) - 1; i >= 0; i-- {
		acc |= uint32(b[i]) << bits
		bits += 8
		for bits >= 5 {
			out = append(out, c32Alphabet[acc&31])
			acc >>= 5
			bits -= 5
		}
	}
	if bits > 0 {
		out = append(out, c32Alphabet[acc&31])
	}
	for len(out) > 0 && out[len(out)-1] == '0' {
		out = out[:len(out)-1]
	}
	for _, c := range b {
		if c != 0 {
			break
		}
		out = append(out, '0')
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

// c32Digit is a c32 character's value, or -1.
func c32Digit(c byte) int {
	if c < 128 {
		return int(c32Values[c])
	}
	return -1
}

var c32Values = func() (t [128]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(c32Alphabet); i++ {
		t[c32Alphabet[i]] = int8(i)
	}
	return t
}()

func checksum(version byte, h []byte) []byte {
	var pre [21]byte // version and a hash160: no allocation for an address
	m := append(pre[:0], version)
	a := sha256.Sum256(append(m, h...))
	c := sha256.Sum256(a[:])
	return c[:4]
}

// Address writes a standard address.
func Address(version byte, h [20]byte) string {
	k := c32Key{version, h}
	if s, ok := written.Get(k); ok {
		return s
	}
	s := writeAddress(version, h)
	written.Put(k, s)
	return s
}

func writeAddress(version byte, h [20]byte) string {
	return "S" + string(c32Alphabet[version]) + c32Encode(append(append([]byte(nil), h[:]...), checksum(version, h[:])...))
}

// A payment reads and writes the same few addresses (origin, recipient,
// the token contract) some seven times each, every time two double
// SHA-256 checksums; the last ones read and written are kept
// (TestAddressMemoAgrees). Only addresses that read are kept.
type c32Key struct {
	version byte
	h       [20]byte
}

var (
	read    = memo.New[string, c32Key](memoSize)
	written = memo.New[c32Key, string](memoSize)
)

// memoSize bounds a memo: hostile input can name any number of addresses,
// and a full memo is emptied, so it never holds more than this.
const memoSize = 64

// ParseAddress reads a standard address, checksum included, and refuses
// any text that Address would not write back.
func ParseAddress(s string) (version byte, h [20]byte, ok bool) {
	if k, ok := read.Get(s); ok {
		return k.version, k.h, true
	}
	version, h, ok = readAddress(s)
	if ok {
		read.Put(s, c32Key{version, h})
	}
	return version, h, ok
}

func readAddress(s string) (version byte, h [20]byte, ok bool) {
	if len(s) < 5 || len(s) > 48 || s[0] != 'S' {
		return 0, h, false
	}
	v := c32Digit(s[1])
	if v < 0 {
		return 0, h, false
	}
	// The digits as one number of at most 24 bytes, filled from the
	// least significant end.
	var b [24]byte
	var acc uint32
	bits, at := 0, len(b)-1
	for i := len(s) - 1; i >= 2; i-- {
		d := c32Digit(s[i])
		if d < 0 {
			return 0, h, false
		}
		acc |= uint32(d) << bits
		bits += 5
		for bits >= 8 {
			if at < 0 {
				return 0, h, false
			}
			b[at] = byte(acc)
			at--
			acc >>= 8
			bits -= 8
		}
	}
	if acc != 0 && at < 0 {
		return 0, h, false
	}
	if at >= 0 {
		b[at] = byte(acc)
	}
	copy(h[:], b[:20])
	if string(checksum(byte(v), h[:])) != string(b[20:]) || writeAddress(byte(v), h) != s {
		return 0, h, false
	}
	return byte(v), h, true
}
