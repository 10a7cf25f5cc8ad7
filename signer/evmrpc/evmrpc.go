// Package evmrpc is a node behind go-ethereum's JSON-RPC client, for signers
// that broadcast what they sign and for reading settlements back: fees from
// eth_maxPriorityFeePerGas and the latest block's base fee, gas from
// eth_estimateGas, nonces from eth_getTransactionCount, eth_sendRawTransaction,
// and receipt polling with a bounded wait. It implements signer.Broadcaster
// and signer.FeeSource for Tempo (0x76) transactions, hands over any signed
// transaction (internal/simchain signs EVM type-2 ones with it), and is an
// evm.Reader.
//
// A signed transaction that was handed to the node is never signed again:
// whatever goes wrong after that (an error, a timeout, a receipt of status
// 0, another transaction's receipt, no receipt within the wait) is reported
// with the transaction's hash, so that the payment is kept as moved.
//
// Only the CLI (--rpc URL) and tests import this package: the gate, pay and
// the MCP server never talk to a chain.
package evmrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/termsgate/termsgate/jsonv"
)

// Defaults of a Node's bounds.
const (
	DefaultCallTimeout = 10 * time.Second
	DefaultWait        = 60 * time.Second
	DefaultPoll        = 500 * time.Millisecond
)

// maxAnswerBytes bounds a JSON answer this package parses (a receipt with
// many logs stays far below it).
const maxAnswerBytes = 4 << 20

// Errors a send reports with the transaction's hash: it left, and may move
// value.
var (
	ErrNotLanded    = errors.New("evmrpc: no receipt within the wait")
	ErrReverted     = errors.New("evmrpc: the transaction reverted (receipt status 0)")
	ErrWrongReceipt = errors.New("evmrpc: the node answered with another transaction's receipt")
	ErrWrongHash    = errors.New("evmrpc: the node named another hash than the transaction's")
	ErrMalformed    = errors.New("evmrpc: the node's answer does not read")
)

// Node is one chain's JSON-RPC endpoint.
type Node struct {
	c *rpc.Client
	// CallTimeout bounds each call; Wait bounds receipt polling after a send;
	// Poll is the time between receipt reads. Zero: the defaults.
	CallTimeout, Wait, Poll time.Duration
}

// Dial returns a Node for an http or https URL. It does not connect until
// the first call.
func Dial(rawURL string) (*Node, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("evmrpc: %q is not an http or https URL of a JSON-RPC node", rawURL)
	}
	hc := &http.Client{
		// Each call has its own deadline; this is the backstop for a
		// context without one.
		Timeout:       2 * time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	c, err := rpc.DialOptions(context.Background(), rawURL, rpc.WithHTTPClient(hc))
	if err != nil {
		return nil, fmt.Errorf("evmrpc: %w", err)
	}
	return New(c), nil
}

// New returns a Node over an existing client (an in-process one, in tests
// and the demo).
func New(c *rpc.Client) *Node { return &Node{c: c} }

// Close closes the client.
func (n *Node) Close() { n.c.Close() }

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// call is one JSON-RPC call under CallTimeout, its answer raw.
func (n *Node) call(ctx context.Context, method string, args ...any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, orDefault(n.CallTimeout, DefaultCallTimeout))
	defer cancel()
	var raw json.RawMessage
	if err := n.c.CallContext(ctx, &raw, method, args...); err != nil {
		return nil, fmt.Errorf("evmrpc: %s: %w", method, err)
	}
	if len(raw) > maxAnswerBytes {
		return nil, fmt.Errorf("evmrpc: %s: %w: larger than %d bytes", method, ErrMalformed, maxAnswerBytes)
	}
	return raw, nil
}

// quantity calls method and reads a hex quantity answer.
func (n *Node) quantity(ctx context.Context, method string, args ...any) (*big.Int, error) {
	raw, err := n.call(ctx, method, args...)
	if err != nil {
		return nil, err
	}
	// hexutil reads "" as zero; a quantity has at least one digit ("0x0"),
	// and an empty answer is no nonce, gas or chain id.
	var q hexutil.Big
	if err := json.Unmarshal(raw, &q); err != nil || string(raw) == `""` {
		return nil, fmt.Errorf("evmrpc: %s: %w: %s", method, ErrMalformed, short(raw))
	}
	return (*big.Int)(&q), nil
}

