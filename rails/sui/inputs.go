package sui

import "context"

// What a payer's wallet reads from its node to build a transfer: the
// reference gas price, the current epoch and the sender's coins of a type
// (suirpc reads them over Sui's JSON-RPC).

// Coin is one coin object and its balance.
type Coin struct {
	Ref     ObjectRef
	Balance uint64
}

// Inputs reads one network's node; every failure is an error.
type Inputs interface {
	Network() string
	ReferenceGasPrice(ctx context.Context) (uint64, error)
	Epoch(ctx context.Context) (uint64, error)
	// Coins is the owner's coins of coinType, at most limit of them.
	Coins(ctx context.Context, owner Address, coinType string, limit int) ([]Coin, error)
}
