// Package ccd holds the Concordium pairing, x402/exact/ccd: account
// addresses, the memo H rides in, the V1 sponsored transaction the payer's
// wallet builds and signs and its x402 wire form, the pairing itself, and
// the seller's status and recovery from the finalized block item
// (docs/ccd.md).
package ccd

// x402/exact/ccd: H goes in the memo of the one transfer the sender signs,
// as LCP's string form "lcp:sha256:0x…" written as one CBOR text string
// (78 4d and the 77 bytes): payload.signedTransaction.payload.memo for a
// CCD transferWithMemo, or the PLT tokenUpdate's one transfer operation's
// memo, there inside CBOR tag 24 around a byte string.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/base58"
	"github.com/termsgate/termsgate/internal/memo"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/cbor"
	"github.com/termsgate/termsgate/rails/x402"
)

// ExactID is the pairing id.
const ExactID = "x402/exact/ccd"

// Refusal codes.
const (
	CodeAddressMalformed     = "ccd/address-malformed"
	CodeMemoNotCBORText      = "ccd/memo-not-cbor-text"
	CodeMemoNotLCP           = "ccd/memo-not-lcp"
	CodeTransactionMalformed = "ccd/transaction-malformed"
	CodeTooLarge             = "ccd/too-large"
	CodeNotV1                = "ccd/not-v1"
	CodeNoMemo               = "ccd/no-memo"
	CodePayloadKind          = "ccd/payload-kind"
	CodeOperationsMalformed  = "ccd/operations-malformed"
	CodeOperationCount       = "ccd/operation-count"
)

// Bounds.
const (
	MaxMemo        = 256
	MaxOperations  = 4096
	MaxTransaction = 16384 // the signed transaction as JSON, in bytes
	maxAddress     = 64
)

var alphabet = base58.New("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")