func uint64Of(method string, b *big.Int) (uint64, error) {
	if !b.IsUint64() {
		return 0, fmt.Errorf("evmrpc: %s: %w: %s does not fit 64 bits", method, ErrMalformed, b)
	}
	return b.Uint64(), nil
}

// ChainID is eth_chainId.
func (n *Node) ChainID(ctx context.Context) (uint64, error) {
	b, err := n.quantity(ctx, "eth_chainId")
	if err != nil {
		return 0, err
	}
	return uint64Of("eth_chainId", b)
}

// Fees are EIP-1559 fee fields: the priority fee the node suggests and a
// maximum of twice the latest base fee plus it, which stays payable through
// several blocks of rising base fee.
func (n *Node) Fees(ctx context.Context) (tip, maxFee *big.Int, err error) {
	tip, err = n.quantity(ctx, "eth_maxPriorityFeePerGas")
	if err != nil {
		return nil, nil, err
	}
	raw, err := n.call(ctx, "eth_getBlockByNumber", "latest", false)
	if err != nil {
		return nil, nil, err
	}
	var head struct {
		BaseFee *hexutil.Big `json:"baseFeePerGas"`
	}
	if err := json.Unmarshal(raw, &head); err != nil || head.BaseFee == nil {
		return nil, nil, fmt.Errorf("evmrpc: eth_getBlockByNumber: %w: no baseFeePerGas in the latest block", ErrMalformed)
	}
	base := (*big.Int)(head.BaseFee)
	maxFee = new(big.Int).Add(new(big.Int).Lsh(base, 1), tip)
	return tip, maxFee, nil
}

// EstimateGas is eth_estimateGas of a call object (from, to, data, and for
// Tempo calls and feeToken).
func (n *Node) EstimateGas(ctx context.Context, call map[string]any) (uint64, error) {
	b, err := n.quantity(ctx, "eth_estimateGas", call)
	if err != nil {
		return 0, err
	}
	return uint64Of("eth_estimateGas", b)
}

// PendingNonce is eth_getTransactionCount(addr, "pending"): the nonce of
// addr's next transaction, counting those the node holds unmined.
func (n *Node) PendingNonce(ctx context.Context, addr common.Address) (uint64, error) {
	b, err := n.quantity(ctx, "eth_getTransactionCount", addr, "pending")
	if err != nil {
		return 0, err
	}
	return uint64Of("eth_getTransactionCount", b)
}

// CallContract is eth_call at the latest block.
func (n *Node) CallContract(ctx context.Context, to common.Address, data []byte) ([]byte, error) {
	raw, err := n.call(ctx, "eth_call", map[string]any{"to": to, "data": hexutil.Bytes(data)}, "latest")
	if err != nil {
		return nil, err
	}
	var out hexutil.Bytes
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("evmrpc: eth_call: %w: %s", ErrMalformed, short(raw))
	}
	return out, nil
}

// Landed is a transaction's receipt as the node gave it.
type Landed struct {
	Hash   string // "0x" and 64 lowercase hex
	Block  uint64
	Status uint64 // 1 succeeded, 0 reverted
	Logs   []jsonv.Value
	Raw    *jsonv.Object
}

// Send hands raw (a signed transaction's wire bytes) to the node with
// eth_sendRawTransaction and waits for its receipt. The hash is keccak256 of
// raw, known before the call: whenever Send returns an error with a non-empty
// hash, the transaction may have left and must not be signed again. A node
// that refuses it outright (a JSON-RPC error answer) returns the hash too:
// "already known" is such an answer, for a transaction that did leave.
func (n *Node) Send(ctx context.Context, raw []byte) (string, *Landed, error) {
	hash := "0x" + common.Bytes2Hex(crypto.Keccak256(raw))
	answer, err := n.call(ctx, "eth_sendRawTransaction", hexutil.Bytes(raw))
	if err != nil {
		return hash, nil, err
	}
	var named common.Hash
	if err := json.Unmarshal(answer, &named); err != nil || !strings.EqualFold(named.Hex(), hash) {
		return hash, nil, fmt.Errorf("%w: %s, not %s", ErrWrongHash, short(answer), hash)
	}
	landed, err := n.WaitReceipt(ctx, hash)
	return hash, landed, err
}

