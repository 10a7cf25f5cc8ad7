package signer

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/starknet"
)

// StarknetDevKey is starknet-devnet's first predeployed account key of
// seed 0 (https://github.com/0xSpaceShard/starknet-devnet), the payer of
// the Starknet demo and tests. It is public: never hold value with it.
const StarknetDevKey = "0x71d7bb07b9a64f6f78ac4c816aff4da9"

// StarknetDevAccount is the account address the demo's loopback node and
// the tests deploy with that key.
const StarknetDevAccount = "0x64b48806902a367c8598f4f95c305e8c1a1acba5f082d294a43793113115691"

// StarknetAccount is what the wallet reads of its account on chain before
// it signs (starknetrpc reads it with starknet_call): the public key the
// account's contract checks signatures against, and whether an
// outside-execution nonce is still unused.
type StarknetAccount interface {
	Network() string
	PublicKey(ctx context.Context, account starknet.Felt) (starknet.Felt, error)
	NonceAvailable(ctx context.Context, account, nonce starknet.Felt) (bool, error)
}

// Starknet is a wallet for starknet-snip12 requests: one Stark key in
// memory for one account contract that verifies it (OpenZeppelin's and
// Argent's accounts take (r, s)). It signs only typed data
// starknet.ReadRequest reads (SNIP-9 v2's OutsideExecution of one transfer
// on its own network and account), and, given a node, only when the
// account's public key is this key's and the nonce is unused; it answers
// {signature: [r, s]}.
type Starknet struct {
	key     *big.Int
	pub     starknet.Felt
	account starknet.Felt
	network string
	node    StarknetAccount
}

// NewStarknet returns a wallet for the key (hex, with or without 0x) and
// the account address on network (starknet:SN_MAIN or starknet:SN_SEPOLIA);
// node may be nil, when the wallet signs without reading the account.
func NewStarknet(key, account, network string, node StarknetAccount) (*Starknet, error) {
	if _, ok := starknet.ChainID(network); !ok {
		return nil, fmt.Errorf("signer: %q is not a Starknet network (starknet:SN_MAIN, starknet:SN_SEPOLIA)", network)
	}
	k := strings.TrimPrefix(strings.TrimSpace(key), "0x")
	d, ok := new(big.Int).SetString(k, 16)
	if !ok || len(k) > 64 {
		return nil, errors.New("signer: a Starknet key is a Stark-curve private key in hex")
	}
	pub, ok := starknet.PublicKey(d)
	if !ok {
		return nil, errors.New("signer: a Starknet key is in [1, the curve order)")
	}
	acct, ok := starknet.ParseFelt(account)
	if !ok || acct.IsZero() {
		return nil, errors.New("signer: a Starknet account is a felt address")
	}
	if node != nil && node.Network() != network {
		return nil, fmt.Errorf("signer: the Starknet wallet's node serves %s, not %s", node.Network(), network)
	}
	return &Starknet{key: d, pub: pub, account: acct, network: network, node: node}, nil
}

// Account is the CAIP-10 account, starknet:<chain>:<address>.
func (s *Starknet) Account() string { return s.network + ":" + s.account.String() }

// PublicKey is the key's public key, the x coordinate of its point.
func (s *Starknet) PublicKey() starknet.Felt { return s.pub }

// Sign signs a starknet-snip12 request for this wallet's account and
// network.
func (s *Starknet) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if k, _ := req.GetString("kind"); k != starknet.KindSNIP12 {
		return nil, fmt.Errorf("signer: the Starknet wallet signs %s requests, not %q", starknet.KindSNIP12, k)
	}
	r, err := starknet.ReadRequest(req)
	if err != nil {
		return nil, fmt.Errorf("signer: not signed: %w", err)
	}
	if r.Network != s.network || r.Account != s.account {
		return nil, fmt.Errorf("signer: the request is for %s:%s, this wallet is %s", r.Network, r.Account, s.Account())
	}
	if s.node != nil {
		pub, err := s.node.PublicKey(ctx, s.account)
		if err != nil {
			return nil, fmt.Errorf("signer: cannot read the account's public key: %w", err)
		}
		if pub != s.pub {
			return nil, fmt.Errorf("signer: account %s checks key %s, not this wallet's %s", s.account, pub, s.pub)
		}
		free, err := s.node.NonceAvailable(ctx, s.account, r.Message.Nonce)
		if err != nil {
			return nil, fmt.Errorf("signer: cannot read the outside-execution nonce: %w", err)
		}
		if !free {
			return nil, fmt.Errorf("signer: the account has already used nonce %s", r.Message.Nonce)
		}
	}
	rr, ss, err := starknet.Sign(s.key, r.Message.MessageHash(r.ChainID, r.Account))
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	return jsonv.Obj("signature", []jsonv.Value{rr.String(), ss.String()}), nil
}
