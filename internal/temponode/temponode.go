// Package temponode is a loopback Tempo JSON-RPC node for tests: it decodes
// each raw 0x76 transaction with termsgate's own decoder (rails/tempo),
// refuses one for another chain, under the base fee, under its own gas
// estimate or past valid_before, and lands it in the next block with the
// TransferWithMemo logs its pathUSD memo calls emit. Its faults make it a bad
// node. It serves go-ethereum's rpc server over httptest.
package temponode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/termsgate/termsgate/rails/tempo"
)

// Node is the node's state. Its exported fields are read by the serving
// goroutines: set them through Start, not after.
type Node struct {
	ChainID uint64
	BaseFee *big.Int
	Tip     *big.Int
	GasCall uint64 // the estimate per call, above 21000

	// Fault is "" (a good node), "slow" (answers a send after Slow),
	// "send-error" (keeps the transaction but answers an error),
	// "receipt-error", "status-0", "other-receipt" (another hash in the
	// receipt), "never-lands" or "estimate-error".
	Fault string
	Slow  time.Duration

	mu        sync.Mutex
	block     uint64
	sent      []*tempo.DecodedTx
	receipts  map[common.Hash]map[string]any
	estimates []map[string]any
}

// Start serves a node of chain (Tempo Moderato is 42431) with fault; stop
// ends it.
func Start(chain uint64, fault string) (n *Node, url string, stop func()) {
	n = &Node{ChainID: chain, BaseFee: big.NewInt(20_000_000_000), Tip: big.NewInt(1_000_000), GasCall: 60_000,
		Fault: fault, Slow: 2 * time.Second, block: 100, receipts: map[common.Hash]map[string]any{}}
	srv := rpc.NewServer()
	if err := srv.RegisterName("eth", &tempoEth{n}); err != nil {
		panic("temponode: " + err.Error()) // the service's methods are fixed
	}
	hs := httptest.NewServer(srv)
	return n, hs.URL, func() { hs.Close(); srv.Stop() }
}

// Sent is the transactions the node was handed, decoded.
func (n *Node) Sent() []*tempo.DecodedTx {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]*tempo.DecodedTx(nil), n.sent...)
}

// Estimates is the call objects of the node's eth_estimateGas calls.
func (n *Node) Estimates() []map[string]any {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]map[string]any(nil), n.estimates...)
}

type tempoEth struct{ n *Node }

func (e *tempoEth) ChainId() hexutil.Uint64 { return hexutil.Uint64(e.n.ChainID) }

func (e *tempoEth) MaxPriorityFeePerGas() *hexutil.Big { return (*hexutil.Big)(e.n.Tip) }

func (e *tempoEth) GetBlockByNumber(tag string, _ bool) (map[string]any, error) {
	e.n.mu.Lock()
	defer e.n.mu.Unlock()
	return map[string]any{"number": hexutil.Uint64(e.n.block), "baseFeePerGas": (*hexutil.Big)(e.n.BaseFee)}, nil
}

func (e *tempoEth) GetTransactionCount(common.Address, string) hexutil.Uint64 { return 0 }

// EstimateGas reads a Tempo call object: {from, calls: [{to, data, value}],
// nonceKey, feeToken}.
func (e *tempoEth) EstimateGas(call map[string]any) (hexutil.Uint64, error) {
	if e.n.Fault == "estimate-error" {
		return 0, errors.New("execution reverted: insufficient fee token balance")
	}
	calls, ok := call["calls"].([]any)
	if !ok || len(calls) == 0 {
		return 0, errors.New("a Tempo estimate needs calls")
	}
	e.n.mu.Lock()
	e.n.estimates = append(e.n.estimates, call)
	e.n.mu.Unlock()
	return hexutil.Uint64(21_000 + e.n.GasCall*uint64(len(calls))), nil
}

func (e *tempoEth) SendRawTransaction(ctx context.Context, raw hexutil.Bytes) (common.Hash, error) {
	tx, err := tempo.DecodeTx(raw)
	if err != nil {
		return common.Hash{}, fmt.Errorf("invalid transaction: %v", err)
	}
	from, err := tx.Sender()
	if err != nil {
		return common.Hash{}, fmt.Errorf("invalid signature: %v", err)
	}
	n := e.n
	f := FeesOf(tx)
	switch {
	case tx.ChainID.Uint64() != n.ChainID:
		return common.Hash{}, errors.New("invalid chain id")
	case f.MaxFee.Cmp(new(big.Int).Add(n.BaseFee, f.Tip)) < 0:
		return common.Hash{}, errors.New("max fee per gas less than block base fee")
	case f.Gas < 21_000+n.GasCall*uint64(len(tx.Calls)):
		return common.Hash{}, errors.New("intrinsic gas too low")
	case tx.ValidBefore != nil && tx.ValidBefore.Cmp(big.NewInt(time.Now().Unix())) <= 0:
		return common.Hash{}, errors.New("transaction expired")
	}
	hash := crypto.Keccak256Hash(raw)
	n.mu.Lock()
	n.sent = append(n.sent, tx)
	n.block++
	var logs []any
	for _, c := range tx.Calls {
		memo, ok := tempo.MemoOf(c, tempo.PathUSD)
		if !ok {
			continue
		}
		logs = append(logs, map[string]any{
			"address": tempo.PathUSD,
			"topics": []any{tempo.TopicTransferWithMemo, common.BytesToHash(from.Bytes()),
				common.BytesToHash(c.Input[16:36]), common.Hash(memo)},
			"data": hexutil.Bytes(c.Input[36:68]), "transactionHash": hash, "blockNumber": hexutil.Uint64(n.block),
		})
	}
	status := hexutil.Uint64(1)
	if n.Fault == "status-0" {
		status, logs = 0, []any{}
	}
	n.receipts[hash] = map[string]any{"transactionHash": hash, "status": status, "blockNumber": hexutil.Uint64(n.block),
		"type": "0x76", "from": from, "logs": logs}
	n.mu.Unlock()
	switch n.Fault {
	case "send-error":
		return common.Hash{}, errors.New("already known")
	case "slow":
		select {
		case <-time.After(n.Slow):
		case <-ctx.Done():
		}
	}
	return hash, nil
}

func (e *tempoEth) GetTransactionReceipt(hash common.Hash) (json.RawMessage, error) {
	n := e.n
	n.mu.Lock()
	r, ok := n.receipts[hash]
	n.mu.Unlock()
	switch {
	case n.Fault == "receipt-error":
		return nil, errors.New("header not found")
	case n.Fault == "never-lands" || !ok:
		return json.RawMessage("null"), nil
	case n.Fault == "other-receipt":
		other := map[string]any{}
		for k, v := range r {
			other[k] = v
		}
		other["transactionHash"] = common.HexToHash("0x" + strings.Repeat("ab", 32))
		r = other
	}
	return json.Marshal(r)
}

// Fees are a decoded transaction's fee items: max priority fee (item 1),
// max fee (2), gas limit (3), nonce key (6).
type Fees struct {
	Tip, MaxFee, NonceKey *big.Int
	Gas                   uint64
}

// FeesOf reads tx's fee items.
func FeesOf(tx *tempo.DecodedTx) Fees {
	num := func(i int) *big.Int { return new(big.Int).SetBytes(tx.Items[i].Bytes) }
	return Fees{Tip: num(1), MaxFee: num(2), Gas: num(3).Uint64(), NonceKey: num(6)}
}
