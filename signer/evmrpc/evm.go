package evmrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
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

// Call is eth_call of data to contract to in the state after block: the
// return data as "0x" hex. It makes the reader an evm.Caller, which
// Permit2Status needs to ask Permit2 for a nonce's record at the settling
// block.
func (r *reader) Call(to, data string, block uint64) (string, error) {
	raw, err := r.n.call(r.ctx, "eth_call", map[string]string{"to": to, "data": data}, hexutil.EncodeUint64(block))
	if err != nil {
		return "", err
	}
	var out hexutil.Bytes
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", fmt.Errorf("evmrpc: eth_call: %w: %s", ErrMalformed, short(raw))
	}
	return hexutil.Encode(out), nil
}

// Transaction is eth_getTransactionByHash of tx: the contract it called and
// its input, so that a settlement read can check what the call carried
// (evm.TxReader). No transaction, or one that created a contract, is an
// error: there is no call to read.
func (r *reader) Transaction(tx string) (to, input string, err error) {
	raw, err := r.n.call(r.ctx, "eth_getTransactionByHash", tx)
	if err != nil {
		return "", "", err
	}
	var t *struct {
		Hash  *common.Hash    `json:"hash"`
		To    *common.Address `json:"to"`
		Input *hexutil.Bytes  `json:"input"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return "", "", fmt.Errorf("evmrpc: eth_getTransactionByHash: %w: %s", ErrMalformed, short(raw))
	}
	if t == nil {
		return "", "", fmt.Errorf("evmrpc: eth_getTransactionByHash(%s): no such transaction", tx)
	}
	if t.Hash == nil || !strings.EqualFold(t.Hash.Hex(), tx) || t.To == nil || t.Input == nil {
		// Another transaction's answer, or no call: nothing to read.
		return "", "", fmt.Errorf("evmrpc: eth_getTransactionByHash(%s): %w: %s", tx, ErrWrongHash, short(raw))
	}
	return strings.ToLower(t.To.Hex()), hexutil.Encode(*t.Input), nil
}
