package cardano

import (
	"errors"
	"strings"

	"golang.org/x/crypto/blake2b"
)

// Shelley addresses (CIP-19, https://cips.cardano.org/cip/CIP-0019): a
// header byte (the address type in the high nibble, the network id in the
// low one) and the credentials, written in bech32 (not bech32m) with the
// prefix addr on mainnet and addr_test on the test networks.

// Address is a Shelley address's bytes.
type Address []byte

// Address types the pairing reads (CIP-19's header nibble).
const (
	TypeBase       = 0 // payment key hash, stake key hash
	TypeEnterprise = 6 // payment key hash only
)

// MaxAddressChars bounds an address as text; a base address is 103
// characters of addr_test.
const MaxAddressChars = 128

var errAddress = errors.New("cardano: not a Shelley address")

// ParseAddress reads a bech32 Shelley address of a key-hash payment
// credential (types 0 to 7 whose payment part is a key hash: 0, 2, 4 and 6)
// or a script (1, 3, 5, 7), lowercase, its prefix agreeing with its network id.
func ParseAddress(s string) (Address, error) {
	if len(s) > MaxAddressChars || strings.ToLower(s) != s {
		return nil, errAddress
	}
	hrp, data, err := bech32Decode(s)
	if err != nil || len(data) < 29 {
		return nil, errAddress
	}
	typ, net := data[0]>>4, data[0]&15
	if typ > 7 || net > 1 || hrp != addressPrefix(net) {
		return nil, errAddress
	}
	want := 29 // type 6, 7: header and a 28-byte payment credential
	switch typ {
	case 0, 1, 2, 3:
		want = 57
	case 4, 5:
		// a pointer address: header, credential and three variable-length
		// numbers; at least one byte each
		if len(data) < 32 || len(data) > 29+3*10 {
			return nil, errAddress
		}
		want = len(data)
	}
	if len(data) != want {
		return nil, errAddress
	}
	return Address(data), nil
}

func addressPrefix(networkID byte) string {
	if networkID == 1 {
		return "addr"
	}
	return "addr_test"
}

// String is the address in bech32.
func (a Address) String() string {
	if len(a) == 0 {
		return ""
	}
	return bech32Encode(addressPrefix(a[0]&15), a)
}

// NetworkID is the header's network id: 1 on mainnet, 0 on the test networks.
func (a Address) NetworkID() byte { return a[0] & 15 }

// PaymentKeyHash is the 28-byte payment credential when it is a key hash
// (the address type is even), else nil.
func (a Address) PaymentKeyHash() []byte {
	if len(a) < 29 || (a[0]>>4)&1 != 0 || a[0]>>4 > 7 {
		return nil
	}
	return a[1:29]
}

// KeyHash is a verification key's hash, Blake2b-224 of its 32 bytes.
func KeyHash(vkey []byte) []byte {
	h, _ := blake2b.New(28, nil)
	h.Write(vkey)
	return h.Sum(nil)
}

// EnterpriseAddress is the enterprise address (no stake part) of an Ed25519
// verification key on networkID.
func EnterpriseAddress(vkey []byte, networkID byte) Address {
	return append(Address{TypeEnterprise<<4 | networkID&15}, KeyHash(vkey)...)
}

// bech32 (BIP-173) without its 90-character limit, which Cardano's
// addresses exceed.

const charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// charValue maps a byte to its 5-bit value in charset, 0xff for a byte not
// in it: a table rather than strings.IndexByte per character, since a
// payment reads its option's payTo and the payer several times.
var charValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i := 0; i < len(charset); i++ {
		t[charset[i]] = byte(i)
	}
	return t
}()

// polymodStep folds one 5-bit value into BIP-173's checksum, so that the
// checksum is taken as the text is read instead of over a copy of it.
func polymodStep(chk uint32, v byte) uint32 {
	top := chk >> 25
	chk = (chk&0x1ffffff)<<5 ^ uint32(v)
	for i, g := range [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3} {
		if (top>>i)&1 == 1 {
			chk ^= g
		}
	}
	return chk
}

// hrpChecksum is the checksum state after BIP-173's expansion of hrp.
func hrpChecksum(hrp string) uint32 {
	chk := uint32(1)
	for i := 0; i < len(hrp); i++ {
		chk = polymodStep(chk, hrp[i]>>5)
	}
	chk = polymodStep(chk, 0)
	for i := 0; i < len(hrp); i++ {
		chk = polymodStep(chk, hrp[i]&31)
	}
	return chk
}

// bech32Decode reads hrp, the data part regrouped into bytes (leftover
// bits fewer than 5 and zero) and checks the checksum, in one pass and one
// allocation.
func bech32Decode(s string) (string, []byte, error) {
	pos := strings.LastIndexByte(s, '1')
	if pos < 1 || pos+7 > len(s) {
		return "", nil, errAddress
	}
	hrp := s[:pos]
	for i := 0; i < len(hrp); i++ {
		if hrp[i] < 33 || hrp[i] > 126 {
			return "", nil, errAddress
		}
	}
	chk := hrpChecksum(hrp)
	end := len(s) - 6 // the checksum's six characters
	data := make([]byte, 0, (end-pos-1)*5/8)
	var acc, bits uint
	for i := pos + 1; i < len(s); i++ {
		c := charValue[s[i]]
		if c == 0xff {
			return "", nil, errAddress
		}
		chk = polymodStep(chk, c)
		if i < end {
			acc = acc<<5 | uint(c)
			bits += 5
			if bits >= 8 {
				bits -= 8
				data = append(data, byte(acc>>bits))
			}
		}
	}
	if chk != 1 || bits >= 5 || acc<<(8-bits)&0xff != 0 {
		return "", nil, errAddress
	}
	return hrp, data, nil
}

// bech32Encode writes hrp, 1, data in 5-bit groups (the last padded with
// zeros) and the checksum, into one buffer.
func bech32Encode(hrp string, data []byte) string {
	var b strings.Builder
	b.Grow(len(hrp) + 1 + (len(data)*8+4)/5 + 6)
	b.WriteString(hrp)
	b.WriteByte('1')
	chk := hrpChecksum(hrp)
	var acc, bits uint
	for _, v := range data {
		acc = acc<<8 | uint(v)
		bits += 8
		for bits >= 5 {
			bits -= 5
			w := byte(acc >> bits & 31)
			chk = polymodStep(chk, w)
			b.WriteByte(charset[w])
		}
	}
	if bits > 0 {
		w := byte(acc << (5 - bits) & 31)
		chk = polymodStep(chk, w)
		b.WriteByte(charset[w])
	}
	for range 6 {
		chk = polymodStep(chk, 0)
	}
	mod := chk ^ 1
	for i := 0; i < 6; i++ {
		b.WriteByte(charset[(mod>>(5*(5-i)))&31])
	}
	return b.String()
}
