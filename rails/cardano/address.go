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

func polymod(values []byte) uint32 {
	gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := uint32(1)
	for _, v := range values {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ uint32(v)
		for i := 0; i < 5; i++ {
			if (top>>i)&1 == 1 {
				chk ^= gen[i]
			}
		}
	}
	return chk
}

func hrpExpand(hrp string) []byte {
	out := make([]byte, 0, 2*len(hrp)+1)
	for i := 0; i < len(hrp); i++ {
		out = append(out, hrp[i]>>5)
	}
	out = append(out, 0)
	for i := 0; i < len(hrp); i++ {
		out = append(out, hrp[i]&31)
	}
	return out
}

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
	words := make([]byte, 0, len(s)-pos-1)
	for i := pos + 1; i < len(s); i++ {
		c := strings.IndexByte(charset, s[i])
		if c < 0 {
			return "", nil, errAddress
		}
		words = append(words, byte(c))
	}
	if polymod(append(hrpExpand(hrp), words...)) != 1 {
		return "", nil, errAddress
	}
	data, ok := convertBits(words[:len(words)-6], 5, 8, false)
	if !ok {
		return "", nil, errAddress
	}
	return hrp, data, nil
}

func bech32Encode(hrp string, data []byte) string {
	words, _ := convertBits(data, 8, 5, true)
	values := append(hrpExpand(hrp), words...)
	mod := polymod(append(values, 0, 0, 0, 0, 0, 0)) ^ 1
	var b strings.Builder
	b.WriteString(hrp)
	b.WriteByte('1')
	for _, w := range words {
		b.WriteByte(charset[w])
	}
	for i := 0; i < 6; i++ {
		b.WriteByte(charset[(mod>>(5*(5-i)))&31])
	}
	return b.String()
}

// convertBits regroups bits; without pad, leftover bits must be fewer than
// from and zero.
func convertBits(in []byte, from, to uint, pad bool) ([]byte, bool) {
	var acc, bits uint
	out := make([]byte, 0, len(in)*int(from)/int(to)+1)
	maxv := uint(1)<<to - 1
	for _, v := range in {
		acc = acc<<from | uint(v)
		bits += from
		for bits >= to {
			bits -= to
			out = append(out, byte(acc>>bits&maxv))
		}
	}
	if pad {
		if bits > 0 {
			out = append(out, byte(acc<<(to-bits)&maxv))
		}
	} else if bits >= from || acc<<(to-bits)&maxv != 0 {
		return nil, false
	}
	return out, true
}
