package hederaseller

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/hedera"
)

// The session demo's EVM addresses on Hedera testnet (chain 296): the
// escrow and token of the vector file, and the payee.
const (
	EscrowContract = "0x8aaf6690c2a6397d595f97e224fc19759de6fdae"
	SessionToken   = "0x0000000000000000000000000000000000001549"
	SessionPayee   = "0x742d35cc6634c0532925a3b844bc9e7595f8fe00"
	topicTransfer  = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
	topicApproval  = "0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7e2d8f5a31f3b68a5e4b7e2"
)

// Relay is a loopback Hedera JSON-RPC relay on chain 296: it answers the
// eth_ methods the buyer's node client calls (chainId, fees, the block,
// nonces, estimates, sendRawTransaction, receipts), decodes each raw
// EIP-1559 transaction with go-ethereum, refuses one for another chain or
// out of nonce order, and executes it as the token and the escrow would: an
// approve on the token records the allowance (an Approval log); an open on
// the escrow takes the deposit from the payer's balance under that
// allowance (a Transfer log from the token) and emits ChannelOpened with
// the channel id computed from the call and the sender; anything else
// reverts (status 0). Balances start at Funded for every account.
type Relay struct {
	mu        sync.Mutex
	block     uint64
	nonces    map[common.Address]uint64
	allowance map[[2]common.Address]*big.Int
	spent     map[common.Address]*big.Int
	receipts  map[common.Hash]map[string]any
	// Opened is the channels the escrow opened, by id.
	Opened map[string]OpenedChannel
}

// Funded is every account's starting token balance.
var Funded = big.NewInt(1_000_000_000)

// OpenedChannel is one channel the escrow holds.
type OpenedChannel struct {
	Payer, Payee, Token, Signer common.Address
	Salt                        common.Hash
	Deposit                     *big.Int
}

// StartRelay serves a Relay; url is its JSON-RPC endpoint (plain HTTP on
// loopback) and stop ends it.
func StartRelay() (r *Relay, url string, stop func()) {
	r = &Relay{block: 40_000_000, nonces: map[common.Address]uint64{}, allowance: map[[2]common.Address]*big.Int{},
		spent: map[common.Address]*big.Int{}, receipts: map[common.Hash]map[string]any{}, Opened: map[string]OpenedChannel{}}
	srv := rpc.NewServer()
	if err := srv.RegisterName("eth", &relayEth{r}); err != nil {
		panic("hederaseller: " + err.Error()) // the service's methods are fixed
	}
	hs := httptest.NewServer(srv)
	return r, hs.URL, func() { hs.Close(); srv.Stop() }
}

type relayEth struct{ r *Relay }

func (e *relayEth) ChainId() hexutil.Uint64 { return 296 }

func (e *relayEth) MaxPriorityFeePerGas() *hexutil.Big { return (*hexutil.Big)(big.NewInt(0)) }

func (e *relayEth) GasPrice() *hexutil.Big { return (*hexutil.Big)(big.NewInt(710_000_000_000)) }

func (e *relayEth) GetBlockByNumber(string, bool) (map[string]any, error) {
	e.r.mu.Lock()
	defer e.r.mu.Unlock()
	return map[string]any{"number": hexutil.Uint64(e.r.block), "baseFeePerGas": (*hexutil.Big)(big.NewInt(710_000_000_000))}, nil
}

func (e *relayEth) GetTransactionCount(a common.Address, _ string) hexutil.Uint64 {
	e.r.mu.Lock()
	defer e.r.mu.Unlock()
	return hexutil.Uint64(e.r.nonces[a])
}

func (e *relayEth) EstimateGas(map[string]any) hexutil.Uint64 { return 400_000 }

func word(b []byte) common.Hash { return common.BytesToHash(b) }

