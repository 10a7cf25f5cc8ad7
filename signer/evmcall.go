package signer

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
)

// KindEVMCall is the evm-call request (mpp/charge/evm/transaction and
// /hash): {kind, chainId, call: {to, data}, broadcast}, one EIP-1559
// transaction of the call with no value. Answered with the signed
// transaction as 0x hex, or when broadcast with {hash}.
const KindEVMCall = "evm-call"

// EVMFees are the transaction fields an evm-call request leaves to the
// signer.
type EVMFees struct {
	MaxPriorityFeePerGas *big.Int
	MaxFeePerGas         *big.Int
	Gas                  uint64
	Nonce                uint64
}

// EVMFeeSource chooses the fee fields and nonce of a transaction about to be
// signed, from the node that will carry it; it refuses a node of another
// chain. signer/evmrpc.Node is one over JSON-RPC.
type EVMFeeSource interface {
	EVMFees(ctx context.Context, from common.Address, chainID int64, to common.Address, data []byte) (EVMFees, error)
}

// EVM is a local key signing evm-call requests with fee fields either fixed
// (Fees) or chosen by a node (FeeSource), and handing broadcast requests to
// a Broadcaster; every other request goes to the Local signer. A transaction
// signed for someone else to send needs fees that will be accepted, so
// there is no default: without Fees or a FeeSource an evm-call is refused.
type EVM struct {
	*Local
	Fees        *EVMFees     // nil: ask FeeSource
	FeeSource   EVMFeeSource // nil: use Fees
	Broadcaster Broadcaster  // nil: broadcast requests are refused
}

// NewEVM returns an EVM signer for l taking its fees from node and
// broadcasting through it when node is also a Broadcaster (as
// signer/evmrpc.Node is).
func NewEVM(l *Local, node EVMFeeSource) *EVM {
	e := &EVM{Local: l, FeeSource: node}
	if b, ok := node.(Broadcaster); ok {
		e.Broadcaster = b
	}
	return e
}

// Sign signs req.
func (e *EVM) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch kind, _ := req.GetString("kind"); kind {
	case KindEVMCall:
		return e.signEVMCall(ctx, req)
	case evm.KindEVMCalls:
		return e.signEVMCalls(ctx, req)
	}
	return e.Local.Sign(ctx, req)
}

// maxCalls bounds an evm-calls request: an opening is two calls (approve,
// then open).
const maxCalls = 4

// signEVMCalls answers an evm-calls request, {kind, chainId, calls: [{to,
// data}, …], broadcast: true} (mpp/session/evm's and mpp/session/hedera's
// opening): each call its own transaction, signed and sent in order, each
// waiting for the one before to land (its fees and nonce chosen after
// it). It answers {hash, landed?} of the last. Every call is read before
// the first is signed; a broadcaster and a fee source are required.
func (e *EVM) signEVMCalls(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	v, _ := req.Get("calls")
	list, ok := jsonv.AsArray(v)
	cv, _ := req.Get("chainId")
	if b, _ := req.Get("broadcast"); req.Len() != 4 || !ok || len(list) == 0 || len(list) > maxCalls || b != true {
		return nil, fmt.Errorf("signer: evm-calls request: not {kind, chainId, calls (1 to %d), broadcast: true}", maxCalls)
	}
	singles := make([]rails.Request, len(list))
	for i, c := range list {
		call, _ := jsonv.AsObject(c)
		singles[i] = jsonv.Obj("kind", KindEVMCall, "chainId", cv, "call", call, "broadcast", true)
		if _, _, _, _, err := e.evmCall(singles[i]); err != nil {
			return nil, fmt.Errorf("signer: evm-calls call %d: %w", i, err)
		}
	}
	if e.Broadcaster == nil || e.FeeSource == nil {
		return nil, errors.New("signer: evm-calls are sent: they need a node (termsgate --rpc URL)")
	}
	var last jsonv.Value
	for i, single := range singles {
		a, err := e.signEVMCallLanded(ctx, single)
		if err != nil {
			return nil, fmt.Errorf("signer: evm-calls call %d: %w", i, err)
		}
		last = a
	}
	return last, nil
}

// evmCall reads an evm-call request strictly: a chainId on the account's
// chain, one call {to: address, data: hex}, a broadcast flag. Anything else
// is refused, not guessed.
func (l *Local) evmCall(req rails.Request) (chain int64, to common.Address, data []byte, broadcast bool, err error) {
	bad := func(what string) error { return fmt.Errorf("signer: evm-call request: %s", what) }
	if req.Len() != 4 {
		return 0, to, nil, false, bad("members other than kind, chainId, call and broadcast")
	}
	cv, _ := req.Get("chainId")
	chain, ok := jsonv.AsSafeInt(cv)
	if !ok || chain <= 0 {
		return 0, to, nil, false, bad("chainId is not a positive integer")
	}
	if want := l.evmChain(); want != strconv.FormatInt(chain, 10) {
		return 0, to, nil, false, bad("chainId " + strconv.FormatInt(chain, 10) + " is not this account's chain " + want)
	}
	c, _ := req.GetObject("call")
	toText, _ := c.GetString("to")
	dataText, _ := c.GetString("data")
	data, okData := mpp.HexBytes(dataText, 0, maxCallData)
	if c == nil || c.Len() != 2 || !mpp.IsAddress(toText) || !okData {
		return 0, to, nil, false, bad("call is not {to: address, data: hex}")
	}
	b, has := req.Get("broadcast")
	if broadcast, ok = b.(bool); !has || !ok {
		return 0, to, nil, false, bad("broadcast is not a boolean")
	}
	return chain, common.HexToAddress(toText), data, broadcast, nil
}

