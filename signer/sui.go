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
	"github.com/termsgate/termsgate/rails/sui"
)

// SuiDevSeed is termsgate's published Sui development seed (07×32), the
// payer of the Sui demo and tests. It is public: never hold value with it.
const SuiDevSeed = "0707070707070707070707070707070707070707070707070707070707070707"

// SuiGasBudget is the gas budget, in MIST, the Sui wallet sets when none is
// given: 0.005 SUI, the budget of the vectors' recipe, well above what one
// split and transfer costs at the reference price.
const SuiGasBudget = 5_000_000

// maxSuiCoins bounds the coins the wallet reads and spends for one payment.
const maxSuiCoins = 32

// Sui is a wallet for sui-transaction requests: one Ed25519 key in memory
// and a node it reads the gas price, the epoch and its coins from. It
// builds the transfer the request asks for, with the request's H as its one
// unused Pure input and an expiration one epoch past the current one (an
// epoch lasts about a day; one more lets a payment signed at an epoch's
// end still execute), signs it and answers {signature, transaction}.
type Sui struct {
	key       ed25519.PrivateKey
	address   sui.Address
	network   string
	node      sui.Inputs
	GasBudget uint64 // MIST; SuiGasBudget when 0
}

// NewSui returns a wallet for the Ed25519 seed on network (sui:mainnet,
// sui:testnet or sui:devnet) reading node.
func NewSui(seed [32]byte, network string, node sui.Inputs) (*Sui, error) {
	if !sui.IsNetwork(network) {
		return nil, fmt.Errorf("signer: %q is not a Sui network (sui:mainnet, sui:testnet, sui:devnet)", network)
	}
	if node == nil || node.Network() != network {
		return nil, fmt.Errorf("signer: the Sui wallet needs a node on %s", network)
	}
	key := ed25519.NewKeyFromSeed(seed[:])
	return &Sui{key: key, address: sui.AddressOfEd25519(key.Public().(ed25519.PublicKey)), network: network, node: node}, nil
}

// SuiFromSeed reads a seed as 64 hex digits, with or without 0x.
func SuiFromSeed(seed, network string, node sui.Inputs) (*Sui, error) {
	raw, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(seed), "0x"))
	if err != nil || len(raw) != 32 {
		return nil, errors.New("signer: a Sui key is a 32-byte Ed25519 seed in hex")
	}
	return NewSui([32]byte(raw), network, node)
}

// Account is the CAIP-10 account, sui:<network>:<address>.
func (s *Sui) Account() string { return s.network + ":" + s.address.String() }

// Address is the key's address.
func (s *Sui) Address() sui.Address { return s.address }

// SignTransaction signs TransactionData bytes: Sui's serialized signature
// (flag 0x00, the Ed25519 signature of the intent message, the key) in
// standard base64.
func (s *Sui) SignTransaction(tx []byte) string {
	m := sui.IntentMessage(tx)
	out := make([]byte, 0, 97)
	out = append(out, 0)
	out = append(out, ed25519.Sign(s.key, m[:])...)
	out = append(out, s.key.Public().(ed25519.PublicKey)...)
	return base64.StdEncoding.EncodeToString(out)
}

// Sign builds and signs the transfer a sui-transaction request asks for.
// It refuses a request of another network or sender, and one it cannot
// pay from the coins it holds (amount and gas budget), before signing.
func (s *Sui) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if kind, _ := req.GetString("kind"); kind != sui.KindTransaction {
		return nil, fmt.Errorf("signer: the Sui key does not sign %q requests", kind)
	}
	r, err := sui.ReadRequest(req)
	if err != nil {
		return nil, fmt.Errorf("signer: sui-transaction: %w", err)
	}
	if r.Network != s.network {
		return nil, fmt.Errorf("signer: the request is for %s, this key signs on %s", r.Network, s.network)
	}
	if r.Sender != s.address {
		return nil, fmt.Errorf("signer: the request is sent by %s, not by this key (%s)", r.Sender, s.address)
	}
	budget := s.GasBudget
	if budget == 0 {
		budget = SuiGasBudget
	}
	price, err := s.node.ReferenceGasPrice(ctx)
	if err != nil {
		return nil, fmt.Errorf("signer: sui: reference gas price: %w", err)
	}
	epoch, err := s.node.Epoch(ctx)
	if err != nil || epoch == ^uint64(0) {
		return nil, fmt.Errorf("signer: sui: epoch: %v", err)
	}
	spec := sui.TransferSpec{Sender: s.address, PayTo: r.PayTo, Amount: r.Amount, SUI: sui.IsSUI(r.Asset),
		GasPrice: price, GasBudget: budget, UntilEpoch: epoch + 1, H: r.H}
	gasNeed := budget
	if spec.SUI {
		if r.Amount > ^uint64(0)-budget {
			return nil, errors.New("signer: sui: amount and gas budget overflow")
		}
		gasNeed += r.Amount
	} else {
		coins, err := s.node.Coins(ctx, s.address, r.Asset, maxSuiCoins)
		if err != nil {
			return nil, fmt.Errorf("signer: sui: coins of %s: %w", r.Asset, err)
		}
		if spec.Coins, err = pick(coins, r.Amount); err != nil {
			return nil, fmt.Errorf("signer: sui: %s: %w", r.Asset, err)
		}
	}
	gas, err := s.node.Coins(ctx, s.address, sui.SUI, maxSuiCoins)
	if err != nil {
		return nil, fmt.Errorf("signer: sui: gas coins: %w", err)
	}
	if spec.GasPayment, err = pick(gas, gasNeed); err != nil {
		return nil, fmt.Errorf("signer: sui: gas: %w", err)
	}
	t, err := sui.BuildTransfer(spec)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	tx := t.Encode()
	return jsonv.Obj("signature", s.SignTransaction(tx), "transaction", base64.StdEncoding.EncodeToString(tx)), nil
}

// pick takes coins in the node's order until their balance reaches need.
func pick(coins []sui.Coin, need uint64) ([]sui.ObjectRef, error) {
	var sum uint64
	var out []sui.ObjectRef
	for _, c := range coins {
		if len(out) == maxSuiCoins {
			break
		}
		out = append(out, c.Ref)
		if sum += c.Balance; sum < c.Balance || sum >= need {
			return out, nil
		}
	}
	return nil, fmt.Errorf("the coins held (%d MIST or units in %d objects) do not cover %d", sum, len(out), need)
}
