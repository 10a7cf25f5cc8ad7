package tempo

import (
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/termsgate/termsgate/rails"
)

// Refusal codes of the Tempo envelope and its reading.
const (
	CodeTxMalformed               = "tempo/tx-malformed"
	CodeTxTooLarge                = "tempo/tx-too-large"
	CodeMemoNotBound              = "tempo/memo-not-bound"
	CodeAmbiguous                 = "tempo/ambiguous"
	CodeOpenNotFound              = "tempo/open-not-found"
	CodeOpenAmbiguous             = "tempo/open-ambiguous"
	CodeSaltNotBound              = "tempo/salt-not-bound"
	CodeDescriptorMismatch        = "tempo/descriptor-mismatch"
	CodeKeyAuthorizationMalformed = "tempo/key-authorization-malformed"
	CodeNoWitness                 = "tempo/no-witness"
	CodeWitnessNotBound           = "tempo/witness-not-bound"
)

// TxType is the Tempo transaction's type byte.
const TxType = 0x76

// Bounds of a Tempo transaction the gate reads (docs/protocol.md, "Tempo").
const (
	MaxWireBytes = 65_536
	MaxWireDepth = 8
	MaxCalls     = 64
	// MaxWireItems bounds the RLP items of one transaction. 64 KiB of real
	// fields (calls, an access list of 20- and 32-byte entries) hold far
	// fewer; only a degenerate list of one-byte items comes near it.
	MaxWireItems = 8192
)

// Envelope positions.
const (
	ixChainID           = 0
	ixCalls             = 4
	ixAccessList        = 5
	ixValidBefore       = 8
	ixFeeToken          = 10
	ixFeePayerSignature = 11
	ixAAAuthorizations  = 12
	ixKeyAuthorization  = 13
)

var uintFields = []int{0, 1, 2, 3, 6, 7, 8, 9}

// Call is one call of a Tempo transaction; To nil is a contract creation.
type Call struct {
	To    *common.Address
	Value *big.Int
	Input []byte
}

// Tx is a Tempo (type 0x76) transaction as a signer builds it. Nil integers
// are zero; a nil FeeToken is written empty (the protocol's default), and a
// nil FeePayerSignature as the empty string of a transaction no fee payer
// sponsors.
type Tx struct {
	ChainID              *big.Int
	MaxPriorityFeePerGas *big.Int
	MaxFeePerGas         *big.Int
	GasLimit             uint64
	Calls                []Call
	NonceKey             *big.Int // 2^256−1 is the expiring-nonce key
	Nonce                uint64
	ValidBefore          uint64 // 0: none
	ValidAfter           uint64
	FeeToken             *common.Address
	KeyAuthorization     []byte // a signed key authorization's RLP, or nil
	Signature            []byte // the sender's 65 bytes r‖s‖v
}

func bigOr0(b *big.Int) *big.Int {
	if b == nil {
		return new(big.Int)
	}
	return b
}

// fields are the items before the sender's signature.
func (tx *Tx) fields() []any {
	calls := make([]any, len(tx.Calls))
	for i, c := range tx.Calls {
		to := []byte{}
		if c.To != nil {
			to = c.To.Bytes()
		}
		input := c.Input
		if input == nil {
			input = []byte{}
		}
		calls[i] = []any{to, bigOr0(c.Value), input}
	}
	feeToken := []byte{}
	if tx.FeeToken != nil {
		feeToken = tx.FeeToken.Bytes()
	}
	f := []any{
		bigOr0(tx.ChainID), bigOr0(tx.MaxPriorityFeePerGas), bigOr0(tx.MaxFeePerGas), tx.GasLimit,
		calls, []any{}, bigOr0(tx.NonceKey), tx.Nonce, tx.ValidBefore, tx.ValidAfter,
		feeToken, []byte{}, []any{},
	}
	if tx.KeyAuthorization != nil {
		f = append(f, rlp.RawValue(tx.KeyAuthorization))
	}
	return f
}

// SigningHash is what the sender signs: keccak256(0x76 ‖ rlp(the fields
// before the signature)), for a transaction no fee payer sponsors.
func (tx *Tx) SigningHash() ([32]byte, error) {
	body, err := rlp.EncodeToBytes(tx.fields())
	if err != nil {
		return [32]byte{}, err
	}
	return [32]byte(crypto.Keccak256([]byte{TxType}, body)), nil
}

// Encode writes the signed wire form: 0x76 ‖ rlp(fields ‖ signature).
func (tx *Tx) Encode() ([]byte, error) {
	sig := tx.Signature
	if sig == nil {
		sig = []byte{}
	}
	body, err := rlp.EncodeToBytes(append(tx.fields(), sig))
	if err != nil {
		return nil, err
	}
	return append([]byte{TxType}, body...), nil
}

// DecodedCall is a call as the reader found it.
type DecodedCall struct {
	To    []byte // 20 bytes, or empty for a creation
	Value *big.Int
	Input []byte
}

// DecodedTx is what the read-back needs of a signed Tempo transaction.
type DecodedTx struct {
	Items       []Item // the envelope's 14 or 15 items
	ChainID     *big.Int
	Calls       []DecodedCall
	ValidBefore *big.Int // nil when written empty
}

