package signer

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/tvm"
)

// TVM signs ton-w5 requests with one Ed25519 key held in memory, for one
// W5 wallet on one network.
type TVM struct {
	key     ed25519.PrivateKey
	wallet  tvm.Address
	network string
}

// TVMFromSeedHex reads a 32-byte Ed25519 seed in hex (the vectors' payer is
// 01 repeated 32 times) for wallet (raw) on network (tvm:-239 mainnet,
// tvm:-3 testnet).
func TVMFromSeedHex(seedHex, wallet, network string) (*TVM, error) {
	seed, err := hex.DecodeString(seedHex)
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("signer: a TON key is a 32-byte Ed25519 seed in hex")
	}
	if !tvm.IsNetwork(network) {
		return nil, fmt.Errorf("signer: %q is not a TON network (tvm: and its global id)", network)
	}
	w, ok := tvm.ParseAddress(wallet)
	if !ok {
		return nil, fmt.Errorf("signer: %q is not a raw TON address", wallet)
	}
	return &TVM{key: ed25519.NewKeyFromSeed(seed), wallet: *w, network: network}, nil
}

// PublicKey is the key's 32-byte public key.
func (t *TVM) PublicKey() []byte { return append([]byte(nil), t.key.Public().(ed25519.PublicKey)...) }

// Account is the CAIP-10 account, tvm:<global id>:<wallet, its colon escaped>.
func (t *TVM) Account() string {
	return t.network + ":" + strings.ReplaceAll(t.wallet.String(), ":", "%3A")
}

// Sign signs a ton-w5 request: Ed25519 over the request cell's hash, after
// reading the cell and refusing one of another network or wallet.
func (t *TVM) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if kind, _ := req.GetString("kind"); kind != tvm.KindW5 {
		return nil, fmt.Errorf("signer: the TON key does not sign %q requests", kind)
	}
	network, wallet, cell, err := tvm.RequestCell(req)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	if network != t.network || *wallet != t.wallet {
		return nil, fmt.Errorf("signer: the request is for %s on %s, this key signs for %s on %s", wallet, network, t.wallet, t.network)
	}
	h := cell.Hash()
	return "0x" + hex.EncodeToString(ed25519.Sign(t.key, h[:])), nil
}