// WaitReceipt polls eth_getTransactionReceipt for hash until it lands, Wait
// passes or ctx ends. A receipt of status 0 is returned with ErrReverted; a
// receipt of another transaction is ErrWrongReceipt, never taken for this one.
func (n *Node) WaitReceipt(ctx context.Context, hash string) (*Landed, error) {
	ctx, cancel := context.WithTimeout(ctx, orDefault(n.Wait, DefaultWait))
	defer cancel()
	poll := orDefault(n.Poll, DefaultPoll)
	var last error
	for {
		l, err := n.Receipt(ctx, hash)
		switch {
		case err == nil && l != nil && l.Status != 1:
			return l, ErrReverted
		case err == nil && l != nil:
			return l, nil
		case errors.Is(err, ErrWrongReceipt), errors.Is(err, ErrMalformed):
			return nil, err
		case err != nil:
			last = err // a failed read may be the node's hiccup: read again
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			if last != nil {
				return nil, fmt.Errorf("%w (last error: %v)", ErrNotLanded, last)
			}
			return nil, ErrNotLanded
		case <-t.C:
		}
	}
}

// Receipt is eth_getTransactionReceipt of hash: nil when the node has none.
func (n *Node) Receipt(ctx context.Context, hash string) (*Landed, error) {
	raw, err := n.call(ctx, "eth_getTransactionReceipt", common.HexToHash(hash))
	if err != nil {
		return nil, err
	}
	v, err := jsonv.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("evmrpc: eth_getTransactionReceipt: %w: %v", ErrMalformed, err)
	}
	if v == nil {
		return nil, nil
	}
	return readReceipt(v, hash)
}

// readReceipt reads a node's receipt of hash: transactionHash (which must be
// hash), status, blockNumber, logs.
func readReceipt(v jsonv.Value, hash string) (*Landed, error) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, fmt.Errorf("%w: the receipt is not an object", ErrMalformed)
	}
	tx, _ := o.GetString("transactionHash")
	if !strings.EqualFold(tx, hash) {
		return nil, fmt.Errorf("%w: %q for %s", ErrWrongReceipt, tx, hash)
	}
	status, okStatus := hexUint(o, "status")
	block, okBlock := hexUint(o, "blockNumber")
	lv, _ := o.Get("logs")
	logs, okLogs := jsonv.AsArray(lv)
	if !okStatus || !okBlock || !okLogs || status > 1 {
		return nil, fmt.Errorf("%w: the receipt of %s lacks a status, a block number or logs", ErrMalformed, hash)
	}
	return &Landed{Hash: strings.ToLower(hash), Block: block, Status: status, Logs: logs, Raw: o}, nil
}

// hexUint reads member k, a hex quantity of at most 64 bits.
func hexUint(o *jsonv.Object, k string) (uint64, bool) {
	s, _ := o.GetString(k)
	n, err := hexutil.DecodeUint64(s)
	return n, err == nil
}

// short is raw for an error message, cut to 200 bytes.
func short(raw []byte) string {
	if len(raw) > 200 {
		return string(raw[:200]) + "…"
	}
	return string(raw)
}

// Broadcast is signer.Broadcaster: Send, answering the receipt as
// {transaction, blockNumber (decimal), logs}, the form
// mpp/charge/tempo/push reads H back from. Any failure after the hand-over
// comes with the hash.
func (n *Node) Broadcast(ctx context.Context, raw []byte) (string, jsonv.Value, error) {
	hash, l, err := n.Send(ctx, raw)
	if err != nil {
		return hash, nil, err
	}
	return hash, jsonv.Obj("transaction", l.Hash, "blockNumber", strconv.FormatUint(l.Block, 10), "logs", jsonv.Clone(l.Logs)), nil
}
