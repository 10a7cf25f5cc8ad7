package stellar

import (
	"encoding/base32"
	"encoding/binary"
	"strings"
)

// Strkeys (SEP-23): base32 without padding of a version byte, the payload
// and a CRC16-XModem checksum of both, little-endian. A strkey is valid only
// in its one canonical spelling: right length, base32 alphabet, the version
// byte expected, the checksum, and no stray bits in the last character
// (checked by encoding the payload again and comparing).

const (
	versionAccount  = 6 << 3  // G…, an Ed25519 public key
	versionSeed     = 18 << 3 // S…, an Ed25519 seed
	versionMuxed    = 12 << 3 // M…, key ‖ id (big-endian)
	versionContract = 2 << 3  // C…, a contract id
)

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// crcTable is CRC16-XModem (polynomial 0x1021, initial 0) by byte.
var crcTable = func() (t [256]uint16) {
	for i := range t {
		crc := uint16(i) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[i] = crc
	}
	return t
}()

func crc16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^c]
	}
	return crc
}

func encodeStrkey(version byte, payload []byte) string {
	raw := make([]byte, 0, 1+len(payload)+2)
	raw = append(raw, version)
	raw = append(raw, payload...)
	raw = binary.LittleEndian.AppendUint16(raw, crc16(raw))
	return b32.EncodeToString(raw)
}

// decodeStrkey returns the payload of s when s is the canonical strkey of
// version with a payload of n bytes.
func decodeStrkey(version byte, n int, s string) ([]byte, bool) {
	if len(s) != b32.EncodedLen(1+n+2) {
		return nil, false
	}
	raw, err := b32.DecodeString(s)
	if err != nil || len(raw) != 1+n+2 || raw[0] != version {
		return nil, false
	}
	if crc16(raw[:1+n]) != binary.LittleEndian.Uint16(raw[1+n:]) {
		return nil, false
	}
	// Canonical: the bits of the last character beyond the data are zero
	// (a 32-byte payload fills its 56 characters exactly; a muxed one leaves
	// one bit). The decoder ignores them, so two spellings would read alike.
	if spare := len(s)*5 - (1+n+2)*8; spare > 0 {
		if v := strings.IndexByte(alphabet, s[len(s)-1]); v < 0 || v&(1<<spare-1) != 0 {
			return nil, false
		}
	}
	return raw[1 : 1+n], true
}

// EncodeAccount is the G… address of an Ed25519 public key.
func EncodeAccount(key [32]byte) string { return encodeStrkey(versionAccount, key[:]) }

// EncodeContract is the C… address of a contract id.
func EncodeContract(id [32]byte) string { return encodeStrkey(versionContract, id[:]) }

// EncodeSeed is the S… secret of an Ed25519 seed.
func EncodeSeed(seed [32]byte) string { return encodeStrkey(versionSeed, seed[:]) }

// EncodeMuxed is the M… address of key with id.
func EncodeMuxed(key [32]byte, id uint64) string {
	return encodeStrkey(versionMuxed, binary.BigEndian.AppendUint64(key[:], id))
}

func decode32(version byte, s string) ([32]byte, bool) {
	var out [32]byte
	p, ok := decodeStrkey(version, 32, s)
	if ok {
		copy(out[:], p)
	}
	return out, ok
}

// DecodeAccount reads a G… address.
func DecodeAccount(s string) ([32]byte, bool) { return decode32(versionAccount, s) }

// DecodeContract reads a C… address.
func DecodeContract(s string) ([32]byte, bool) { return decode32(versionContract, s) }

// DecodeSeed reads an S… secret.
func DecodeSeed(s string) ([32]byte, bool) { return decode32(versionSeed, s) }

// MuxedAddress is an M… address split: the account's key and the id.
type MuxedAddress struct {
	Key [32]byte
	ID  uint64
}

// Base is the G… address the muxed address pays.
func (m MuxedAddress) Base() string { return EncodeAccount(m.Key) }

// DecodeMuxed reads an M… address.
func DecodeMuxed(s string) (MuxedAddress, bool) {
	p, ok := decodeStrkey(versionMuxed, 40, s)
	if !ok {
		return MuxedAddress{}, false
	}
	var m MuxedAddress
	copy(m.Key[:], p[:32])
	m.ID = binary.BigEndian.Uint64(p[32:])
	return m, true
}

// isShaped reports whether s is prefix and then n characters of base32's
// upper-case alphabet: the regex-only check MPP's rail check and the choice
// apply before any checksum.
func isShaped(s string, prefix byte, n int) bool {
	if len(s) != n+1 || s[0] != prefix {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// IsAccountShaped is ^G[A-Z2-7]{55}$.
func IsAccountShaped(s string) bool { return isShaped(s, 'G', 55) }
