package signer

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/algorand"
)

// AlgorandDevSeed is termsgate's published Algorand development seed
// (07×32), the payer of the Algorand demo and tests. It is public: never
// hold value with it.
const AlgorandDevSeed = "0707070707070707070707070707070707070707070707070707070707070707"

// Algorand signs algorand-txn requests with one Ed25519 key held in memory.
type Algorand struct {
	key     ed25519.PrivateKey
	address string
	network string
}

// NewAlgorand returns a signer for the Ed25519 seed on network
// (algorand:<32 characters of the genesis hash>).
func NewAlgorand(seed [32]byte, network string) (*Algorand, error) {
	if !algorand.IsNetwork(network) {
		return nil, fmt.Errorf("signer: %q is not an Algorand network (algorand: and 32 characters of its genesis hash)", network)
	}
	key := ed25519.NewKeyFromSeed(seed[:])
	return &Algorand{key: key, address: algorand.Address([32]byte(key.Public().(ed25519.PublicKey))), network: network}, nil
}

// AlgorandFromSeed reads a seed as 64 hex digits, with or without 0x.
func AlgorandFromSeed(seed, network string) (*Algorand, error) {
	raw, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(seed), "0x"))
	if err != nil || len(raw) != 32 {
		return nil, errors.New("signer: an Algorand key is a 32-byte Ed25519 seed in hex")
	}
	return NewAlgorand([32]byte(raw), network)
}

// AlgorandDev is the published development key on network.
func AlgorandDev(network string) (*Algorand, error) {
	return AlgorandFromSeed(AlgorandDevSeed, network)
}

// AlgorandFromSeedFile reads a file holding one seed in hex. The file must
// not be readable by group or others: the seed is the key.
func AlgorandFromSeedFile(path, network string) (*Algorand, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("signer: %s holds a seed and is readable by others (mode %v); chmod 600 it", path, st.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	return AlgorandFromSeed(string(b), network)
}

// Account is the CAIP-10 account, algorand:<network>:<address>.
func (a *Algorand) Account() string { return a.network + ":" + a.address }

// Address is the key's address.
func (a *Algorand) Address() string { return a.address }

// Sign signs an algorand-txn request: Ed25519 over its bytes, "TX" and the
// transaction. It first reads the transaction and refuses one of another
// sender or network, or one whose effect it cannot state in one amount
// (a close, a rekey, a clawback): it signs only what it can state.
func (a *Algorand) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if kind, _ := req.GetString("kind"); kind != algorand.KindTxn {
		return nil, fmt.Errorf("signer: the Algorand key does not sign %q requests", kind)
	}
	t, network, b, err := algorand.RequestTxn(req)
	if err != nil {
		return nil, fmt.Errorf("signer: algorand-txn: %w", err)
	}
	if network != a.network {
		return nil, fmt.Errorf("signer: the transaction is for %s, this key signs on %s", network, a.network)
	}
	if s := algorand.Address(t.Sender); s != a.address {
		return nil, fmt.Errorf("signer: the transaction is sent by %s, not by this key (%s)", s, a.address)
	}
	if _, err := algorand.TxnGrant(t, network); err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	return "0x" + hex.EncodeToString(ed25519.Sign(a.key, b)), nil
}
