package casper

import (
	"context"
	"math/big"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/rails"
)

// A seller's view of a claimed payment, read from the settling
// transaction's executed call (docs/casper.md, "Settlement").

// Call is one executed contract call as a Reader reports it: whether it
// executed, the height of its block, its error message (empty when none),
// the package it called, the entry point and the CEP-3009 arguments it
// passed (nil where absent).
type Call struct {
	Executed    bool
	BlockHeight uint64
	HasHeight   bool
	Error       string
	HasError    bool
	PackageHash string
	EntryPoint  string
	From, To    string
	Value       *big.Int
	Nonce       []byte
}

// Reader reads one network's node; every failure is an error.
type Reader interface {
	Network() string
	// Transaction is the named transaction's call (info_get_transaction,
	// as a Version1 transaction and then as a Deploy); nil when the node
	// knows neither.
	Transaction(ctx context.Context, hash string) (*Call, error)
}

// Status is a payment's state: settled (Finality finalized, at
// BlockHeight), pending (Why not-found, not-executed or unreadable) or
// failed (Why reverted or not-this-instrument).
type Status struct {
	State, Finality, Why string
	BlockHeight          uint64
}

var authorizationCalls = map[string]bool{"transfer_with_authorization": true, "receive_with_authorization": true}

// authorizationNonce is the nonce argument of a CEP-3009 authorization call
// on asset, or false for any other call.
func authorizationNonce(c *Call, asset string) (atr.Hash, bool) {
	if c.PackageHash == "" || hexLower(c.PackageHash) != hexLower(asset) || !authorizationCalls[c.EntryPoint] || len(c.Nonce) != 32 {
		return atr.Hash{}, false
	}
	return atr.Hash(c.Nonce), true
}

// PaymentStatus reads ref's transaction: settled, at its block's height,
// when it executed without error as a call to ref.Asset's
// transfer_with_authorization or receive_with_authorization whose nonce is
// ref.H and whose from, to and value hash to ref.IDDigest. One read; a
// failed read or a reader for another network is pending unreadable.
func PaymentStatus(ctx context.Context, ref Reference, r Reader) Status {
	if r == nil || r.Network() != ref.Network || ref.Transaction == "" {
		return Status{State: "pending", Why: "unreadable"}
	}
	c, err := r.Transaction(ctx, ref.Transaction)
	switch {
	case err != nil:
		return Status{State: "pending", Why: "unreadable"}
	case c == nil:
		return Status{State: "pending", Why: "not-found"}
	case !c.Executed:
		return Status{State: "pending", Why: "not-executed"}
	case c.HasError:
		return Status{State: "failed", Why: "reverted"}
	case !c.HasHeight:
		return Status{State: "pending", Why: "unreadable"}
	}
	nonce, ok := authorizationNonce(c, ref.Asset)
	if !ok || nonce != ref.H {
		return Status{State: "failed", Why: "not-this-instrument"}
	}
	d, ok := IDDigest(c.From, c.To, c.Value)
	if !ok || d != ref.IDDigest {
		return Status{State: "failed", Why: "not-this-instrument"}
	}
	return Status{State: "settled", Finality: "finalized", BlockHeight: c.BlockHeight}
}

// Recover reads H from a settling transaction alone: the nonce argument of
// the executed authorization call on asset.
func Recover(ctx context.Context, network, asset, transaction string, r Reader) (atr.Hash, error) {
	if r == nil || r.Network() != network {
		return atr.Hash{}, rails.Refuse("casper/wrong-reader")
	}
	c, err := r.Transaction(ctx, transaction)
	switch {
	case err != nil:
		return atr.Hash{}, rails.Refuse("casper/unreadable")
	case c == nil:
		return atr.Hash{}, rails.Refuse("casper/not-found")
	case !c.Executed:
		return atr.Hash{}, rails.Refuse("casper/not-executed")
	case c.HasError:
		return atr.Hash{}, rails.Refuse("casper/reverted")
	}
	h, ok := authorizationNonce(c, asset)
	if !ok {
		return atr.Hash{}, rails.Refuse("casper/no-authorization-call")
	}
	return h, nil
}
