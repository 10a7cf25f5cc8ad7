package algorand

import (
	"crypto/sha512"
	"encoding/base32"
	"encoding/base64"
	"strings"

	"github.com/termsgate/termsgate/internal/memo"
)

// An Algorand address is the account's Ed25519 public key followed by the
// last 4 bytes of its SHA-512/256, in base32 without padding: 58
// characters (docs/algorand.md, "Addresses").

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// b32Alphabet is b32's alphabet, RFC 4648's base32.
const b32Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

// AddressLen is the length of an address in characters.
const AddressLen = 58

// Address encodes a public key as its address.
func Address(pub [32]byte) string {
	if s, ok := written.Get(pub); ok {
		return s
	}
	s := writeAddress(pub)
	written.Put(pub, s)
	return s
}

func writeAddress(pub [32]byte) string {
	sum := sha512.Sum512_256(pub[:])
	var raw [36]byte
	copy(raw[:], pub[:])
	copy(raw[32:], sum[28:])
	return b32.EncodeToString(raw[:])
}

// ParseAddress reads an address back to its public key: 58 characters of
// the base32 alphabet (upper case, no padding, zero trailing bits) whose
// checksum matches.
func ParseAddress(s string) ([32]byte, bool) {
	if pub, ok := read.Get(s); ok {
		return pub, true
	}
	pub, ok := readAddress(s)
	if ok {
		read.Put(s, pub)
	}
	return pub, ok
}

// A payment reads its payer's, payee's and fee payer's addresses some ten
// times (the option, the choice, both builds, the signer's summary, the
// decoded group), each a SHA-512/256 checksum; the last ones read and
// written are kept (TestAddressMemoAgrees). Only addresses that read are
// kept.
var (
	read    = memo.New[string, [32]byte](memoSize)
	written = memo.New[[32]byte, string](memoSize)
)

// memoSize bounds a memo: hostile input can name any number of addresses,
// and a full memo is emptied, so it never holds more than this.
const memoSize = 64

func readAddress(s string) ([32]byte, bool) {
	var pub [32]byte
	if len(s) != AddressLen {
		return pub, false
	}
	// One spelling: 58 characters carry 290 bits of which the 36 bytes
	// take 288, so the last character's low 2 bits must be zero (checked
	// on the character rather than by encoding the bytes again).
	raw, ok := decodeAddress32(s)
	if !ok {
		return pub, false
	}
	copy(pub[:], raw[:])
	sum := sha512.Sum512_256(pub[:])
	if string(sum[28:]) != string(raw[32:]) {
		return pub, false
	}
	return pub, true
}

// decodeAddress32 decodes 58 characters of b32Alphabet into the 36 bytes
// they carry, on the stack (addresses are read several times a payment),
// with the last character's 2 spare bits zero.
func decodeAddress32(s string) (raw [36]byte, ok bool) {
	var acc uint64
	bitsIn, n := 0, 0
	for i := 0; i < AddressLen; i++ {
		c := s[i]
		var v byte
		switch {
		case c >= 'A' && c <= 'Z':
			v = c - 'A'
		case c >= '2' && c <= '7':
			v = c - '2' + 26
		default:
			return raw, false
		}
		acc = acc<<5 | uint64(v)
		bitsIn += 5
		if bitsIn >= 8 {
			bitsIn -= 8
			raw[n] = byte(acc >> bitsIn)
			n++
		}
	}
	return raw, bitsIn == 2 && acc&3 == 0
}

// IsNetworkOf reports network == NetworkOf(genesisHash), without writing
// the network's string.
func IsNetworkOf(network string, genesisHash [32]byte) bool {
	ref, ok := strings.CutPrefix(network, NetworkPrefix)
	if !ok || len(ref) != 32 {
		return false
	}
	var b [44]byte
	base64.URLEncoding.Encode(b[:], genesisHash[:])
	return ref == string(b[:32])
}

// IsAddress reports whether v is a string that is an address.
func IsAddress(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	_, ok = ParseAddress(s)
	return ok
}

// NetworkPrefix is the CAIP-2 namespace of Algorand networks.
const NetworkPrefix = "algorand:"

// NetworkOf is the CAIP-2 network of a genesis hash: algorand: and the
// first 32 characters of the hash's URL-safe base64.
func NetworkOf(genesisHash [32]byte) string {
	return NetworkPrefix + base64.URLEncoding.EncodeToString(genesisHash[:])[:32]
}

// IsNetwork reports whether n is algorand: and 32 characters of the
// URL-safe base64 alphabet.
func IsNetwork(n string) bool {
	ref, ok := strings.CutPrefix(n, NetworkPrefix)
	if !ok || len(ref) != 32 {
		return false
	}
	for i := 0; i < len(ref); i++ {
		c := ref[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Networks whose genesis hashes are published
// (https://dev.algorand.co/concepts/protocol/networks/ lists them).
const (
	MainNet = "algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k"
	TestNet = "algorand:SGO1GKSzyE7IEPItTxCByw9x8FmnrCDe"
)

// knownDecimals are Circle's USDC assets on Algorand
// (https://developers.circle.com/stablecoins/usdc-contract-addresses), the
// only assets whose decimals a summary states without asking the chain.
var knownDecimals = map[[2]string]int{
	{MainNet, "31566704"}: 6,
	{TestNet, "10458941"}: 6,
}

// KnownDecimals is the decimals of a known asset on network, else -1.
func KnownDecimals(network, asset string) int {
	if d, ok := knownDecimals[[2]string{network, asset}]; ok {
		return d
	}
	return -1
}
