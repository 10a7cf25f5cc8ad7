package ccd

import "context"

// What a payer's wallet reads from its node to build a payment: the
// sender's next nonce and a protocol-level token's decimals (ccdrpc reads
// them over Concordium's gRPC v2 API).

// Inputs reads one network's node; every failure is an error.
type Inputs interface {
	Network() string
	// NextNonce is the sequence number the account's next transaction takes.
	NextNonce(ctx context.Context, account []byte) (uint64, error)
	// TokenDecimals is the decimals of a PLT's amounts.
	TokenDecimals(ctx context.Context, tokenID string) (uint8, error)
}
