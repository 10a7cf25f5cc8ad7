package signer

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/stellar"
)

// StellarDevSeed is the payer seed of the shared Stellar vectors (05×32),
// account GBXHUHG5FGYLPD6RHL2MKWMP572O6KUXCZXDZJXS4T57ZTMAKBN7DWXN. It is
// public: never hold value with it.
const StellarDevSeed = "0505050505050505050505050505050505050505050505050505050505050505"

// Stellar signs stellar-auth requests with one Ed25519 key held in memory.
type Stellar struct {
	key     ed25519.PrivateKey
	address string // G…
	network string
}

// NewStellar returns a signer for the Ed25519 seed on network
// (stellar:pubnet or stellar:testnet).
func NewStellar(seed [32]byte, network string) (*Stellar, error) {
	if _, ok := stellar.NetworkID(network); !ok {
		return nil, fmt.Errorf("signer: %q is not a Stellar network (stellar:pubnet or stellar:testnet)", network)
	}
	key := ed25519.NewKeyFromSeed(seed[:])
	var pub [32]byte
	copy(pub[:], key.Public().(ed25519.PublicKey))
	return &Stellar{key: key, address: stellar.EncodeAccount(pub), network: network}, nil
}

// StellarFromSecret reads a Stellar secret, S… (56 characters), or a seed
// as 64 hex digits with or without 0x (the vectors' published seeds).
func StellarFromSecret(secret, network string) (*Stellar, error) {
	secret = strings.TrimSpace(secret)
	if seed, ok := stellar.DecodeSeed(secret); ok {
		return NewStellar(seed, network)
	}
	raw, err := hex.DecodeString(strings.TrimPrefix(secret, "0x"))
	if err != nil || len(raw) != 32 {
		if strings.HasPrefix(secret, "S") {
			return nil, errors.New("signer: the Stellar secret is not a valid S… strkey (length, alphabet or checksum)")
		}
		return nil, errors.New("signer: a Stellar key is an S… secret or a 32-byte seed in hex")
	}
	return NewStellar([32]byte(raw), network)
}

// StellarFromFile reads a file holding one Stellar secret (S… or hex seed).
func StellarFromFile(path, network string) (*Stellar, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	return StellarFromSecret(string(b), network)
}

// Account is the CAIP-10 account, stellar:<network>:G….
func (s *Stellar) Account() string { return s.network + ":" + s.address }

// Address is the key's G… address.
func (s *Stellar) Address() string { return s.address }

// Sign signs a stellar-auth request: Ed25519 over SHA-256 of the preimage.
// It first reads the preimage and refuses one for another network or
// another payer, or one that is not a single transfer: it signs only what
// it can state.
func (s *Stellar) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if kind, _ := req.GetString("kind"); kind != stellar.KindAuth {
		return nil, fmt.Errorf("signer: the Stellar key does not sign %q requests", kind)
	}
	text, _ := req.GetString("preimage")
	p, ok := mpp.HexBytes(text, 1, stellar.MaxPreimageBytes)
	if !ok {
		return nil, errors.New("signer: stellar-auth preimage is not 0x hex of at most 6144 bytes")
	}
	a, err := stellar.ReadPreimage(p)
	if err != nil {
		return nil, fmt.Errorf("signer: stellar-auth preimage: %w", err)
	}
	if a.Network != s.network {
		return nil, fmt.Errorf("signer: the authorization is for %s, this key signs on %s", a.Network, s.network)
	}
	if a.From != s.address {
		return nil, fmt.Errorf("signer: the authorization moves funds of %s, not of this key (%s)", a.From, s.address)
	}
	digest := sha256.Sum256(p)
	return "0x" + hex.EncodeToString(ed25519.Sign(s.key, digest[:])), nil
}
