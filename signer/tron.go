package signer

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"fmt"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/tron"
)

// Tron signs tron-txid requests with one secp256k1 key held in memory: the
// same key type as Local, so a key from FromHex or a keystore file serves
// Tron through TronFromLocal.
type Tron struct {
	key     *ecdsa.PrivateKey
	address tron.Address
	network string
}

// NewTron returns a signer for key on network (tron:728126428 mainnet,
// tron:3448148188 Nile).
func NewTron(key *ecdsa.PrivateKey, network string) (*Tron, error) {
	if !tron.IsNetwork(network) {
		return nil, fmt.Errorf("signer: %q is not a Tron network (tron: and its decimal chain id)", network)
	}
	return &Tron{key: key, address: tron.AddressOf(crypto.FromECDSAPub(&key.PublicKey)), network: network}, nil
}

// TronFromLocal is the Tron signer of a Local's key (a hex key, a keystore).
func TronFromLocal(l *Local, network string) (*Tron, error) { return NewTron(l.key, network) }

// TronFromHex reads a 32-byte hex private key (the vectors' payer is the
// published Anvil key, AnvilKey).
func TronFromHex(hexKey, network string) (*Tron, error) {
	l, err := FromHex(hexKey, network)
	if err != nil {
		return nil, err
	}
	return TronFromLocal(l, network)
}

// Account is the CAIP-10 account, tron:<chain id>:T….
func (t *Tron) Account() string { return t.network + ":" + t.address.String() }

// Address is the key's base58check address.
func (t *Tron) Address() string { return t.address.String() }

// Sign signs a tron-txid request: secp256k1 over the id, answered r‖s‖v
// with v 0 or 1. It first reads the raw data the id hashes and refuses one
// of another owner or network, or one that is not a TRC-20 transfer it can
// state.
func (t *Tron) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if kind, _ := req.GetString("kind"); kind != tron.KindTxID {
		return nil, fmt.Errorf("signer: the Tron key does not sign %q requests", kind)
	}
	raw, network, txid, err := tron.RequestRaw(req)
	if err != nil {
		return nil, fmt.Errorf("signer: tron-txid: %w", err)
	}
	if network != t.network {
		return nil, fmt.Errorf("signer: the transaction is for %s, this key signs on %s", network, t.network)
	}
	if string(raw.Owner) != string(t.address[:]) {
		return nil, fmt.Errorf("signer: the transaction is owned by %s, not by this key (%s)", tron.Address(raw.Owner).String(), t.address.String())
	}
	if _, err := tron.RawGrant(raw, network); err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	sig, err := crypto.Sign(txid[:], t.key)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	return "0x" + hex.EncodeToString(sig), nil
}
