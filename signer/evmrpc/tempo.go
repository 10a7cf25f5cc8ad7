package evmrpc

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/signer"
)

// TempoFees is signer.FeeSource: the node's fees (Fees), the gas it
// estimates for tx's calls from from, paying in tx's fee token, and tx's
// nonce: an expiring nonce (key 2^256−1) needs no lookup, the protocol nonce
// (key 0) is eth_getTransactionCount, and other 2D nonce keys are refused
// (their lookup is not a standard call). A node of another chain than tx's
// is refused before anything is signed for it.
func (n *Node) TempoFees(ctx context.Context, from common.Address, tx *tempo.Tx) (signer.TempoFees, error) {
	chain, err := n.ChainID(ctx)
	if err != nil {
		return signer.TempoFees{}, err
	}
	if tx.ChainID == nil || !tx.ChainID.IsUint64() || tx.ChainID.Uint64() != chain {
		return signer.TempoFees{}, fmt.Errorf("evmrpc: the node serves chain %d, not the transaction's chain %v", chain, tx.ChainID)
	}
	fees := signer.TempoFees{FeeToken: tx.FeeToken}
	switch {
	case tx.NonceKey != nil && tx.NonceKey.Cmp(tempo.MaxNonceKey) == 0:
		fees.NonceKey, fees.Nonce = new(big.Int).Set(tempo.MaxNonceKey), 0
	case tx.NonceKey == nil || tx.NonceKey.Sign() == 0:
		if fees.Nonce, err = n.PendingNonce(ctx, from); err != nil {
			return signer.TempoFees{}, err
		}
		fees.NonceKey = new(big.Int)
	default:
		return signer.TempoFees{}, fmt.Errorf("evmrpc: nonce key %v is neither the expiring key nor 0", tx.NonceKey)
	}
	if fees.MaxPriorityFeePerGas, fees.MaxFeePerGas, err = n.Fees(ctx); err != nil {
		return signer.TempoFees{}, err
	}
	calls := make([]map[string]any, len(tx.Calls))
	for i, c := range tx.Calls {
		calls[i] = map[string]any{"to": c.To, "data": hexutil.Bytes(c.Input), "value": (*hexutil.Big)(bigOr0(c.Value))}
	}
	call := map[string]any{"from": from, "calls": calls, "nonceKey": (*hexutil.Big)(fees.NonceKey)}
	if fees.FeeToken != nil {
		call["feeToken"] = fees.FeeToken
	}
	if fees.GasLimit, err = n.EstimateGas(ctx, call); err != nil {
		return signer.TempoFees{}, err
	}
	return fees, nil
}

func bigOr0(b *big.Int) *big.Int {
	if b == nil {
		return new(big.Int)
	}
	return b
}
