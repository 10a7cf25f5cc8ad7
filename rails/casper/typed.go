package casper

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"strings"
	"sync"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/sha3"

	"github.com/termsgate/termsgate/internal/memo"
)

// CEP-3009's typed data is EIP-712's encoding
// (https://eips.ethereum.org/EIPS/eip-712) with a Casper domain, as
// casper-eip-712 hashes it (https://github.com/mssteuer/casper-eip-712):
// the domain names the chainspec and the token's contract package hash,
// and an address (33 bytes, tag and hash) is encoded as its keccak256,
// since it does not fit EIP-712's 20-byte address word.

const (
	domainType   = "EIP712Domain(string name,string version,string chain_name,bytes32 contract_package_hash)"
	transferType = "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
)

var (
	// DomainTypeHash is keccak256 of the Casper EIP712Domain type.
	DomainTypeHash = keccak([]byte(domainType))
	// TransferTypeHash is keccak256 of TransferWithAuthorization's type.
	TransferTypeHash = keccak([]byte(transferType))
)

// keccakStates are reused: a state is 200 bytes and more, allocated at
// every hash otherwise.
var keccakStates = sync.Pool{New: func() any { return sha3.NewLegacyKeccak256() }}

func keccak(parts ...[]byte) [32]byte {
	h := keccakStates.Get().(hash.Hash)
	h.Reset()
	for _, p := range parts {
		h.Write(p)
	}
	var out [32]byte
	h.Sum(out[:0])
	keccakStates.Put(h)
	return out
}

// DomainSeparator is hashStruct of the authorization's domain. A payment
// hashes it three times (build, the signer's check, the gate's rebuild), and
// a buyer pays few tokens, so the last ones are kept (domains, 4 of the 8
// keccak256 of a digest).
func (a *Authorization) DomainSeparator() [32]byte {
	key := domainKey{a.Name, a.Version, a.ChainName, a.ContractPackageHash}
	if d, ok := domains.Get(key); ok {
		return d
	}
	n, v, c := keccak([]byte(a.Name)), keccak([]byte(a.Version)), keccak([]byte(a.ChainName))
	d := keccak(DomainTypeHash[:], n[:], v[:], c[:], a.ContractPackageHash[:])
	domains.Put(key, d)
	return d
}

type domainKey struct {
	name, version, chain string
	pkg                  [32]byte
}

var (
	domains = memo.New[domainKey, [32]byte](memoSize)
	words   = memo.New[string, [32]byte](memoSize)
)

// addressWord is an address's EIP-712 word: keccak256 of its 33 bytes. The
// payer's and payee's words repeat from payment to payment, so they are
// kept as the domains are.
func addressWord(s string) [32]byte {
	if len(s) != 66 {
		b, _ := hex.DecodeString(s)
		return keccak(b)
	}
	if w, ok := words.Get(s); ok {
		return w
	}
	var b [33]byte
	n, _ := hex.Decode(b[:], []byte(s))
	w := keccak(b[:n])
	words.Put(s, w)
	return w
}

// memoSize bounds each memo: hostile requests and payments can name any
// number of domains and addresses (internal/memo empties a full one).
const memoSize = 64

// StructHash is hashStruct of the TransferWithAuthorization message.
func (a *Authorization) StructHash() [32]byte {
	w := a.structWords()
	return keccak(TransferTypeHash[:], w[:])
}

// structWords are the message's six EIP-712 words, hashStruct's preimage
// after the type hash.
func (a *Authorization) structWords() (w [6 * 32]byte) {
	f, t := addressWord(a.From), addressWord(a.To)
	copy(w[0:], f[:])
	copy(w[32:], t[:])
	a.Value.FillBytes(w[64:96])
	a.ValidAfter.FillBytes(w[96:128])
	a.ValidBefore.FillBytes(w[128:160])
	copy(w[160:], a.Nonce[:])
	return w
}

type digestKey struct {
	domain [32]byte
	words  [6 * 32]byte
}

var digests = memo.New[digestKey, [32]byte](memoSize)