// IsNetwork reports ccd: and 32 lowercase hex digits (CAIP-2: the genesis
// block hash's first 16 bytes).
func IsNetwork(n string) bool {
	return len(n) == 36 && strings.HasPrefix(n, "ccd:") && isLowerHex(n[4:])
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// AccountBytes reads a base58check account address of version 1: 37 bytes
// whose last four are the first four of the double SHA-256 of the rest.
func AccountBytes(addr string) ([]byte, error) {
	a, ok := account(addr)
	if !ok {
		return nil, rails.Refuse(CodeAddressMalformed)
	}
	return a[:], nil
}

// account is AccountBytes' 32 bytes, remembered: a payment reads its payTo,
// sponsor and sender some fifteen times between the build and the read
// back, and each decoding is base58 and two SHA-256s. Only addresses that
// read are remembered.
func account(addr string) ([32]byte, bool) {
	if a, ok := accounts.Get(addr); ok {
		return a, true
	}
	a, ok := decodeAccount(addr)
	if ok {
		accounts.Put(addr, a)
	}
	return a, ok
}

func decodeAccount(addr string) ([32]byte, bool) {
	if addr == "" || len(addr) > maxAddress {
		return [32]byte{}, false
	}
	raw, ok := alphabet.Decode(addr)
	if !ok || len(raw) != 37 || raw[0] != 1 {
		return [32]byte{}, false
	}
	a := sha256.Sum256(raw[:33])
	b := sha256.Sum256(a[:])
	if !bytes.Equal(b[:4], raw[33:]) {
		return [32]byte{}, false
	}
	return [32]byte(raw[1:33]), true
}

var (
	accounts  = memo.New[string, [32]byte](memoSize)
	addresses = memo.New[[32]byte, string](memoSize)
)

// memoSize bounds a memo: hostile input can name any number of addresses,
// and a full memo is emptied, so it never holds more than this.
const memoSize = 64

// Memo is H's memo: the CBOR text string of LCP's string form, 78 4d and
// the 77 ASCII bytes.
func Memo(h atr.Hash) []byte {
	m := memoOf(h)
	return m[:]
}

// memoLen is Memo's length: the 2-byte head and lcp:sha256:0x and 64 hex digits.
const memoLen = 2 + 13 + 64

const memoPrefix = "\x78\x4dlcp:sha256:0x"

func memoOf(h atr.Hash) [memoLen]byte {
	var m [memoLen]byte
	copy(m[:], memoPrefix)
	hex.Encode(m[len(memoPrefix):], h[:])
	return m
}

// PLTMemo is a token transfer's memo: tag 24 around a byte string holding Memo(h).
func PLTMemo(h atr.Hash) []byte { return append([]byte{0xd8, 0x18, 0x58, 0x4f}, Memo(h)...) }

// MemoCarrier reads H from memo bytes: exactly one CBOR text string with
// nothing after it (ccd/memo-not-cbor-text otherwise) whose bytes are
// Memo(H) exactly (ccd/memo-not-lcp otherwise: other text, upper-case hex,
// a leading byte-order mark, a head that is not the shortest).
func MemoCarrier(memo []byte) (atr.Hash, error) {
	// Memo(H) itself, read in place; anything else takes the reading below,
	// which says why it is not.
	var h atr.Hash
	if len(memo) == memoLen && string(memo[:len(memoPrefix)]) == memoPrefix && isLowerHex(string(memo[len(memoPrefix):])) {
		hex.Decode(h[:], memo[len(memoPrefix):])
		return h, nil
	}
	return memoCarrier(memo)
}

// memoCarrier is MemoCarrier read from scratch: the CBOR text string, then
// its text, then the bytes Memo writes for it.
func memoCarrier(memo []byte) (atr.Hash, error) {
	text, ok := cborText(memo)
	if len(memo) > MaxMemo || !ok {
		return atr.Hash{}, rails.Refuse(CodeMemoNotCBORText)
	}
	const prefix = "lcp:sha256:0x"
	var h atr.Hash
	if len(text) != len(prefix)+64 || !strings.HasPrefix(text, prefix) || !isLowerHex(text[len(prefix):]) {
		return atr.Hash{}, rails.Refuse(CodeMemoNotLCP)
	}
	hex.Decode(h[:], []byte(text[len(prefix):]))
	if !bytes.Equal(memo, Memo(h)) {
		return atr.Hash{}, rails.Refuse(CodeMemoNotLCP)
	}
	return h, nil
}

// cborText reads b as one definite-length CBOR text string under any head
// form (the shortest is checked by the caller's byte comparison).
func cborText(b []byte) (string, bool) {
	if len(b) == 0 || b[0]>>5 != cbor.Text {
		return "", false
	}
	info, rest := b[0]&31, b[1:]
	var n uint64
	switch {
	case info < 24:
		n = uint64(info)
	case info <= 27:
		k := 1 << (info - 24)
		if len(rest) < k {
			return "", false
		}
		for _, c := range rest[:k] {
			n = n<<8 | uint64(c)
		}
		rest = rest[k:]
	default:
		return "", false
	}
	if n != uint64(len(rest)) || !utf8.Valid(rest) {
		return "", false
	}
	return string(rest), true
}

// CheckOption reports an exact option on a ccd: network for CCD or a token
// id (1 to 128 printable ASCII characters), whose payTo and extra.feePayer
// are account addresses, with a u64 amount and a positive maxTimeoutSeconds.
func CheckOption(o *jsonv.Object) bool {
	if s, _ := o.GetString("scheme"); s != "exact" {
		return false
	}
	n, _ := o.GetString("network")
	asset, _ := o.GetString("asset")
	payTo, _ := o.GetString("payTo")
	extra, _ := o.GetObject("extra")
	fee, _ := extra.GetString("feePayer")
	amount, _ := o.GetString("amount")
	tv, _ := o.Get("maxTimeoutSeconds")
	timeout, ok := jsonv.AsSafeInt(tv)
	if !IsNetwork(n) || !isToken(asset) || !ok || timeout <= 0 {
		return false
	}
	if _, ok := account(payTo); !ok {
		return false
	}
	if _, ok := account(fee); !ok {
		return false
	}
	_, ok = u64Of(amount)
	return ok
}

func isToken(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func u64Of(s string) (uint64, bool) {
	if s == "" || len(s) > 20 || !rails.IsDecimal(s) {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// Signed is what a signed transaction carries: the sender, the expiry, H,
// and the transfer's receiver and amount (a PLT amount's mantissa).
type Signed struct {
	Sender, Receiver []byte
	Expiry           int64
	H                atr.Hash
	Amount           uint64
	Network, Asset   string
}

// ReadSigned reads a presented payment's payload.signedTransaction, x402's
// wire form of a sender-signed V1 sponsored transaction. No signature is
// verified: the chain accepts the transaction only with valid ones.
func ReadSigned(presented jsonv.Value) (*Signed, error) {
	o, ok := jsonv.AsObject(presented)
	if v, _ := o.Get("x402Version"); !ok || v != jsonv.Number(2) {
		return nil, rails.Refuse(x402.CodeNotV2)
	}
	accepted, ok := o.GetObject("accepted")
	if !ok || !CheckOption(accepted) {
		return nil, rails.Refuse(x402.CodeOptionNotThisPairing)
	}
	payload, _ := o.GetObject("payload")
	tx, ok := payload.GetObject("signedTransaction")
	if !ok {
		return nil, rails.Refuse(CodeTransactionMalformed)
	}
	if tooLarge(tx) {
		return nil, rails.Refuse(CodeTooLarge)
	}
	if v, _ := tx.Get("version"); v != jsonv.Number(1) {
		return nil, rails.Refuse(CodeNotV1)
	}
	header, ok1 := tx.GetObject("header")
	body, ok2 := tx.GetObject("payload")
	if !ok1 || !ok2 {
		return nil, rails.Refuse(CodeTransactionMalformed)
	}
	ev, _ := header.Get("expiry")
	expiry, ok := jsonv.AsSafeInt(ev)
	if !ok || expiry < 0 {
		return nil, rails.Refuse(CodeTransactionMalformed)
	}
	// The wire form writes the nonce and the energy as JSON numbers; any
	// other value (a decimal string, say) is not that form.
	for _, k := range []string{"nonce", "executionEnergyAmount"} {
		if v, has := header.Get(k); has {
			if n, ok := jsonv.AsSafeInt(v); !ok || n < 0 {
				return nil, rails.Refuse(CodeTransactionMalformed)
			}
		}
	}
	senderText, _ := header.GetString("sender")
	sender, err := AccountBytes(senderText)
	if err != nil {
		return nil, err
	}
	s := &Signed{Sender: sender, Expiry: expiry}
	s.Network, _ = accepted.GetString("network")
	s.Asset, _ = accepted.GetString("asset")
	typ, _ := body.Get("type")
	switch typ {
	case "transferWithMemo":
		memo, err := memoBlob(body)
		if err != nil {
			return nil, err
		}
		if s.H, err = MemoCarrier(memo); err != nil {
			return nil, err
		}
		to, _ := body.GetString("toAddress")
		if s.Receiver, err = AccountBytes(to); err != nil {
			return nil, err
		}
		amount, _ := body.GetString("amount")
		if s.Amount, ok = u64Of(amount); !ok {
			return nil, rails.Refuse(CodeTransactionMalformed)
		}
		return s, nil
	case "tokenUpdate":
		ops, err := hexField(body, "operations", MaxOperations)
		if err != nil {
			return nil, err
		}
		return s, tokenTransfer(ops, s)
	case "transfer":
		return nil, rails.Refuse(CodeNoMemo)
	}
	return nil, rails.Refuse(CodePayloadKind)
}

// tooLarge reports v longer than MaxTransaction as JSON, written into a
// reused buffer: every read of a payment measures its transaction.
func tooLarge(v jsonv.Value) bool {
	bp := jsonBufs.Get().(*[]byte)
	b := jsonv.AppendMarshal((*bp)[:0], v)
	n := len(b)
	if cap(b) <= 2*MaxTransaction {
		*bp = b[:0]
		jsonBufs.Put(bp)
	}
	return n > MaxTransaction
}

var jsonBufs = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

func hexField(o *jsonv.Object, key string, max int) ([]byte, error) {
	s, ok := o.GetString(key)
	if !ok || len(s)%2 != 0 {
		return nil, rails.Refuse(CodeTransactionMalformed)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, rails.Refuse(CodeTransactionMalformed)
	}
	if len(b) > max {
		return nil, rails.Refuse(CodeTooLarge)
	}
	return b, nil
}

// memoBlob reads a transferWithMemo's memo: hex of a 2-byte big-endian
// length, then exactly that many bytes, at most 256.
func memoBlob(body *jsonv.Object) ([]byte, error) {
	b, err := hexField(body, "memo", MaxMemo+2)
	if err != nil {
		return nil, err
	}
	if len(b) < 2 {
		return nil, rails.Refuse(CodeTransactionMalformed)
	}
	n := int(b[0])<<8 | int(b[1])
	if n > MaxMemo {
		return nil, rails.Refuse(CodeTooLarge)
	}
	if len(b) != 2+n {
		return nil, rails.Refuse(CodeTransactionMalformed)
	}
	return b[2:], nil
}

// Tags of Concordium's PLT operations' CBOR.
const (
	tagEncodedCBOR    = 24
	tagDecimal        = 4
	tagAccountAddress = 40307
)

func textKey(m *cbor.Value, key string) *cbor.Value {
	for i := 0; i+1 < len(m.Items); i += 2 {
		if k := m.Items[i]; k.Major == cbor.Text && string(k.B) == key {
			return m.Items[i+1]
		}
	}
	return nil
}

// tokenTransfer reads the one transfer operation of a PLT tokenUpdate: its
// memo's H, its recipient's 32 bytes and its amount's mantissa.
func tokenTransfer(ops []byte, s *Signed) error {
	v, err := cbor.Decode(ops)
	if err != nil || v.Major != cbor.Array {
		return rails.Refuse(CodeOperationsMalformed)
	}
	if len(v.Items) != 1 {
		return rails.Refuse(CodeOperationCount)
	}
	op := v.Items[0]
	if op.Major != cbor.Map || len(op.Items) != 2 || op.Items[0].Major != cbor.Text || string(op.Items[0].B) != "transfer" {
		return rails.Refuse(CodeOperationCount)
	}
	body := op.Items[1]
	if body.Major != cbor.Map {
		return rails.Refuse(CodeOperationsMalformed)
	}
	memo := textKey(body, "memo")
	if memo == nil {
		return rails.Refuse(CodeNoMemo)
	}
	if memo.Major == cbor.Tag && memo.N == tagEncodedCBOR {
		memo = memo.Items[0]
	}
	if memo.Major != cbor.Bytes {
		return rails.Refuse(CodeOperationsMalformed)
	}
	if s.H, err = MemoCarrier(memo.B); err != nil {
		return err
	}
	rcp := textKey(body, "recipient")
	if rcp == nil || rcp.Major != cbor.Tag || rcp.N != tagAccountAddress || rcp.Items[0].Major != cbor.Map {
		return rails.Refuse(CodeOperationsMalformed)
	}
	acct := rcp.Items[0].Get(3)
	if acct == nil || acct.Major != cbor.Bytes || len(acct.B) != 32 {
		return rails.Refuse(CodeOperationsMalformed)
	}
	s.Receiver = acct.B
	amt := textKey(body, "amount")
	if amt == nil || amt.Major != cbor.Tag || amt.N != tagDecimal || amt.Items[0].Major != cbor.Array || len(amt.Items[0].Items) != 2 {
		return rails.Refuse(CodeOperationsMalformed)
	}
	m := amt.Items[0].Items[1]
	if m.Major != cbor.Uint {
		return rails.Refuse(CodeOperationsMalformed)
	}
	s.Amount = m.N
	return nil
}

// Bound reads H from the signed transaction's memo.
func Bound(presented jsonv.Value) (string, error) {
	s, err := ReadSigned(presented)
	if err != nil {
		return "", err
	}
	return s.H.String(), nil
}

// Reference is what a seller records of a claimed payment: the network,
// the asset, the transfer's digest and the expiry it must settle by.
type Reference struct {
	Network, Asset string
	IDDigest       string // 0x and 64 hex digits
	SettleBy       int64
}

// IDDigest is SHA-256 over the sender's 32 bytes, the receiver's 32 bytes
// and the amount as a 32-byte big-endian integer.
func IDDigest(sender, receiver []byte, amount uint64) string {
	var packed [96]byte
	copy(packed[:32], sender)
	copy(packed[32:64], receiver)
	new(big.Int).SetUint64(amount).FillBytes(packed[64:])
	d := sha256.Sum256(packed[:])
	return "0x" + hex.EncodeToString(d[:])
}

// PaymentReference reads a presented payment's reference.
func PaymentReference(presented jsonv.Value) (Reference, error) {
	s, err := ReadSigned(presented)
	if err != nil {
		return Reference{}, err
	}
	return Reference{Network: s.Network, Asset: s.Asset, IDDigest: IDDigest(s.Sender, s.Receiver, s.Amount), SettleBy: s.Expiry}, nil
}
