package signer

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/near"
)

// NearDevSeed is the payer seed of the shared NEAR vectors (01×32), whose
// implicit account pays the NEAR demo and tests. It is public: never hold
// value with it.
const NearDevSeed = "0101010101010101010101010101010101010101010101010101010101010101"

// Near signs near-delegate requests with one Ed25519 key held in memory,
// for its implicit account (the key's 32 bytes in hex) or a named account
// the key is an access key of.
type Near struct {
	key     ed25519.PrivateKey
	account string
	network string
}

// NewNear returns a signer for the Ed25519 seed on network (near:mainnet
// or near:testnet); account "" is the key's implicit account.
func NewNear(seed [32]byte, network, account string) (*Near, error) {
	if !near.IsNetwork(network) {
		return nil, fmt.Errorf("signer: %q is not a NEAR network (near:mainnet, near:testnet)", network)
	}
	key := ed25519.NewKeyFromSeed(seed[:])
	if account == "" {
		account = hex.EncodeToString(key.Public().(ed25519.PublicKey))
	}
	if !near.IsAccountID(account) {
		return nil, fmt.Errorf("signer: %q is not a NEAR account id", account)
	}
	return &Near{key: key, account: account, network: network}, nil
}

// NearFromSeed reads a seed as 64 hex digits, with or without 0x.
func NearFromSeed(seed, network, account string) (*Near, error) {
	raw, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(seed), "0x"))
	if err != nil || len(raw) != 32 {
		return nil, errors.New("signer: a NEAR key is a 32-byte Ed25519 seed in hex")
	}
	return NewNear([32]byte(raw), network, account)
}

// Account is the CAIP-10 account, near:<network>:<account id>.
func (n *Near) Account() string { return n.network + ":" + n.account }

// PublicKey is the key as NEAR writes it, ed25519:<base58>.
func (n *Near) PublicKey() string {
	return near.PublicKey{Type: near.KeyEd25519, Data: n.key.Public().(ed25519.PublicKey)}.String()
}

// Sign signs a near-delegate request: Ed25519 over its hash, after reading
// the delegate action it is the hash of and refusing one of another
// network, sender or key.
func (n *Near) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if kind, _ := req.GetString("kind"); kind != near.KindDelegate {
		return nil, fmt.Errorf("signer: the NEAR key does not sign %q requests", kind)
	}
	d, network, h, err := near.RequestAction(req)
	if err != nil {
		return nil, fmt.Errorf("signer: near-delegate: %w", err)
	}
	if network != n.network {
		return nil, fmt.Errorf("signer: the delegate action is for %s, this key signs on %s", network, n.network)
	}
	if d.SenderID != n.account || d.PublicKey.String() != n.PublicKey() {
		return nil, fmt.Errorf("signer: the delegate action is %s's with key %s, not this key's (%s, %s)", d.SenderID, d.PublicKey, n.account, n.PublicKey())
	}
	return jsonv.Obj("keyType", near.KeyEd25519, "bytes", "0x"+hex.EncodeToString(ed25519.Sign(n.key, h[:]))), nil
}
