package simchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/permit2contracts"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

// AuthorizeEscrow settles an x402/auth-capture/eip155/permit2 payment on the
// commerce-payments escrow (v1.0) as its operator does: authorize(payment
// info, amount, the Permit2 collector, signature), sent by key, which the
// escrow accepts only from the payment info's operator; the collector has
// Permit2 move amount from the payer into the operator's token store. gas as
// for SettlePermit2.
func (c *Chain) AuthorizeEscrow(ctx context.Context, key *ecdsa.PrivateKey, payment *jsonv.Object, amount *big.Int, gas uint64) (string, *evmrpc.Landed, error) {
	p, err := permit2contracts.EscrowPaymentOf(payment)
	if err != nil {
		return "", nil, err
	}
	if amount == nil {
		amount = p.Info.MaxAmount
	}
	data, err := p.Authorize(amount)
	if err != nil {
		return "", nil, err
	}
	return c.Transact(ctx, key, &permit2contracts.Escrow.Address, data, gas)
}

// CaptureEscrow is the operator's capture of amount (no fee) of an
// authorized payment, to its receiver.
func (c *Chain) CaptureEscrow(ctx context.Context, key *ecdsa.PrivateKey, payment *jsonv.Object, amount *big.Int, gas uint64) (string, *evmrpc.Landed, error) {
	p, err := permit2contracts.EscrowPaymentOf(payment)
	if err != nil {
		return "", nil, err
	}
	data, err := p.Capture(amount, 0)
	if err != nil {
		return "", nil, err
	}
	return c.Transact(ctx, key, &permit2contracts.Escrow.Address, data, gas)
}

// EscrowSettler is an x402seller Settler that authorizes auth-capture
// Permit2 payments on this chain, sent by the deployer's key (the option's
// captureAuthorizer): the whole maximum.
func (c *Chain) EscrowSettler(ctx context.Context, payment *jsonv.Object) (string, error) {
	hash, _, err := c.AuthorizeEscrow(ctx, c.Deployer, payment, nil, 0)
	if err != nil {
		if name := permit2contracts.RevertName(err); name != "" {
			return "", fmt.Errorf("authorize: %s: %w", name, err)
		}
		return "", fmt.Errorf("authorize: %w", err)
	}
	return hash, nil
}

// AuthorizedEscrow reads a landed authorize back from the chain alone: the
// receipt must have status 1, the call must be the escrow's authorize, and
// the escrow's PaymentAuthorized log must name the payment hash of the
// call's payment info. It returns what the call carried and that hash; the
// salt is H (or, where the option names a receiver authorizer or policy,
// its commitment: docs/auth-capture.md).
func (c *Chain) AuthorizedEscrow(ctx context.Context, hash string) (permit2contracts.Authorized, atr.Hash, error) {
	l, err := c.Node.Receipt(ctx, hash)
	if err != nil {
		return permit2contracts.Authorized{}, atr.Hash{}, err
	}
	if l == nil || l.Status != 1 {
		return permit2contracts.Authorized{}, atr.Hash{}, fmt.Errorf("simchain: %s did not land with status 1", hash)
	}
	to, input, err := c.Transaction(ctx, hash)
	if err != nil {
		return permit2contracts.Authorized{}, atr.Hash{}, err
	}
	a, err := permit2contracts.AuthorizedOf(to, input)
	if err != nil {
		return permit2contracts.Authorized{}, atr.Hash{}, err
	}
	paymentHash, ok := a.Info.EVMInfo().Hash(ChainID, permit2contracts.Escrow.Address.Hex())
	if !ok {
		return permit2contracts.Authorized{}, atr.Hash{}, errors.New("simchain: the authorized payment info does not hash")
	}
	found := 0
	for _, v := range l.Logs {
		lg := evm.ParseLog(v)
		if evm.SameAddress(lg.Address, permit2contracts.Escrow.Address.Hex()) && evm.SameBytes(lg.Topic(0), evm.TopicPaymentAuthorized) &&
			evm.SameBytes(lg.Topic(1), paymentHash.String()) {
			found++
		}
	}
	if found != 1 {
		return permit2contracts.Authorized{}, atr.Hash{}, fmt.Errorf("simchain: %d PaymentAuthorized logs name the payment hash %s", found, paymentHash)
	}
	return a, paymentHash, nil
}

// Salt is the payment info's salt as the 32 bytes it spells.
func Salt(info permit2contracts.PaymentInfo) atr.Hash { return atr.Hash(common.BigToHash(info.Salt)) }
