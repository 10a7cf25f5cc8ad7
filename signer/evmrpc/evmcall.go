package evmrpc

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/termsgate/termsgate/signer"
)

var _ signer.EVMFeeSource = (*Node)(nil)

// EVMFees chooses the fields of an EIP-1559 transaction of one call from
// the node: its fees (Fees), the gas it estimates for the call, and from's
// pending nonce. A node of another chain is refused.
func (n *Node) EVMFees(ctx context.Context, from common.Address, chainID int64, to common.Address, data []byte) (signer.EVMFees, error) {
	id, err := n.ChainID(ctx)
	if err != nil {
		return signer.EVMFees{}, err
	}
	if chainID <= 0 || id != uint64(chainID) {
		return signer.EVMFees{}, fmt.Errorf("evmrpc: the node serves chain %d, not %d", id, chainID)
	}
	tip, maxFee, err := n.Fees(ctx)
	if err != nil {
		return signer.EVMFees{}, err
	}
	gas, err := n.EstimateGas(ctx, map[string]any{"from": from, "to": to, "data": hexutil.Bytes(data)})
	if err != nil {
		return signer.EVMFees{}, err
	}
	nonce, err := n.PendingNonce(ctx, from)
	if err != nil {
		return signer.EVMFees{}, err
	}
	return signer.EVMFees{MaxPriorityFeePerGas: tip, MaxFeePerGas: maxFee, Gas: gas, Nonce: nonce}, nil
}