// maxCallData bounds a call's data: a token transfer is 68 bytes.
const maxCallData = 64 << 10

func (e *EVM) signEVMCall(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	a, _, err := e.sendEVMCall(ctx, req)
	if a != nil {
		return a, nil // signed, or sent (when it left, even with an error: kept as moved)
	}
	return nil, err
}

// signEVMCallLanded is one call of an evm-calls request: sent, and landed
// with status 1 ({hash, landed}); a call that left but did not land, or
// reverted, is an error, so no later call is sent.
func (e *EVM) signEVMCallLanded(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	a, landed, err := e.sendEVMCall(ctx, req)
	if err != nil {
		return nil, err
	}
	o, _ := jsonv.AsObject(a)
	if landed == nil || o == nil {
		return nil, errors.New("signer: the node reported no receipt")
	}
	o.Set("landed", landed)
	return o, nil
}

// sendEVMCall signs an evm-call and, when it is broadcast, sends it: the
// answer, and the receipt the node reported landing (nil when it did not
// land or was not sent).
func (e *EVM) sendEVMCall(ctx context.Context, req rails.Request) (jsonv.Value, jsonv.Value, error) {
	chain, to, data, broadcast, err := e.evmCall(req)
	if err != nil {
		return nil, nil, err
	}
	if broadcast && (e.Broadcaster == nil || e.FeeSource == nil) {
		// Checked before signing: a transaction that cannot be sent is never signed.
		return nil, nil, errors.New("signer: a broadcast evm-call needs a node (termsgate --rpc URL)")
	}
	var fees EVMFees
	switch {
	case e.FeeSource != nil:
		if fees, err = e.FeeSource.EVMFees(ctx, e.address, chain, to, data); err != nil {
			return nil, nil, fmt.Errorf("signer: fees: %w", err)
		}
	case e.Fees != nil:
		fees = *e.Fees
	default:
		return nil, nil, errors.New("signer: an evm-call needs fees and a nonce: give the signer Fees or a node (termsgate --rpc URL)")
	}
	wire, hash, err := e.SignEVMTransaction(chain, to, data, fees)
	if err != nil {
		return nil, nil, err
	}
	if !broadcast {
		return "0x" + hex.EncodeToString(wire), nil, nil
	}
	sent, landed, err := e.Broadcaster.Broadcast(ctx, wire)
	if err != nil && sent != "" {
		// it left: answer the hash, so it is kept as moved (a single
		// evm-call); an evm-calls request stops here.
		return jsonv.Obj("hash", sent), nil, fmt.Errorf("signer: broadcast: %w", err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("signer: broadcast: %w", err)
	}
	if !strings.EqualFold(sent, hash) {
		return nil, nil, fmt.Errorf("signer: the node named the transaction %s, not %s", sent, hash)
	}
	return jsonv.Obj("hash", sent), landed, nil
}

// SignEVMTransaction signs the EIP-1559 transaction of one call with no
// value, and returns its wire bytes and hash.
func (l *Local) SignEVMTransaction(chain int64, to common.Address, data []byte, fees EVMFees) ([]byte, string, error) {
	if fees.MaxFeePerGas == nil || fees.MaxPriorityFeePerGas == nil || fees.Gas == 0 {
		return nil, "", errors.New("signer: an EVM transaction needs its fees and gas")
	}
	// rails/evm writes the transaction (go-ethereum's core/types would link
	// KZG into every program that pays; internal/depcheck).
	tx := &evm.EIP1559Tx{
		ChainID: big.NewInt(chain), Nonce: fees.Nonce, MaxPriorityFeePerGas: fees.MaxPriorityFeePerGas,
		MaxFeePerGas: fees.MaxFeePerGas, Gas: fees.Gas, To: &to, Value: new(big.Int), Data: data,
	}
	digest, err := tx.SigningHash()
	if err != nil {
		return nil, "", fmt.Errorf("signer: %w", err)
	}
	sig, err := crypto.Sign(digest[:], l.key)
	if err != nil {
		return nil, "", fmt.Errorf("signer: %w", err)
	}
	if err := tx.Sign(sig); err != nil {
		return nil, "", fmt.Errorf("signer: %w", err)
	}
	wire, err := tx.MarshalBinary()
	if err != nil {
		return nil, "", fmt.Errorf("signer: %w", err)
	}
	return wire, crypto.Keccak256Hash(wire).Hex(), nil
}

// evmChain is the EIP-155 chain id of the account's network: eip155's
// reference, or for a Hedera EVM account (hedera:mainnet or
// hedera:testnet, mpp/session/hedera's payer) 295 or 296.
func (l *Local) evmChain() string {
	switch {
	case strings.HasPrefix(l.account, "hedera:mainnet:"):
		return "295"
	case strings.HasPrefix(l.account, "hedera:testnet:"):
		return "296"
	}
	return l.chain()
}
