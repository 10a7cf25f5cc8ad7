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
	"github.com/termsgate/termsgate/rails/aptos"
)

// AptosDevSeed is termsgate's published Aptos development seed (0a×32, an
// Ed25519 key), the payer of the Aptos demo and tests. It is public: never
// hold value with it.
const AptosDevSeed = "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a"

// AptosMaxGasAmount is the gas units the wallet allows a transfer.
const AptosMaxGasAmount = 15000

// Aptos is a wallet for aptos-transaction requests: one Ed25519 key in
// memory, its account address, and a node it reads the account's sequence
// number, the gas unit price and the chain id from. It builds the x402
// transfer the request asks for, expiring at the request's expiresAt,
// signs it and answers {transaction} in x402's form.
type Aptos struct {
	key     ed25519.PrivateKey
	address aptos.Address
	network string
	node    aptos.Inputs
}

// NewAptos returns a wallet for the Ed25519 seed on network (aptos:<chain
// id>) reading node.
func NewAptos(seed [32]byte, network string, node aptos.Inputs) (*Aptos, error) {
	if _, ok := aptos.ChainID(network); !ok {
		return nil, fmt.Errorf("signer: %q is not an Aptos network (aptos:1 to aptos:255)", network)
	}
	if node == nil || node.Network() != network {
		return nil, fmt.Errorf("signer: the Aptos wallet needs a node on %s", network)
	}
	key := ed25519.NewKeyFromSeed(seed[:])
	return &Aptos{key: key, address: aptos.AddressOfEd25519(key.Public().(ed25519.PublicKey)), network: network, node: node}, nil
}

// AptosFromSeed reads a seed as 64 hex digits, with or without 0x.
func AptosFromSeed(seed, network string, node aptos.Inputs) (*Aptos, error) {
	raw, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(seed), "0x"))
	if err != nil || len(raw) != 32 {
		return nil, errors.New("signer: an Aptos key is a 32-byte Ed25519 seed in hex")
	}
	return NewAptos([32]byte(raw), network, node)
}

// Account is the CAIP-10 account, aptos:<chain id>:<address>.
func (a *Aptos) Account() string { return a.network + ":" + a.address.String() }

// Address is the key's account address.
func (a *Aptos) Address() aptos.Address { return a.address }

// Sign builds and signs the transfer an aptos-transaction request asks
// for. It refuses a request of another network or sender and a node whose
// chain id is not the network's, before signing.
func (a *Aptos) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if kind, _ := req.GetString("kind"); kind != aptos.KindTransaction {
		return nil, fmt.Errorf("signer: the Aptos key does not sign %q requests", kind)
	}
	r, err := aptos.ReadRequest(req)
	if err != nil {
		return nil, fmt.Errorf("signer: aptos-transaction: %w", err)
	}
	if r.Network != a.network {
		return nil, fmt.Errorf("signer: the request is for %s, this key signs on %s", r.Network, a.network)
	}
	if r.Sender != a.address {
		return nil, fmt.Errorf("signer: the request is paid by %s, not by this key (%s)", r.Sender, a.address)
	}
	chain, err := a.node.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("signer: aptos: chain id: %w", err)
	}
	if chain != r.Chain {
		return nil, fmt.Errorf("signer: aptos: the node is on chain %d, the request on %s", chain, r.Network)
	}
	seq, err := a.node.SequenceNumber(ctx, a.address)
	if err != nil {
		return nil, fmt.Errorf("signer: aptos: sequence number: %w", err)
	}
	price, err := a.node.GasUnitPrice(ctx)
	if err != nil {
		return nil, fmt.Errorf("signer: aptos: gas price: %w", err)
	}
	tx := aptos.TransferTransaction(a.address, seq, aptos.Transfer{Metadata: r.Asset, Recipient: r.PayTo, Amount: r.Amount},
		AptosMaxGasAmount, price, uint64(r.ExpiresAt), r.Chain)
	raw := tx.Encode()
	sig := ed25519.Sign(a.key, aptos.SigningMessage(raw, nil))
	auth := aptos.Ed25519Authenticator(a.key.Public().(ed25519.PublicKey), sig)
	return jsonv.Obj("transaction", aptos.X402Payload(raw, auth)), nil
}
