// Package relay reads mpp/session/hedera's inputs and settlement from a
// Hedera JSON-RPC relay (Hashio, or a self-run hedera-json-rpc-relay): the
// relay serves Hedera's EVM through the standard eth_ JSON-RPC methods
// (eth_chainId, eth_getTransactionReceipt, eth_getBlockByNumber,
// eth_sendRawTransaction, fees and nonces), so the node client is
// signer/evmrpc's; this package names the network as CAIP-2 hedera:…
// from the relay's chain id (295 mainnet, 296 testnet), which the pairing's
// reads require (hedera.FetchSessionPresented, hedera.SessionStatus).
package relay

import (
	"context"
	"fmt"

	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

// Reader is node as an evm.Reader of its Hedera network: the chain id read
// once now, refused unless it is 295 or 296.
func Reader(ctx context.Context, node *evmrpc.Node) (evm.Reader, error) {
	chain, err := node.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	network, ok := hedera.SessionNetwork(int64(chain))
	if !ok || chain > 1<<31 {
		return nil, fmt.Errorf("relay: chain id %d is not a Hedera network's (295 or 296)", chain)
	}
	r, err := node.Reader(ctx)
	if err != nil {
		return nil, err
	}
	return named{Reader: r, network: network}, nil
}

// Dial connects to a relay's JSON-RPC URL.
func Dial(url string) (*evmrpc.Node, error) { return evmrpc.Dial(url) }

type named struct {
	evm.Reader
	network string
}

func (n named) Network() string { return n.network }
