package simchain

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/signer/evmrpc"
)

// Signing EVM transactions needs go-ethereum's core/types, which the CLI
// must not compile (internal/depcheck); the facilitator's sends live here,
// with the chain, for tests and the demo.

// Transact signs an EIP-1559 transaction from key, through node n, to to (nil: a contract
// creation) with data, with the node's chain id, fees and key's pending
// nonce, and gas, or the node's estimate when gas is 0; then Sends it. A
// facilitator settling an EIP-3009 authorization is such a transaction.
func Transact(ctx context.Context, n *evmrpc.Node, key *ecdsa.PrivateKey, to *common.Address, data []byte, gas uint64) (string, *evmrpc.Landed, error) {
	from := crypto.PubkeyToAddress(key.PublicKey)
	chain, err := n.ChainID(ctx)
	if err != nil {
		return "", nil, err
	}
	nonce, err := n.PendingNonce(ctx, from)
	if err != nil {
		return "", nil, err
	}
	tip, maxFee, err := n.Fees(ctx)
	if err != nil {
		return "", nil, err
	}
	if gas == 0 {
		call := map[string]any{"from": from, "data": hexutil.Bytes(data)}
		if to != nil {
			call["to"] = to
		}
		if gas, err = n.EstimateGas(ctx, call); err != nil {
			return "", nil, err
		}
	}
	cid := new(big.Int).SetUint64(chain)
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(cid), &types.DynamicFeeTx{
		ChainID: cid, Nonce: nonce, GasTipCap: tip, GasFeeCap: maxFee, Gas: gas, To: to, Data: data,
	})
	if err != nil {
		return "", nil, fmt.Errorf("simchain: %w", err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return "", nil, fmt.Errorf("simchain: %w", err)
	}
	return n.Send(ctx, raw)
}

// Transact is Transact through the chain's own node.
func (c *Chain) Transact(ctx context.Context, key *ecdsa.PrivateKey, to *common.Address, data []byte, gas uint64) (string, *evmrpc.Landed, error) {
	return Transact(ctx, c.Node, key, to, data, gas)
}
