package stacks

import "context"

// Inputs is what a payer's wallet reads from its node to fill a
// transaction the request leaves to it (stacksrpc reads them over the
// Stacks node's RPC); every failure is an error.
type Inputs interface {
	Network() string
	// Nonce is the address's next nonce.
	Nonce(ctx context.Context, address string) (uint64, error)
	// FeeRate is the node's fee rate, µSTX per byte of a transaction.
	FeeRate(ctx context.Context) (uint64, error)
}
