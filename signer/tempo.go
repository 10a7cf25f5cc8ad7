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
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
)

// The Tempo request kinds (docs/protocol.md, "Accounts, inputs and signing requests"): tempo-call and
// tempo-calls, one Tempo (0x76) transaction of the calls, answered with the
// signed transaction, or when broadcast with {hash, landed?}; and
// tempo-key-authorization, answered with the root key's signature of the
// authorization's digest.

// TempoFees are the transaction fields a request leaves to the signer.
type TempoFees struct {
	MaxPriorityFeePerGas *big.Int
	MaxFeePerGas         *big.Int
	GasPerCall           uint64
	GasLimit             uint64 // when set, the transaction's gas instead of GasPerCall × calls
	NonceKey             *big.Int
	Nonce                uint64
	FeeToken             *common.Address // nil: the protocol's default token
}

// DefaultTempoFees suit a key with no chain at hand: an expiring nonce (key
// 2^256−1, nonce 0), which needs no nonce lookup and is what valid_before
// bounds; fees paid in pathUSD. The fee figures are placeholders for a
// transaction handed to someone else to broadcast (mpp/charge/tempo/memo);
// Tempo never broadcasts with them: a broadcast needs a FeeSource.
func DefaultTempoFees() TempoFees {
	pathUSD := tempo.PathUSD
	return TempoFees{
		MaxPriorityFeePerGas: big.NewInt(1), MaxFeePerGas: big.NewInt(2), GasPerCall: 200_000,
		NonceKey: new(big.Int).Set(tempo.MaxNonceKey), FeeToken: &pathUSD,
	}
}

// Broadcaster sends a signed Tempo transaction and reports its hash and, when
// it has it, the landed receipt {transaction, blockNumber, logs} (the
// currency's logs) that mpp/charge/tempo/push reads H back from. An error
// with a hash means the transaction may have left (it was handed to a node):
// the signer answers that hash, so that the payment is kept as moved and never
// signed again. An error without one means nothing left.
// signer/evmrpc.Node is one over JSON-RPC.
type Broadcaster interface {
	Broadcast(ctx context.Context, signedTx []byte) (hash string, landed jsonv.Value, err error)
}

// FeeSource chooses the fee fields of a Tempo transaction about to be signed
// for broadcast, from the node that will carry it: tx holds the calls, the
// chain id and the default fee token and nonce. It refuses a node of
// another chain. signer/evmrpc.Node is one over JSON-RPC.
type FeeSource interface {
	TempoFees(ctx context.Context, from common.Address, tx *tempo.Tx) (TempoFees, error)
}

// Tempo is a local key signing Tempo requests with chosen fee fields and
// handing broadcast requests to a Broadcaster, with the fees a FeeSource
// chose; every other request goes to the Local signer.
type Tempo struct {
	*Local
	Fees        TempoFees
	Broadcaster Broadcaster // nil: broadcast requests are refused
	FeeSource   FeeSource   // nil: broadcast requests are refused
}

// NewTempo returns a Tempo signer for l with the default fees, broadcasting
// through b with b's fees when b is also a FeeSource (as evmrpc.Node is).
func NewTempo(l *Local, b Broadcaster) *Tempo {
	t := &Tempo{Local: l, Fees: DefaultTempoFees(), Broadcaster: b}
	if fs, ok := b.(FeeSource); ok {
		t.FeeSource = fs
	}
	return t
}

// Sign signs req.
func (t *Tempo) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch kind, _ := req.GetString("kind"); kind {
	case tempo.KindTempoCall, tempo.KindTempoCalls:
		return t.Local.signTempoCalls(ctx, req, t.Fees, t.FeeSource, t.Broadcaster)
	}
	return t.Local.Sign(ctx, req)
}

// signTempoCalls builds, signs and (when asked and able) broadcasts the
// transaction a tempo-call or tempo-calls request names.
func (l *Local) signTempoCalls(ctx context.Context, req rails.Request, fees TempoFees, src FeeSource, b Broadcaster) (jsonv.Value, error) {
	tx, broadcast, err := l.tempoTx(req, fees)
	if err != nil {
		return nil, err
	}
	if broadcast {
		// Checked before signing: a transaction that cannot be sent, or
		// would be sent with placeholder fees, is never signed.
		if b == nil || src == nil {
			return nil, errors.New("signer: a broadcast needs a node (termsgate --rpc URL); Tempo transactions are never broadcast with placeholder fees")
		}
		chosen, err := src.TempoFees(ctx, l.address, tx)
		if err != nil {
			return nil, fmt.Errorf("signer: fees: %w", err)
		}
		if tx, _, err = l.tempoTx(req, chosen); err != nil {
			return nil, err
		}
	}
	digest, err := tx.SigningHash()
	if err != nil {
		return nil, fmt.Errorf("signer: tempo: %w", err)
	}
	sig, err := crypto.Sign(digest[:], l.key)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	sig[64] += 27
	tx.Signature = sig
	wire, err := tx.Encode()
	if err != nil {
		return nil, fmt.Errorf("signer: tempo: %w", err)
	}
	if !broadcast {
		return "0x" + hex.EncodeToString(wire), nil
	}
	if b == nil {
		return nil, errors.New("signer: this key has no way to broadcast a Tempo transaction")
	}
	hash, landed, err := b.Broadcast(ctx, wire)
	if err != nil && hash != "" {
		// It left: answer the hash, without a receipt, so that the gate keeps
		// the payment as moved rather than anyone signing it again.
		return jsonv.Obj("hash", hash), nil
	}
	if err != nil {
		return nil, fmt.Errorf("signer: broadcast: %w", err)
	}
	answer := jsonv.Obj("hash", hash)
	if landed != nil {
		answer.Set("landed", landed)
	}
	return answer, nil
}

