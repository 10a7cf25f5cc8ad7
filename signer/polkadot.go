package signer

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/polkadot"
)

// PolkadotDevSeed is termsgate's published Polkadot development seed
// (0b×32, an Ed25519 key), the payer of the Polkadot demo and tests. It is
// public: never hold value with it.
const PolkadotDevSeed = "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"

// Polkadot is a wallet for polkadot-call requests: one Ed25519 key in
// memory (a MultiSignature's Ed25519 variant, which Asset Hub accepts for
// any account whose id is the key) and a node it reads the nonce, runtime
// versions, genesis hash and best block from. It wraps the request's call
// in a signed v4 extrinsic with a mortal era of the request's eraPeriod
// from the best block, the account's next nonce, no tip, fees in DOT and
// no metadata hash, and answers the extrinsic and the additional data its
// signature covers.
type Polkadot struct {
	key     ed25519.PrivateKey
	account [32]byte
	network string
	node    polkadot.Chain
}

// NewPolkadot returns a wallet for the Ed25519 seed on network (Polkadot
// or Westend Asset Hub) reading node.
func NewPolkadot(seed [32]byte, network string, node polkadot.Chain) (*Polkadot, error) {
	if !polkadot.IsNetwork(network) {
		return nil, fmt.Errorf("signer: %q is not a Polkadot network this wallet pays on (Polkadot or Westend Asset Hub)", network)
	}
	if node == nil || node.Network() != network {
		return nil, fmt.Errorf("signer: the Polkadot wallet needs a node on %s", network)
	}
	p := &Polkadot{key: ed25519.NewKeyFromSeed(seed[:]), network: network, node: node}
	copy(p.account[:], p.key.Public().(ed25519.PublicKey))
	return p, nil
}

// PolkadotFromSeed reads a seed as 64 hex digits, with or without 0x.
func PolkadotFromSeed(seed, network string, node polkadot.Chain) (*Polkadot, error) {
	raw, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(seed), "0x"))
	if err != nil || len(raw) != 32 {
		return nil, errors.New("signer: a Polkadot key is a 32-byte Ed25519 seed in hex")
	}
	return NewPolkadot([32]byte(raw), network, node)
}

// Account is the CAIP-10 account, polkadot:<genesis>:<SS58 address>.
func (p *Polkadot) Account() string { return p.network + ":" + p.Address() }

// Address is the account in its network's SS58 form.
func (p *Polkadot) Address() string { return polkadot.Address(p.network, p.account) }

// AccountID is the 32-byte account id, the Ed25519 public key.
func (p *Polkadot) AccountID() [32]byte { return p.account }

// Sign builds and signs the extrinsic a polkadot-call request asks for. It
// refuses a request of another network or signer, and a node whose
// genesis hash is not the network's, before signing.
func (p *Polkadot) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if kind, _ := req.GetString("kind"); kind != polkadot.KindCall {
		return nil, fmt.Errorf("signer: the Polkadot key does not sign %q requests", kind)
	}
	r, err := polkadot.ReadRequest(req)
	if err != nil {
		return nil, fmt.Errorf("signer: polkadot-call: %w", err)
	}
	if r.Network != p.network {
		return nil, fmt.Errorf("signer: the request is for %s, this key signs on %s", r.Network, p.network)
	}
	if r.Signer != p.account {
		return nil, fmt.Errorf("signer: the request is signed by %s, not by this key (%s)", polkadot.Address(p.network, r.Signer), p.Address())
	}
	in, err := p.node.Inputs(ctx, p.account)
	if err != nil {
		return nil, fmt.Errorf("signer: polkadot: %w", err)
	}
	if !polkadot.GenesisOf(p.network, in.Genesis) {
		return nil, fmt.Errorf("signer: polkadot: the node's genesis hash %x is not %s's", in.Genesis, p.network)
	}
	extra := polkadot.Extra{Era: polkadot.MortalEra(r.EraPeriod, in.BlockNumber), Nonce: in.Nonce}
	add := polkadot.Additional{SpecVersion: in.SpecVersion, TxVersion: in.TxVersion, Genesis: in.Genesis, EraBlock: in.BlockHash}
	sig := ed25519.Sign(p.key, polkadot.SigningPayload(r.CallBytes, &extra, &add))
	xt := polkadot.EncodeSigned(p.account, polkadot.SigEd25519, sig, &extra, r.CallBytes)
	return jsonv.Obj("extrinsic", "0x"+hex.EncodeToString(xt),
		"specVersion", strconv.FormatUint(uint64(in.SpecVersion), 10),
		"transactionVersion", strconv.FormatUint(uint64(in.TxVersion), 10),
		"genesisHash", "0x"+hex.EncodeToString(in.Genesis[:]),
		"blockHash", "0x"+hex.EncodeToString(in.BlockHash[:])), nil
}
