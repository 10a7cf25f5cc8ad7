package xrpl

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/ripemd160" //lint:ignore SA1019 RIPEMD-160 is what XRPL account ids are made of
)

// SHA512Half is the first 32 bytes of SHA-512, the XRP Ledger's hash.
func SHA512Half(parts ...[]byte) [32]byte {
	h := sha512.New()
	for _, p := range parts {
		h.Write(p)
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// AccountIDOf is the account a 33-byte public key controls:
// RIPEMD-160(SHA-256(key)).
func AccountIDOf(pub []byte) AccountID {
	s := sha256.Sum256(pub)
	r := ripemd160.New()
	r.Write(s[:])
	return AccountID(r.Sum(nil))
}

// Algorithm names a key type.
type Algorithm string

const (
	Ed25519   Algorithm = "ed25519"
	Secp256k1 Algorithm = "secp256k1"
)

// Key is an XRPL signing key.
type Key struct {
	alg Algorithm
	ed  ed25519.PrivateKey
	k1  *secp256k1.PrivateKey
	pub []byte // 33 bytes: 0xED ‖ Ed25519 key, or a compressed secp256k1 point
}

func (k *Key) Algorithm() Algorithm { return k.alg }

// PublicKey is the 33-byte public key as a transaction's SigningPubKey
// carries it.
func (k *Key) PublicKey() []byte { return append([]byte(nil), k.pub...) }

// AccountID is the account the key's public key controls.
func (k *Key) AccountID() AccountID { return AccountIDOf(k.pub) }

// Sign signs msg the XRPL way: Ed25519 over msg itself; secp256k1 ECDSA over
// SHA512Half(msg) with an RFC 6979 nonce, low S, DER-encoded.
func (k *Key) Sign(msg []byte) []byte {
	if k.alg == Ed25519 {
		return ed25519.Sign(k.ed, msg)
	}
	d := SHA512Half(msg)
	return ecdsa.Sign(k.k1, d[:]).Serialize()
}

// Verify checks sig over msg under a 33-byte XRPL public key. A secp256k1
// signature must be DER with low S.
func Verify(pub, msg, sig []byte) bool {
	if len(pub) == 33 && pub[0] == 0xED {
		return len(sig) == ed25519.SignatureSize && ed25519.Verify(ed25519.PublicKey(pub[1:]), msg, sig)
	}
	p, err := secp256k1.ParsePubKey(pub)
	if err != nil || len(pub) != 33 {
		return false
	}
	s, err := ecdsa.ParseDERSignature(sig)
	if err != nil {
		return false
	}
	d := SHA512Half(msg)
	return s.Verify(d[:], p)
}

// KeyFromEntropy derives the key of 16 bytes of seed entropy, as XRPL
// wallets do (docs/xrpl.md "Keys"). Ed25519: the private seed is
// SHA512Half(entropy). secp256k1: the root key is the first valid
// SHA512Half(entropy ‖ seq); the account key (index 0) adds the first valid
// SHA512Half(rootPub ‖ 0 ‖ subseq) modulo the group order.
func KeyFromEntropy(entropy []byte, alg Algorithm) (*Key, error) {
	if len(entropy) != 16 {
		return nil, fmt.Errorf("xrpl: seed entropy is %d bytes, want 16", len(entropy))
	}
	switch alg {
	case Ed25519:
		seed := SHA512Half(entropy)
		priv := ed25519.NewKeyFromSeed(seed[:])
		pub := append([]byte{0xED}, priv.Public().(ed25519.PublicKey)...)
		return &Key{alg: Ed25519, ed: priv, pub: pub}, nil
	case Secp256k1:
		root, err := scalarFrom(func(i uint32) [32]byte {
			return SHA512Half(entropy, binary.BigEndian.AppendUint32(nil, i))
		})
		if err != nil {
			return nil, err
		}
		rootPub := secp256k1.NewPrivateKey(root).PubKey().SerializeCompressed()
		tweak, err := scalarFrom(func(i uint32) [32]byte {
			return SHA512Half(rootPub, []byte{0, 0, 0, 0}, binary.BigEndian.AppendUint32(nil, i))
		})
		if err != nil {
			return nil, err
		}
		var sum secp256k1.ModNScalar
		sum.Add2(root, tweak)
		priv := secp256k1.NewPrivateKey(&sum)
		return &Key{alg: Secp256k1, k1: priv, pub: priv.PubKey().SerializeCompressed()}, nil
	}
	return nil, fmt.Errorf("xrpl: unknown key algorithm %q", alg)
}

// scalarFrom returns the first candidate that is a valid private scalar
// (non-zero, below the group order).
func scalarFrom(candidate func(uint32) [32]byte) (*secp256k1.ModNScalar, error) {
	for i := uint32(0); i < 1<<16; i++ {
		c := candidate(i)
		var s secp256k1.ModNScalar
		if overflow := s.SetBytes(&c); overflow == 0 && !s.IsZero() {
			return &s, nil
		}
	}
	return nil, errors.New("xrpl: no valid secp256k1 scalar")
}

// Seed versions: a family seed ("s…", secp256k1 unless told otherwise) and
// an Ed25519 seed ("sEd…").
var (
	seedVersion        = []byte{0x21}
	seedVersionEd25519 = []byte{0x01, 0xE1, 0x4B}
)

// ParseSeed reads an XRPL seed: "sEd…" is Ed25519 entropy; any other "s…"
// family seed is secp256k1 entropy, as wallets read it.
func ParseSeed(s string) (entropy []byte, alg Algorithm, err error) {
	if e, err := DecodeChecked(s, seedVersionEd25519, 16); err == nil {
		return e, Ed25519, nil
	}
	if e, err := DecodeChecked(s, seedVersion, 16); err == nil {
		return e, Secp256k1, nil
	}
	return nil, "", errors.New("xrpl: not an XRPL seed (s… family seed or sEd… Ed25519 seed with a valid checksum)")
}

// EncodeSeed writes entropy as a seed for alg.
func EncodeSeed(entropy []byte, alg Algorithm) string {
	if alg == Ed25519 {
		return EncodeChecked(seedVersionEd25519, entropy)
	}
	return EncodeChecked(seedVersion, entropy)
}