// tempoTx reads a tempo-call(s) request strictly: a chainId on the
// account's chain, one call or a list of calls {to: address, data: hex}, a
// validBefore (Unix seconds), a broadcast flag. Anything else is refused, not
// guessed: the signer signs exactly what it is asked.
func (l *Local) tempoTx(req rails.Request, fees TempoFees) (*tempo.Tx, bool, error) {
	bad := func(what string) error { return fmt.Errorf("signer: tempo request: %s", what) }
	cv, _ := req.Get("chainId")
	chain, ok := jsonv.AsSafeInt(cv)
	if !ok || chain <= 0 {
		return nil, false, bad("chainId is not a positive integer")
	}
	if want := l.chain(); want != strconv.FormatInt(chain, 10) {
		return nil, false, bad("chainId " + strconv.FormatInt(chain, 10) + " is not this account's chain " + want)
	}
	var list []jsonv.Value
	if kind, _ := req.GetString("kind"); kind == tempo.KindTempoCall {
		c, has := req.Get("call")
		if !has {
			return nil, false, bad("no call")
		}
		list = []jsonv.Value{c}
	} else {
		cs, _ := req.Get("calls")
		if list, ok = cs.([]jsonv.Value); !ok || len(list) == 0 || len(list) > tempo.MaxCalls {
			return nil, false, bad("calls is not a list of 1 to 64 calls")
		}
	}
	tx := &tempo.Tx{
		ChainID: big.NewInt(chain), MaxPriorityFeePerGas: fees.MaxPriorityFeePerGas, MaxFeePerGas: fees.MaxFeePerGas,
		GasLimit: gasLimit(fees, len(list)), NonceKey: fees.NonceKey, Nonce: fees.Nonce, FeeToken: fees.FeeToken,
	}
	for _, v := range list {
		c, ok := jsonv.AsObject(v)
		to, _ := c.GetString("to")
		data, _ := c.GetString("data")
		input, okData := mpp.HexBytes(data, 0, tempo.MaxWireBytes)
		if !ok || !mpp.IsAddress(to) || !okData {
			return nil, false, bad("a call is not {to: address, data: hex}")
		}
		addr := common.HexToAddress(to)
		tx.Calls = append(tx.Calls, tempo.Call{To: &addr, Value: new(big.Int), Input: input})
	}
	vb, _ := req.Get("validBefore")
	validBefore, ok := jsonv.AsSafeInt(vb)
	if !ok {
		return nil, false, bad("validBefore is not Unix seconds")
	}
	tx.ValidBefore = uint64(validBefore)
	bv, _ := req.Get("broadcast")
	broadcast, ok := bv.(bool)
	if !ok {
		return nil, false, bad("broadcast is not a boolean")
	}
	return tx, broadcast, nil
}

func gasLimit(fees TempoFees, calls int) uint64 {
	if fees.GasLimit != 0 {
		return fees.GasLimit
	}
	return fees.GasPerCall * uint64(calls)
}

// chain is the account's chain reference.
func (l *Local) chain() string {
	parts := strings.Split(l.account, ":")
	return parts[1]
}

// signTempoCall answers tempo-call and tempo-calls with the default fees; the
// Local key has no broadcaster, so a broadcast request is refused (use
// Tempo for that).
func (l *Local) signTempoCall(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	return l.signTempoCalls(ctx, req, DefaultTempoFees(), nil, nil)
}

// signTempoKeyAuthorization signs a key authorization's digest as is (no
// EIP-191 prefix) with this key as the account's root key, after
// recomputing the digest from the authorization: a signer never signs a
// digest it cannot account for.
func (l *Local) signTempoKeyAuthorization(req rails.Request) (jsonv.Value, error) {
	ao, ok := req.GetObject("authorization")
	if !ok {
		return nil, errors.New("signer: tempo-key-authorization request without authorization")
	}
	auth, err := tempo.KeyAuthorizationFromJSON(ao)
	if err != nil {
		return nil, fmt.Errorf("signer: tempo-key-authorization: %w", err)
	}
	if strconv.FormatUint(auth.ChainID, 10) != l.chain() {
		return nil, errors.New("signer: tempo-key-authorization for another chain than this account's")
	}
	digest, err := auth.Digest()
	if err != nil {
		return nil, fmt.Errorf("signer: tempo-key-authorization: %w", err)
	}
	if d, _ := req.GetString("digest"); !strings.EqualFold(d, "0x"+hex.EncodeToString(digest[:])) {
		return nil, errors.New("signer: tempo-key-authorization digest is not the authorization's")
	}
	return l.signDigest(digest)
}
