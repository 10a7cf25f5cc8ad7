// Package signer holds wallets that implement the gate's Signer.
package signer

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
)

// AnvilKey is the first published Anvil/Hardhat development key, the payer of
// the shared vectors. It is public: never hold value with it.
const AnvilKey = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"

// Local signs with one secp256k1 key held in memory.
type Local struct {
	key         *ecdsa.PrivateKey
	address     common.Address
	account     string
	delegations DelegationIssuer // nil: erc7710 requests are refused
}

// NewLocal returns a signer for key whose CAIP-10 account is on network
// ("eip155:84532").
func NewLocal(key *ecdsa.PrivateKey, network string) *Local {
	addr := crypto.PubkeyToAddress(key.PublicKey)
	return &Local{key: key, address: addr, account: network + ":" + addr.Hex()}
}

// FromHex reads a 0x-prefixed (or bare) 32-byte hex private key.
func FromHex(hexKey, network string) (*Local, error) {
	key, err := crypto.HexToECDSA(strings.TrimPrefix(hexKey, "0x"))
	if err != nil {
		return nil, fmt.Errorf("signer: private key: %w", err)
	}
	return NewLocal(key, network), nil
}

// Account is the CAIP-10 account, e.g. eip155:84532:0xf39F…2266.
func (l *Local) Account() string { return l.account }

// Address is the key's EVM address.
func (l *Local) Address() common.Address { return l.address }

// Sign signs an eip712 request: the EIP-712 digest of its typedData, as
// r‖s‖v with v 27/28 (what wallets and the vectors write; go-ethereum gives
// 0/1).
func (l *Local) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	kind, _ := req.GetString("kind")
	switch kind {
	case "eip712":
		td, ok := req.GetObject("typedData")
		if !ok {
			return nil, fmt.Errorf("signer: eip712 request without typedData")
		}
		digest, err := evm.TypedDataDigest(td)
		if err != nil {
			return nil, fmt.Errorf("signer: %w", err)
		}
		return l.signDigest(digest)
	case "tempo-call", "tempo-calls":
		return l.signTempoCall(ctx, req)
	case "tempo-key-authorization":
		return l.signTempoKeyAuthorization(req)
	case rails.KindBatch:
		return l.signBatch(ctx, req)
	case KindEVMCall:
		return nil, fmt.Errorf("signer: an evm-call needs fees and a nonce: sign it with signer.EVM (a node, or fixed Fees)")
	case evm.KindERC7710:
		return l.signDelegation(ctx, req)
	default:
		return nil, fmt.Errorf("signer: the local key does not sign %q requests", kind)
	}
}

func (l *Local) signDigest(digest [32]byte) (string, error) {
	sig, err := crypto.Sign(digest[:], l.key)
	if err != nil {
		return "", fmt.Errorf("signer: %w", err)
	}
	sig[64] += 27
	// Written on the stack and copied once into the string (a []byte
	// turned into a string was a second allocation per signature).
	var out [2 + 2*65]byte
	if len(sig) != 65 {
		return "", fmt.Errorf("signer: a signature of %d bytes", len(sig))
	}
	out[0], out[1] = '0', 'x'
	hex.Encode(out[2:], sig)
	return string(out[:]), nil
}

// maxBatch bounds a batch request: an in-channel payment asks for one or two
// signatures, never a list an attacker could make long.
const maxBatch = 8

// signBatch signs a batch request's requests in order, each as if it came
// alone (a nested batch is refused), and answers the list of signatures.
func (l *Local) signBatch(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	v, _ := req.Get("requests")
	list, ok := jsonv.AsArray(v)
	if !ok || len(list) == 0 || len(list) > maxBatch {
		return nil, fmt.Errorf("signer: a batch request needs 1 to %d requests", maxBatch)
	}
	out := make([]jsonv.Value, len(list))
	for i, r := range list {
		o, ok := jsonv.AsObject(r)
		if !ok {
			return nil, fmt.Errorf("signer: batch entry %d is not a request", i)
		}
		if k, _ := o.GetString("kind"); k == rails.KindBatch {
			return nil, fmt.Errorf("signer: batch entry %d is itself a batch", i)
		}
		a, err := l.Sign(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("signer: batch entry %d: %w", i, err)
		}
		out[i] = a
	}
	return out, nil
}