// Digest is the EIP-712 hash the payer's key signs:
// keccak256(0x19 0x01 ‖ domain separator ‖ struct hash). One payment's
// digest is computed three times over the same words (build, the signer's
// check, the gate's rebuild), so the last ones are kept, keyed by the
// whole preimage.
func (a *Authorization) Digest() [32]byte {
	key := digestKey{a.DomainSeparator(), a.structWords()}
	if d, ok := digests.Get(key); ok {
		return d
	}
	s := keccak(TransferTypeHash[:], key.words[:])
	d := keccak([]byte{0x19, 0x01}, key.domain[:], s[:])
	digests.Put(key, d)
	return d
}

// PublicKey is a Casper public key: its tag (TagEd25519 or TagSecp256k1)
// and its bytes (32, or 33 compressed).
type PublicKey struct {
	Tag  byte
	Data []byte
}

var errKey = errors.New("casper: a public key is 01 and 32 bytes of Ed25519, or 02 and 33 bytes of compressed secp256k1, in hex")

// ParsePublicKey reads a tagged public key in hex.
func ParsePublicKey(s string) (PublicKey, error) {
	raw, err := hex.DecodeString(s)
	if err != nil || len(raw) < 1 {
		return PublicKey{}, errKey
	}
	k := PublicKey{Tag: raw[0], Data: raw[1:]}
	switch {
	case k.Tag == TagEd25519 && len(k.Data) == ed25519.PublicKeySize:
	case k.Tag == TagSecp256k1 && len(k.Data) == 33:
		if _, err := secp256k1.ParsePubKey(k.Data); err != nil {
			return PublicKey{}, errKey
		}
	default:
		return PublicKey{}, errKey
	}
	return k, nil
}

// String is the key as tagged lowercase hex.
func (k PublicKey) String() string { return hex.EncodeToString(append([]byte{k.Tag}, k.Data...)) }

// AccountHash is Casper's account hash of the key: BLAKE2b-256 of the
// algorithm's name, a zero byte and the key's bytes.
func (k PublicKey) AccountHash() [32]byte {
	name := "ed25519"
	if k.Tag == TagSecp256k1 {
		name = "secp256k1"
	}
	buf := make([]byte, 0, len(name)+1+len(k.Data))
	buf = append(append(append(buf, name...), 0), k.Data...)
	return blake2b.Sum256(buf)
}

// AccountAddress is the key's CEP-18 address: 00 and its account hash.
func (k PublicKey) AccountAddress() string {
	h := k.AccountHash()
	return "00" + hex.EncodeToString(h[:])
}

// IsAccount reports address (66 hex digits, either case) as the key's
// CEP-18 address: tag 00 and its account hash.
func (k PublicKey) IsAccount(address string) bool {
	var b [33]byte
	if len(address) != 66 {
		return false
	}
	if _, err := hex.Decode(b[:], []byte(address)); err != nil || b[0] != 0 {
		return false
	}
	return [32]byte(b[1:]) == k.AccountHash()
}

// Verify checks a tagged signature (hex) of msg under the key: Ed25519
// over msg, or secp256k1 ECDSA (64 bytes r ‖ s, low s) over SHA-256 of msg,
// as Casper's keys verify.
func (k PublicKey) Verify(msg []byte, signature string) bool {
	var raw [65]byte
	if len(signature) != 130 {
		return false
	}
	if _, err := hex.Decode(raw[:], []byte(signature)); err != nil || raw[0] != k.Tag {
		return false
	}
	sig := raw[1:]
	switch k.Tag {
	case TagEd25519:
		return ed25519.Verify(k.Data, msg, sig)
	case TagSecp256k1:
		pub, err := secp256k1.ParsePubKey(k.Data)
		if err != nil {
			return false
		}
		var r, s secp256k1.ModNScalar
		if r.SetByteSlice(sig[:32]) || s.SetByteSlice(sig[32:]) || r.IsZero() || s.IsZero() || s.IsOverHalfOrder() {
			return false
		}
		h := sha256.Sum256(msg)
		return ecdsa.NewSignature(&r, &s).Verify(h[:], pub)
	}
	return false
}

// hexLower is s in lowercase, for comparing hex spellings.
func hexLower(s string) string { return strings.ToLower(s) }
