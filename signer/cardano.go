package signer

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/cardano"
)

// CardanoDevSeed is termsgate's published Cardano development seed (07×32,
// an Ed25519 payment key), the payer of the Cardano demo and tests. It is
// public: never hold value with it.
const CardanoDevSeed = "0707070707070707070707070707070707070707070707070707070707070707"

// maxCardanoUTxOs bounds the outputs the wallet reads and spends for one payment.
const maxCardanoUTxOs = 32

// Cardano is a wallet for cardano-transaction requests: one Ed25519 payment
// key in memory, its enterprise address, and a node it reads the tip, the
// protocol parameters and its unspent outputs from. It builds the transfer
// the request asks for (lovelace only) with the request's auxiliary data
// and their hash in the body, a TTL of the tip's slot plus the request's
// validitySeconds (a slot is a second since Shelley), the minimum fee and
// change back to itself, signs the body's id and answers {transaction,
// nonce}, the nonce its first input.
type Cardano struct {
	key     ed25519.PrivateKey
	address cardano.Address
	network string
	node    cardano.Inputs
}

// NewCardano returns a wallet for the Ed25519 seed on network
// (cardano:mainnet, cardano:preprod or cardano:preview) reading node.
func NewCardano(seed [32]byte, network string, node cardano.Inputs) (*Cardano, error) {
	if cardano.NetworkName(network) != network || network == "" {
		return nil, fmt.Errorf("signer: %q is not a Cardano network (cardano:mainnet, cardano:preprod, cardano:preview)", network)
	}
	if node == nil || node.Network() != network {
		return nil, fmt.Errorf("signer: the Cardano wallet needs a node on %s", network)
	}
	key := ed25519.NewKeyFromSeed(seed[:])
	addr := cardano.EnterpriseAddress(key.Public().(ed25519.PublicKey), cardano.NetworkID(network))
	return &Cardano{key: key, address: addr, network: network, node: node}, nil
}

// CardanoFromSeed reads a seed as 64 hex digits, with or without 0x.
func CardanoFromSeed(seed, network string, node cardano.Inputs) (*Cardano, error) {
	raw, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(seed), "0x"))
	if err != nil || len(raw) != 32 {
		return nil, errors.New("signer: a Cardano key is a 32-byte Ed25519 seed in hex")
	}
	return NewCardano([32]byte(raw), network, node)
}

// Account is the CAIP-10 account, cardano:<network>:<address> (the
// address's underscore percent-encoded, as CAIP-10 allows no underscore).
func (c *Cardano) Account() string {
	return c.network + ":" + strings.ReplaceAll(c.address.String(), "_", "%5F")
}

// Address is the key's enterprise address.
func (c *Cardano) Address() cardano.Address { return c.address }

// Sign builds and signs the transfer a cardano-transaction request asks
// for. It refuses a request of another network or payer, a native asset,
// and one its outputs cannot pay (amount, fee and change), before signing.
func (c *Cardano) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if kind, _ := req.GetString("kind"); kind != cardano.KindTransaction {
		return nil, fmt.Errorf("signer: the Cardano key does not sign %q requests", kind)
	}
	r, err := cardano.ReadRequest(req)
	if err != nil {
		return nil, fmt.Errorf("signer: cardano-transaction: %w", err)
	}
	if r.Network != c.network {
		return nil, fmt.Errorf("signer: the request is for %s, this key signs on %s", r.Network, c.network)
	}
	if string(r.Payer) != string(c.address) {
		return nil, fmt.Errorf("signer: the request is paid by %s, not by this key (%s)", r.Payer, c.address)
	}
	if r.Asset != cardano.Lovelace {
		return nil, fmt.Errorf("signer: cardano: this wallet pays lovelace only, not %s", r.Asset)
	}
	tip, err := c.node.Tip(ctx)
	if err != nil {
		return nil, fmt.Errorf("signer: cardano: tip: %w", err)
	}
	if tip.Slot > ^uint64(0)-uint64(r.ValiditySeconds) {
		return nil, errors.New("signer: cardano: the tip's slot overflows")
	}
	params, err := c.node.Params(ctx)
	if err != nil {
		return nil, fmt.Errorf("signer: cardano: protocol parameters: %w", err)
	}
	utxos, err := c.node.UTxOs(ctx, c.address, maxCardanoUTxOs)
	if err != nil {
		return nil, fmt.Errorf("signer: cardano: unspent outputs: %w", err)
	}
	spec, err := cardano.Plan(utxos, params, r.PayTo, c.address, r.Amount, tip.Slot+uint64(r.ValiditySeconds), r.Aux)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	body := spec.Body()
	tx := cardano.Assemble(body, c.key.Public().(ed25519.PublicKey), cardano.SignBody(c.key, body), r.Aux)
	return jsonv.Obj("transaction", base64.StdEncoding.EncodeToString(tx), "nonce", spec.Inputs[0].String()), nil
}
