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
	"github.com/termsgate/termsgate/rails/solana"
)

// SolanaDevSeed is the payer seed of the shared Solana vectors (01×32),
// account AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9. It is public: never
// hold value with it.
const SolanaDevSeed = "0101010101010101010101010101010101010101010101010101010101010101"

// Solana signs solana-message and ed25519-raw requests (and batches of
// them) with one Ed25519 key held in memory, answering base58 signatures,
// and answers solana-session-open requests with the signed open
// (solana_session.go).
type Solana struct {
	key     ed25519.PrivateKey
	pub     solana.Key
	account string
}

// NewSolana returns a signer for the Ed25519 seed on network
// (solana:<32 base58 characters of the genesis hash>).
func NewSolana(seed [32]byte, network string) (*Solana, error) {
	if !solana.IsNetwork(network) {
		return nil, fmt.Errorf("signer: %q is not a Solana network (solana: and 32 base58 characters)", network)
	}
	key := ed25519.NewKeyFromSeed(seed[:])
	pub := solana.Key(key.Public().(ed25519.PublicKey))
	return &Solana{key: key, pub: pub, account: network + ":" + pub.String()}, nil
}

// SolanaFromSeedHex reads a seed as 64 hex digits, with or without 0x (the
// vectors' published seeds).
func SolanaFromSeedHex(s, network string) (*Solana, error) {
	raw, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(s), "0x"))
	if err != nil || len(raw) != 32 {
		return nil, errors.New("signer: a Solana seed is 32 bytes in hex")
	}
	return NewSolana([32]byte(raw), network)
}

// SolanaFromKeypairFile reads a keypair file as the Solana CLI writes it
// (solana-keygen): a JSON array of 64 byte values, the seed then the
// public key. The public key must be the seed's.
func SolanaFromKeypairFile(path, network string) (*Solana, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	v, err := jsonv.Parse(data)
	list, ok := jsonv.AsArray(v)
	if err != nil || !ok || len(list) != 64 {
		return nil, errors.New("signer: a Solana keypair file is a JSON array of 64 byte values")
	}
	var b [64]byte
	for i, x := range list {
		n, ok := jsonv.AsSafeInt(x)
		if !ok || n > 255 {
			return nil, fmt.Errorf("signer: keypair value %d is not a byte", i)
		}
		b[i] = byte(n)
	}
	s, err := NewSolana([32]byte(b[:32]), network)
	if err != nil {
		return nil, err
	}
	if solana.Key(b[32:]) != s.pub {
		return nil, errors.New("signer: the keypair file's public key is not its seed's")
	}
	return s, nil
}

// Account is solana:<genesis>:<base58 public key>.
func (s *Solana) Account() string { return s.account }

// Key is the signer's public key.
func (s *Solana) Key() solana.Key { return s.pub }

// Sign signs a solana-message (the message bytes, which must decode and
// list this key among its required signers) or an ed25519-raw request (any
// bytes, when its signer is this key), or a batch of them in order.
func (s *Solana) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch kind, _ := req.GetString("kind"); kind {
	case rails.KindBatch:
		v, _ := req.Get("requests")
		list, ok := jsonv.AsArray(v)
		if !ok || len(list) < 1 || len(list) > maxBatch {
			return nil, fmt.Errorf("signer: a batch request needs 1 to %d requests", maxBatch)
		}
		out := make([]jsonv.Value, len(list))
		for i, e := range list {
			o, ok := jsonv.AsObject(e)
			if !ok {
				return nil, fmt.Errorf("signer: batch entry %d is not a request", i)
			}
			if k, _ := o.GetString("kind"); k == rails.KindBatch {
				return nil, fmt.Errorf("signer: batch entry %d is itself a batch", i)
			}
			a, err := s.Sign(ctx, o)
			if err != nil {
				return nil, fmt.Errorf("signer: batch entry %d: %w", i, err)
			}
			out[i] = a
		}
		return out, nil
	case "solana-message":
		msg, err := messageBytes(req)
		if err != nil {
			return nil, err
		}
		m, ok := solana.DecodeMessage(msg)
		if !ok {
			return nil, errors.New("signer: the message is not a Solana message")
		}
		signs := false
		for i := 0; i < m.Required; i++ {
			signs = signs || m.Keys[i] == s.pub
		}
		if !signs {
			return nil, errors.New("signer: the message does not ask this key to sign")
		}
		return solana.Base58(ed25519.Sign(s.key, msg)), nil
	case solana.KindSessionOpen:
		return s.sessionOpen(req)
	case "ed25519-raw":
		msg, err := messageBytes(req)
		if err != nil {
			return nil, err
		}
		if who, _ := req.GetString("signer"); who != s.pub.String() {
			return nil, fmt.Errorf("signer: the request is for %q, not this key", who)
		}
		return solana.Base58(ed25519.Sign(s.key, msg)), nil
	default:
		return nil, fmt.Errorf("signer: a Solana key does not sign %q requests", kind)
	}
}

// messageBytes is a request's message: 0x hex, at most a wire's size.
func messageBytes(req rails.Request) ([]byte, error) {
	text, _ := req.GetString("message")
	raw, err := hex.DecodeString(strings.TrimPrefix(text, "0x"))
	if !strings.HasPrefix(text, "0x") || err != nil || len(raw) == 0 || len(raw) > solana.MaxWire {
		return nil, errors.New("signer: the message is not 0x hex of at most 1232 bytes")
	}
	return raw, nil
}
