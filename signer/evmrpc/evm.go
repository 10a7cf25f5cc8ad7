package evmrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
)

// Reader is the node as an evm.Reader, for the settlement reads of
// rails/evm (Status, Recover): the network it serves, read once now.
func (n *Node) Reader(ctx context.Context) (evm.Reader, error) {
	chain, err := n.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	return &reader{n: n, ctx: ctx, network: "eip155:" + strconv.FormatUint(chain, 10)}, nil
}

type reader struct {
	n       *Node
	ctx     context.Context // evm.Reader's calls take none; the Reader's maker gave one
	network string
}

func (r *reader) Network() string { return r.network }

// Receipt is the receipt in the form evm.ParseReceipt reads: status the
// number 0 or 1, blockNumber decimal, logs as the node gave them; nil when
// the node holds none.
func (r *reader) Receipt(tx string) (jsonv.Value, error) {
	l, err := r.n.Receipt(r.ctx, tx)
	if err != nil || l == nil {
		return nil, err
	}
	return jsonv.Obj("status", int(l.Status), "blockNumber", strconv.FormatUint(l.Block, 10), "logs", jsonv.Clone(l.Logs)), nil
}

// Head is the number of the block tag names.
func (r *reader) Head(tag string) (uint64, error) {
	raw, err := r.n.call(r.ctx, "eth_getBlockByNumber", tag, false)
	if err != nil {
		return 0, err
	}
	var head struct {
		Number *hexutil.Uint64 `json:"number"`
	}
	if err := json.Unmarshal(raw, &head); err != nil || head.Number == nil {
		return 0, fmt.Errorf("evmrpc: eth_getBlockByNumber(%s): %w", tag, ErrMalformed)
	}
	return uint64(*head.Number), nil
}
