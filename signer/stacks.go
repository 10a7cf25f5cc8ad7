package signer

import (
	"context"
	"encoding/hex"
	"fmt"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/stacks"
)

// StacksDevKey is the key whose scalar is 1, the payer of the shared
// Stacks vectors (its testnet address is ST1THWXQ8368SDN2MJGE4BMDKMCHZ2GSVTSQDA7QF).
// It is public: never hold value with it.
const StacksDevKey = "0x0000000000000000000000000000000000000000000000000000000000000001"

// DefaultStacksMaxFee is the most µSTX (0.1 STX) a Stacks signer pays in
// fees when it sets the fee itself and MaxFee is zero.
const DefaultStacksMaxFee = 100_000

// Stacks signs stacks-contract-call requests with one secp256k1 key held
// in memory: the same key type as Local, so a key from FromHex or a
// keystore file serves Stacks through StacksFromLocal. Its address is the
// single-signature (P2PKH) address of the compressed key.
type Stacks struct {
	key    *secp256k1.PrivateKey
	chain  stacks.Chain
	origin [20]byte
	inputs stacks.Inputs
	// MaxFee caps a fee the signer sets from its node's rate; zero is
	// DefaultStacksMaxFee. A fee the request fixes is the request's.
	MaxFee uint64
}

// NewStacks returns a signer for the 32-byte secret on network
// (stacks:1, stacks:2147483648). inputs, when not nil, fills a nonce and
// fee the request leaves to the signer; without it such a request is
// refused.
func NewStacks(secret []byte, network string, inputs stacks.Inputs) (*Stacks, error) {
	c, ok := stacks.ChainOf(network)
	if !ok {
		return nil, fmt.Errorf("signer: %q is not a Stacks network (stacks:1 or stacks:2147483648)", network)
	}
	if len(secret) != 32 {
		return nil, fmt.Errorf("signer: a Stacks key is 32 bytes")
	}
	if inputs != nil && inputs.Network() != network {
		return nil, fmt.Errorf("signer: the node serves %s, not %s", inputs.Network(), network)
	}
	var s secp256k1.ModNScalar
	if overflow := s.SetByteSlice(secret); overflow || s.IsZero() {
		return nil, fmt.Errorf("signer: the Stacks key is not a secp256k1 scalar")
	}
	key := secp256k1.NewPrivateKey(&s)
	return &Stacks{key: key, chain: c, origin: stacks.Hash160(key.PubKey().SerializeCompressed()), inputs: inputs}, nil
}

// StacksFromLocal is the Stacks signer of a Local's key (a hex key, a
// keystore).
func StacksFromLocal(l *Local, network string, inputs stacks.Inputs) (*Stacks, error) {
	return NewStacks(crypto.FromECDSA(l.key), network, inputs)
}

// StacksFromHex reads a 32-byte hex private key (StacksDevKey for the
// vectors' payer).
func StacksFromHex(hexKey, network string, inputs stacks.Inputs) (*Stacks, error) {
	l, err := FromHex(hexKey, network)
	if err != nil {
		return nil, err
	}
	return StacksFromLocal(l, network, inputs)
}

// Address is the key's single-signature address on its chain.
func (s *Stacks) Address() string { return stacks.Address(s.chain.Single, s.origin) }

// Account is the CAIP-10 account, stacks:<chain id>:S….
func (s *Stacks) Account() string { return s.chain.Network + ":" + s.Address() }

// Sign signs a stacks-contract-call request: it reads the transaction as
// the pairing's summary does (a guarded SIP-010 transfer from this key on
// this network) and refuses any other, fills the nonce (the node's next)
// and the fee (the node's rate times the transaction's length, at most
// MaxFee) when the request leaves them, signs the SIP-005 hash and answers
// the signed transaction as 0x hex.
func (s *Stacks) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if kind, _ := req.GetString("kind"); kind != stacks.KindContractCall {
		return nil, fmt.Errorf("signer: the Stacks key does not sign %q requests", kind)
	}
	t, _, err := stacks.ReadRequest(req)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	if network, _ := req.GetString("network"); network != s.chain.Network {
		return nil, fmt.Errorf("signer: the transaction is for %s, this key signs on %s", network, s.chain.Network)
	}
	if t.Signer != s.origin {
		return nil, fmt.Errorf("signer: the transaction's origin is %s, not this key's %s", stacks.Address(s.chain.Single, t.Signer), s.Address())
	}
	_, fixedNonce := req.Get("nonce")
	_, fixedFee := req.Get("fee")
	if (!fixedNonce || !fixedFee) && s.inputs == nil {
		return nil, fmt.Errorf("signer: the request leaves nonce or fee to the wallet, and this Stacks signer has no node")
	}
	if !fixedNonce {
		if t.Nonce, err = s.inputs.Nonce(ctx, s.Address()); err != nil {
			return nil, fmt.Errorf("signer: the nonce: %w", err)
		}
	}
	if !fixedFee {
		rate, err := s.inputs.FeeRate(ctx)
		if err != nil {
			return nil, fmt.Errorf("signer: the fee rate: %w", err)
		}
		max := s.MaxFee
		if max == 0 {
			max = DefaultStacksMaxFee
		}
		n := uint64(len(t.Encode()))
		if rate > max/n {
			return nil, fmt.Errorf("signer: the node's fee rate %d µSTX/byte makes a fee above %d µSTX", rate, max)
		}
		t.Fee = rate * n
	}
	t.Signature = stacks.Sign(t, s.key)
	return "0x" + hex.EncodeToString(t.Encode()), nil
}
