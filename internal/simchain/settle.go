package simchain

import (
	"context"
	"errors"
	"fmt"

	"github.com/termsgate/termsgate/internal/eip3009token"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

// Settle submits an EIP-3009 authorization with its signature to the token
// as a facilitator does: transferWithAuthorization, sent by the deployer's
// key, gas estimated by the node (so that an authorization the token refuses
// fails the estimate with the token's reason). gas, when not 0, skips the
// estimate and lets the transaction land and revert.
func (c *Chain) Settle(ctx context.Context, auth *jsonv.Object, signature string, gas uint64) (string, *evmrpc.Landed, error) {
	a, err := eip3009token.AuthorizationOf(auth, signature)
	if err != nil {
		return "", nil, err
	}
	data, err := eip3009token.TransferWithAuthorization(a)
	if err != nil {
		return "", nil, err
	}
	return c.Transact(ctx, c.Deployer, &c.Token, data, gas)
}

// SettleX402 settles an x402 exact payment (its payload's authorization and
// signature).
func (c *Chain) SettleX402(ctx context.Context, payment *jsonv.Object, gas uint64) (string, *evmrpc.Landed, error) {
	payload, ok := payment.GetObject("payload")
	auth, okAuth := payload.GetObject("authorization")
	sig, okSig := payload.GetString("signature")
	if !ok || !okAuth || !okSig {
		return "", nil, errors.New("simchain: the payment has no payload.authorization and payload.signature")
	}
	return c.Settle(ctx, auth, sig, gas)
}

// SettleMPP settles an mpp/charge/evm/authorization credential: its payload
// is the authorization's fields and signature.
func (c *Chain) SettleMPP(ctx context.Context, credential *jsonv.Object, gas uint64) (string, *evmrpc.Landed, error) {
	payload, ok := credential.GetObject("payload")
	if t, _ := payload.GetString("type"); !ok || t != "authorization" {
		return "", nil, errors.New("simchain: the credential's payload is not an authorization")
	}
	sig, _ := payload.GetString("signature")
	return c.Settle(ctx, payload, sig, gas)
}

// Settler is an x402seller Settler on this chain: a payment that does not
// land with status 1 is refused.
func (c *Chain) Settler(ctx context.Context, payment *jsonv.Object) (string, error) {
	hash, _, err := c.SettleX402(ctx, payment, 0)
	if err != nil {
		return "", fmt.Errorf("transferWithAuthorization: %w", err)
	}
	return hash, nil
}
