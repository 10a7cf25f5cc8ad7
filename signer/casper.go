package signer

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/casper"
)

// CasperDevSeed is termsgate's published Casper development seed (09×32),
// an Ed25519 key: the payer of the Casper demo and tests. It is public:
// never hold value with it.
const CasperDevSeed = "0909090909090909090909090909090909090909090909090909090909090909"

// CasperChain is what the Casper signer asks its node before it signs:
// the chainspec name the node runs (info_get_status), so that a key never
// signs typed data for a chain other than the node's. rails/casper/casperrpc's
// Client is one.
type CasperChain interface {
	ChainspecName(ctx context.Context) (string, error)
}

// Casper signs casper-eip712 requests with one key held in memory, Ed25519
// or secp256k1 (Casper's two key types), for the key's account (00 and its
// account hash).
type Casper struct {
	ed      ed25519.PrivateKey
	secp    *secp256k1.PrivateKey
	public  casper.PublicKey
	network string
	node    CasperChain
	// The key's tagged hex and account address, written once rather than
	// at every signature (a BLAKE2b and two hex encodings each).
	publicHex, address string
}

// NewCasperEd25519 returns a signer for the Ed25519 seed on network
// (casper:<chainspec name>). node, when not nil, is asked for its
// chainspec name before every signature.
func NewCasperEd25519(seed [32]byte, network string, node CasperChain) (*Casper, error) {
	if !casper.IsNetwork(network) {
		return nil, fmt.Errorf("signer: %q is not a Casper network (casper:<chainspec name>)", network)
	}
	key := ed25519.NewKeyFromSeed(seed[:])
	return newCasper(&Casper{ed: key, public: casper.PublicKey{Tag: casper.TagEd25519, Data: key.Public().(ed25519.PublicKey)},
		network: network, node: node}), nil
}

// NewCasperSecp256k1 returns a signer for a 32-byte secp256k1 secret.
func NewCasperSecp256k1(secret []byte, network string, node CasperChain) (*Casper, error) {
	if !casper.IsNetwork(network) {
		return nil, fmt.Errorf("signer: %q is not a Casper network (casper:<chainspec name>)", network)
	}
	var s secp256k1.ModNScalar
	if len(secret) != 32 || s.SetByteSlice(secret) || s.IsZero() {
		return nil, errors.New("signer: the Casper key is not a secp256k1 scalar")
	}
	key := secp256k1.NewPrivateKey(&s)
	return newCasper(&Casper{secp: key, public: casper.PublicKey{Tag: casper.TagSecp256k1, Data: key.PubKey().SerializeCompressed()},
		network: network, node: node}), nil
}

func newCasper(c *Casper) *Casper {
	c.publicHex, c.address = c.public.String(), c.public.AccountAddress()
	return c
}

// CasperFromSeed reads an Ed25519 seed as 64 hex digits, with or without 0x.
func CasperFromSeed(seed, network string, node CasperChain) (*Casper, error) {
	raw, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(seed), "0x"))
	if err != nil || len(raw) != 32 {
		return nil, errors.New("signer: a Casper Ed25519 key is a 32-byte seed in hex")
	}
	return NewCasperEd25519([32]byte(raw), network, node)
}

// CasperFromLocal is the Casper secp256k1 signer of a Local's key (a hex
// key, a keystore file): the keystore serves Casper's secp256k1 accounts.
func CasperFromLocal(l *Local, network string, node CasperChain) (*Casper, error) {
	return NewCasperSecp256k1(crypto.FromECDSA(l.key), network, node)
}

// Account is the CAIP-10 account, casper:<chainspec>:<00 + account hash>.
func (c *Casper) Account() string { return c.network + ":" + c.address }

// PublicKey is the key as Casper writes it, tagged hex.
func (c *Casper) PublicKey() casper.PublicKey { return c.public }

// SignDigest is the key's tagged signature of a 32-byte digest: Ed25519
// over it, or secp256k1 ECDSA (low s, r ‖ s) over its SHA-256.
func (c *Casper) SignDigest(digest []byte) string {
	var sig []byte
	if c.ed != nil {
		sig = ed25519.Sign(c.ed, digest)
	} else {
		h := sha256.Sum256(digest)
		sig = ecdsa.SignCompact(c.secp, h[:], true)[1:] // drop the recovery byte: Casper's signature is r ‖ s
	}
	return hex.EncodeToString(append([]byte{c.public.Tag}, sig...))
}

// Sign signs a casper-eip712 request after reading its typed data (and
// that its digest is the typed data's) and refusing one for another
// network, another payer, or a chain its node does not run.
func (c *Casper) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if kind, _ := req.GetString("kind"); kind != casper.KindEIP712 {
		return nil, fmt.Errorf("signer: the Casper key does not sign %q requests", kind)
	}
	a, err := casper.RequestAuthorization(req)
	if err != nil {
		return nil, fmt.Errorf("signer: casper-eip712: %w", err)
	}
	if a.ChainName != c.network {
		return nil, fmt.Errorf("signer: the authorization is for %s, this key signs on %s", a.ChainName, c.network)
	}
	if !strings.EqualFold(a.From, c.address) {
		return nil, fmt.Errorf("signer: the authorization moves %s's tokens, not this key's account (%s)", a.From, c.address)
	}
	if c.node != nil {
		name, err := c.node.ChainspecName(ctx)
		if err != nil {
			return nil, fmt.Errorf("signer: casper: the node's chainspec: %w", err)
		}
		if "casper:"+name != c.network {
			return nil, fmt.Errorf("signer: the node runs casper:%s, not %s", name, c.network)
		}
	}
	d := a.Digest()
	return jsonv.Obj("publicKey", c.publicHex, "signature", c.SignDigest(d[:])), nil
}
