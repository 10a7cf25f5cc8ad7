package stacks

import (
	"crypto/sha256"
	"math/big"
	"strings"
)

// c32check addresses: "S", the version's c32 character, and c32 of the
// hash160 followed by a 4-byte double-SHA-256 checksum of version and hash.

const c32Alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

func c32Encode(b []byte) string {
	n := new(big.Int).SetBytes(b)
	var out []byte
	base := big.NewInt(32)
	mod := new(big.Int)
	for n.Sign() > 0 {
		n.DivMod(n, base, mod)
		out = append(out, c32Alphabet[mod.Int64()])
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

func checksum(version byte, h []byte) []byte {
	a := sha256.Sum256(append([]byte{version}, h...))
	c := sha256.Sum256(a[:])
	return c[:4]
}

// Address writes a standard address.
func Address(version byte, h [20]byte) string {
	return "S" + string(c32Alphabet[version]) + c32Encode(append(append([]byte(nil), h[:]...), checksum(version, h[:])...))
}

// ParseAddress reads a standard address, checksum included, and refuses
// any text that Address would not write back.
func ParseAddress(s string) (version byte, h [20]byte, ok bool) {
	if len(s) < 5 || len(s) > 48 || s[0] != 'S' {
		return 0, h, false
	}
	v := strings.IndexByte(c32Alphabet, s[1])
	if v < 0 {
		return 0, h, false
	}
	n := new(big.Int)
	for i := 2; i < len(s); i++ {
		d := strings.IndexByte(c32Alphabet, s[i])
		if d < 0 {
			return 0, h, false
		}
		n.Lsh(n, 5).Or(n, big.NewInt(int64(d)))
	}
	if n.BitLen() > 24*8 {
		return 0, h, false
	}
	b := n.FillBytes(make([]byte, 24))
	copy(h[:], b[:20])
	if string(checksum(byte(v), h[:])) != string(b[20:]) || Address(byte(v), h) != s {
		return 0, h, false
	}
	return byte(v), h, true
}