// DecodeTx reads a signed Tempo transaction strictly (docs/protocol.md, "Tempo"): at most
// MaxWireBytes (tempo/tx-too-large), the type byte, then canonical RLP of
// depth at most MaxWireDepth holding 14 items, or 15 with a key
// authorization; integers where integers go, lists and strings where they go,
// at most MaxCalls calls of exactly [to (0 or 20 bytes), value, input].
// Everything else is tempo/tx-malformed.
func DecodeTx(wire []byte) (*DecodedTx, error) {
	items, err := envelope(wire)
	if err != nil {
		return nil, err
	}
	malformed := rails.Refuse(CodeTxMalformed)
	callList := items[ixCalls].Items
	if len(callList) > MaxCalls {
		return nil, malformed
	}
	tx := &DecodedTx{Items: items}
	tx.ChainID, _ = items[ixChainID].Uint()
	for _, c := range callList {
		if !c.List || len(c.Items) != 3 {
			return nil, malformed
		}
		to, value, input := c.Items[0], c.Items[1], c.Items[2]
		v, ok := value.Uint()
		if to.List || input.List || !ok || (len(to.Bytes) != 0 && len(to.Bytes) != 20) {
			return nil, malformed
		}
		tx.Calls = append(tx.Calls, DecodedCall{To: to.Bytes, Value: v, Input: input.Bytes})
	}
	if vb := items[ixValidBefore]; len(vb.Bytes) > 0 {
		tx.ValidBefore, _ = vb.Uint()
	}
	return tx, nil
}

func envelope(wire []byte) ([]Item, error) {
	if len(wire) > MaxWireBytes {
		return nil, rails.Refuse(CodeTxTooLarge)
	}
	malformed := rails.Refuse(CodeTxMalformed)
	if len(wire) < 2 || wire[0] != TxType {
		return nil, malformed
	}
	top, err := Decode(wire[1:], Limits{MaxDepth: MaxWireDepth, MaxItems: MaxWireItems})
	if err != nil || !top.List {
		return nil, malformed
	}
	items := top.Items
	if len(items) != 14 && len(items) != 15 {
		return nil, malformed
	}
	for _, i := range uintFields {
		if !items[i].IsUint() {
			return nil, malformed
		}
	}
	for _, i := range []int{ixCalls, ixAccessList, ixAAAuthorizations} {
		if !items[i].List {
			return nil, malformed
		}
	}
	if items[ixFeeToken].List {
		return nil, malformed
	}
	if len(items) == 15 && !items[ixKeyAuthorization].List {
		return nil, malformed
	}
	if items[len(items)-1].List {
		return nil, malformed
	}
	return items, nil
}

// ExpiringNonceHash is keccak256(0x76 ‖ rlp(the raw items before the
// sender's signature) ‖ sender), the nonce hash a Tempo channel id commits
// to, over the items as the sender signed them (senderBody).
func ExpiringNonceHash(wire []byte, sender []byte) ([32]byte, error) {
	items, err := envelope(wire)
	if err != nil {
		return [32]byte{}, err
	}
	if len(sender) != 20 {
		return [32]byte{}, rails.Refuse(CodeTxMalformed)
	}
	body, err := senderBody(items)
	if err != nil {
		return [32]byte{}, err
	}
	return [32]byte(crypto.Keccak256([]byte{TxType}, body, sender)), nil
}

// senderBody is rlp of the raw items before the sender's signature as the
// sender signed them: where a fee payer signed (item 11 is anything but the
// empty string), fee_token written 0x80 and the fee payer's signature 0x00.
func senderBody(items []Item) ([]byte, error) {
	raws := make([]rlp.RawValue, len(items)-1)
	for i := range raws {
		raws[i] = items[i].Raw
	}
	if fp := items[ixFeePayerSignature].Raw; !(len(fp) == 1 && fp[0] == 0x80) {
		raws[ixFeeToken] = rlp.RawValue{0x80}
		raws[ixFeePayerSignature] = rlp.RawValue{0x00}
	}
	body, err := rlp.EncodeToBytes(raws)
	if err != nil {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	return body, nil
}

// SenderHash is the hash the sender signed.
func (tx *DecodedTx) SenderHash() ([32]byte, error) {
	body, err := senderBody(tx.Items)
	if err != nil {
		return [32]byte{}, err
	}
	return [32]byte(crypto.Keccak256([]byte{TxType}, body)), nil
}

// Sender recovers the sender from its secp256k1 signature (65 bytes r‖s‖v,
// v 0/1 or 27/28). A seller checks it before it broadcasts; the gate's
// read-back does not (the chain does).
func (tx *DecodedTx) Sender() (common.Address, error) {
	sig := append([]byte(nil), tx.Items[len(tx.Items)-1].Bytes...)
	if len(sig) != 65 {
		return common.Address{}, errors.New("tempo: the sender signature is not 65 bytes")
	}
	if sig[64] >= 27 {
		sig[64] -= 27
	}
	h, err := tx.SenderHash()
	if err != nil {
		return common.Address{}, err
	}
	pub, err := crypto.SigToPub(h[:], sig)
	if err != nil {
		return common.Address{}, err
	}
	return crypto.PubkeyToAddress(*pub), nil
}
