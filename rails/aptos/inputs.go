package aptos

import "context"

// Inputs is what a wallet reads from its node to build a transfer: the
// account's next sequence number, the gas unit price and the chain id
// (aptosrpc reads them over the node's REST API).
type Inputs interface {
	Network() string
	SequenceNumber(ctx context.Context, account Address) (uint64, error)
	GasUnitPrice(ctx context.Context) (uint64, error)
	ChainID(ctx context.Context) (uint8, error)
}
