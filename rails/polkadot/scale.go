package polkadot

import (
	"encoding/binary"
	"math/big"
	"math/bits"

	"golang.org/x/crypto/blake2b"

	"github.com/termsgate/termsgate/internal/base58"
	"github.com/termsgate/termsgate/internal/memo"
)

// The few SCALE forms this pairing reads and writes
// (https://docs.polkadot.com/polkadot-protocol/parachain-basics/data-encoding/):
// compact integers in their shortest mode only, so that one value has one
// encoding and a re-encoded call is byte-equal to the one signed.

// AppendCompact appends v as a SCALE Compact in its shortest mode.
func AppendCompact(b []byte, v uint64) []byte {
	switch {
	case v < 1<<6:
		return append(b, byte(v<<2))
	case v < 1<<14:
		x := uint16(v<<2 | 1)
		return append(b, byte(x), byte(x>>8))
	case v < 1<<30:
		x := uint32(v<<2 | 2)
		return binary.LittleEndian.AppendUint32(b, x)
	}
	n := (bits.Len64(v) + 7) / 8
	b = append(b, byte((n-4)<<2|3))
	for i := 0; i < n; i++ {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

// AppendCompactBig appends a value below 2^128 as a SCALE Compact.
func AppendCompactBig(b []byte, v *big.Int) []byte {
	if v.IsUint64() {
		return AppendCompact(b, v.Uint64())
	}
	le := v.Bytes() // big-endian, no leading zeros
	b = append(b, byte((len(le)-4)<<2|3))
	for i := len(le) - 1; i >= 0; i-- {
		b = append(b, le[i])
	}
	return b
}

// Compact reads a canonical Compact of at most 16 bytes at b[at:]: its
// value and the index after it; ok false for a short input, a value in a
// longer mode than it needs, or more than 128 bits.
func Compact(b []byte, at int) (v *big.Int, next int, ok bool) {
	if at < 0 || at >= len(b) {
		return nil, 0, false
	}
	first := b[at]
	switch first & 3 {
	case 0:
		return big.NewInt(int64(first >> 2)), at + 1, true
	case 1:
		if at+2 > len(b) {
			return nil, 0, false
		}
		x := uint64(binary.LittleEndian.Uint16(b[at:])) >> 2
		if x < 1<<6 {
			return nil, 0, false
		}
		return new(big.Int).SetUint64(x), at + 2, true
	case 2:
		if at+4 > len(b) {
			return nil, 0, false
		}
		x := uint64(binary.LittleEndian.Uint32(b[at:])) >> 2
		if x < 1<<14 {
			return nil, 0, false
		}
		return new(big.Int).SetUint64(x), at + 4, true
	}
	n := int(first>>2) + 4
	if n > 16 || at+1+n > len(b) || b[at+n] == 0 {
		return nil, 0, false // beyond u128, short, or a zero top byte (a shorter form exists)
	}
	be := make([]byte, n)
	for i := 0; i < n; i++ {
		be[n-1-i] = b[at+1+i]
	}
	v = new(big.Int).SetBytes(be)
	if v.BitLen() <= 30 {
		return nil, 0, false
	}
	return v, at + 1 + n, true
}

// compactU64 reads a canonical Compact that fits limit bits.
func compactU64(b []byte, at int, limit uint) (uint64, int, bool) {
	v, next, ok := Compact(b, at)
	if !ok || uint(v.BitLen()) > limit {
		return 0, 0, false
	}
	return v.Uint64(), next, true
}

// Blake2b256 is BLAKE2b with a 32-byte digest, the hash of extrinsics,
// blocks and Remarked events.
func Blake2b256(b []byte) [32]byte { return blake2b.Sum256(b) }

var b58 = base58.New("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")

// SS58 prefixes of the networks the pairing pays on
// (https://github.com/paritytech/ss58-registry): 0 for Polkadot, 42 for
// the generic Substrate form Westend uses.
const (
	PrefixPolkadot = 0
	PrefixGeneric  = 42
)

// MaxAddressChars bounds an SS58 address as read.
const MaxAddressChars = 64

// DecodeSS58 reads a simple-format SS58 address (one prefix byte 0–63, a
// 32-byte account, two checksum bytes of BLAKE2b-512 over "SS58PRE",
// prefix and account): the account and the prefix.
func DecodeSS58(s string) (account [32]byte, prefix byte, ok bool) {
	if s == "" || len(s) > MaxAddressChars {
		return account, 0, false
	}
	// A payment reads the payee's and payer's addresses a dozen times
	// (each check of the option, the build, the request, the read-back):
	// the last ones read are kept.
	if a, ok := decoded.Get(s); ok {
		return a.account, a.prefix, true
	}
	account, prefix, ok = decodeSS58(s)
	if ok {
		decoded.Put(s, ss58{account, prefix})
	}
	return account, prefix, ok
}

func decodeSS58(s string) (account [32]byte, prefix byte, ok bool) {
	raw, ok := b58.Decode(s)
	if !ok || len(raw) != 35 || raw[0] > 63 {
		return account, 0, false
	}
	sum := ss58Sum(raw[:33])
	if sum[0] != raw[33] || sum[1] != raw[34] {
		return account, 0, false
	}
	copy(account[:], raw[1:33])
	return account, raw[0], true
}

// EncodeSS58 writes account in the simple format under prefix (0–63).
func EncodeSS58(account [32]byte, prefix byte) string {
	a := ss58{account, prefix & 63}
	if s, ok := encoded.Get(a); ok {
		return s
	}
	s := encodeSS58(account, prefix)
	encoded.Put(a, s)
	return s
}

type ss58 struct {
	account [32]byte
	prefix  byte
}

var (
	decoded = memo.New[string, ss58](memoSize)
	encoded = memo.New[ss58, string](memoSize)
)

// memoSize bounds a memo: hostile input can name any number of addresses,
// and a full memo is emptied, so it never holds more than this.
const memoSize = 64

func encodeSS58(account [32]byte, prefix byte) string {
	raw := make([]byte, 0, 35)
	raw = append(raw, prefix&63)
	raw = append(raw, account[:]...)
	sum := ss58Sum(raw)
	return b58.Encode(append(raw, sum[0], sum[1]))
}

func ss58Sum(payload []byte) [64]byte {
	h, _ := blake2b.New512(nil)
	h.Write([]byte("SS58PRE"))
	h.Write(payload)
	var out [64]byte
	copy(out[:], h.Sum(nil))
	return out
}