// SendRawTransaction lands tx in the next block (see Relay).
func (e *relayEth) SendRawTransaction(raw hexutil.Bytes) (common.Hash, error) {
	// rails/evm's strict reader, not go-ethereum's core/types: this seller
	// is linked into the CLI, whose payment path stays light
	// (internal/depcheck).
	tx, err := evm.DecodeEIP1559(raw)
	if err != nil {
		return common.Hash{}, fmt.Errorf("invalid transaction: %v", err)
	}
	if !tx.ChainID.IsUint64() || tx.ChainID.Uint64() != 296 || tx.To == nil {
		return common.Hash{}, errors.New("invalid chain id, or a contract creation")
	}
	from, err := tx.Sender()
	if err != nil {
		return common.Hash{}, fmt.Errorf("invalid signature: %v", err)
	}
	r := e.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if tx.Nonce != r.nonces[from] {
		return common.Hash{}, errors.New("nonce too low or too high")
	}
	r.nonces[from]++
	r.block++
	hash, err := tx.Hash()
	if err != nil {
		return common.Hash{}, fmt.Errorf("invalid transaction: %v", err)
	}
	logs, ok := r.execute(from, *tx.To, tx.Data)
	status := hexutil.Uint64(1)
	if !ok {
		status, logs = 0, []any{}
	}
	for _, l := range logs {
		m := l.(map[string]any)
		m["transactionHash"], m["blockNumber"] = hash, hexutil.Uint64(r.block)
	}
	r.receipts[hash] = map[string]any{"transactionHash": hash, "status": status, "blockNumber": hexutil.Uint64(r.block),
		"from": from, "to": tx.To, "logs": logs}
	return hash, nil
}

var (
	selApprove = []byte{0x09, 0x5e, 0xa7, 0xb3}
	selOpen    = []byte{0xc7, 0x9e, 0xa4, 0x85}
)

// execute runs one call as the token or the escrow: its logs, or false
// for a revert.
func (r *Relay) execute(from, to common.Address, data []byte) ([]any, bool) {
	token, escrow := common.HexToAddress(SessionToken), common.HexToAddress(EscrowContract)
	switch {
	case to == token && len(data) == 68 && bytes.Equal(data[:4], selApprove):
		spender, amount := common.BytesToAddress(data[4:36]), new(big.Int).SetBytes(data[36:68])
		r.allowance[[2]common.Address{from, spender}] = amount
		return []any{map[string]any{"address": token, "topics": []any{topicApproval, word(from.Bytes()), word(spender.Bytes())},
			"data": hexutil.Bytes(data[36:68])}}, true
	case to == escrow && len(data) == 164 && bytes.Equal(data[:4], selOpen):
		payee, tok := common.BytesToAddress(data[4:36]), common.BytesToAddress(data[36:68])
		deposit, salt, signer := new(big.Int).SetBytes(data[68:100]), common.BytesToHash(data[100:132]), common.BytesToAddress(data[132:164])
		key := [2]common.Address{from, escrow}
		allowed := r.allowance[key]
		spent := r.spent[from]
		if spent == nil {
			spent = new(big.Int)
		}
		if tok != token || deposit.Sign() <= 0 || allowed == nil || allowed.Cmp(deposit) < 0 ||
			new(big.Int).Add(spent, deposit).Cmp(Funded) > 0 {
			return nil, false
		}
		r.allowance[key] = new(big.Int).Sub(allowed, deposit)
		r.spent[from] = new(big.Int).Add(spent, deposit)
		channel := hedera.ChannelID(from.Hex(), payee.Hex(), tok.Hex(), atr.Hash(salt), signer.Hex(), escrow.Hex(), 296)
		id := channel.String()
		if _, dup := r.Opened[id]; dup {
			return nil, false
		}
		r.Opened[id] = OpenedChannel{Payer: from, Payee: payee, Token: tok, Signer: signer, Salt: salt, Deposit: deposit}
		opened := append(append(append(word(tok.Bytes()).Bytes(), word(signer.Bytes()).Bytes()...), salt.Bytes()...),
			word(deposit.Bytes()).Bytes()...)
		return []any{
			map[string]any{"address": token, "topics": []any{topicTransfer, word(from.Bytes()), word(escrow.Bytes())},
				"data": hexutil.Bytes(word(deposit.Bytes()).Bytes())},
			map[string]any{"address": escrow, "topics": []any{hedera.TopicChannelOpened, id, word(from.Bytes()), word(payee.Bytes())},
				"data": hexutil.Bytes(opened)},
		}, true
	}
	return nil, false
}

// GetTransactionReceipt is the landed receipt, or null.
func (e *relayEth) GetTransactionReceipt(hash common.Hash) (json.RawMessage, error) {
	e.r.mu.Lock()
	rc, ok := e.r.receipts[hash]
	e.r.mu.Unlock()
	if !ok {
		return json.RawMessage("null"), nil
	}
	return json.Marshal(rc)
}

// Channels is how many channels the escrow opened.
func (r *Relay) Channels() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.Opened)
}

// ChannelOf is the opened channel id, lowercase, or false.
func (r *Relay) ChannelOf(id string) (OpenedChannel, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.Opened[strings.ToLower(id)]
	return c, ok
}
