// Package hedera holds the Hedera pairings and the pieces they share: a
// small strict protobuf reader and writer of the five messages a payment
// needs (Transaction, SignedTransaction, TransactionBody, CryptoTransfer
// with its TransferList and TokenTransferList, SignatureMap), entity ids
// and the Mirror Node settlement read (docs/hedera.md).
//
// Where H goes, per pairing in this package:
//   - x402/exact/hedera: the signed TransactionBody's memo, lcp:sha256:0x<H> (exact.go).
//
// The messages are read and written with google.golang.org/protobuf's
// protowire (tags, varints, lengths) and nothing generated: the signed
// bodyBytes are kept exactly as signed and never re-marshalled, and a reader
// of seller input stays small enough to bound (docs/dependencies.md).
package hedera

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/termsgate/termsgate/rails"
)

// Bounds on what the reader takes: a wire transaction (or list) of at
// most MaxTx bytes, at most MaxList entries in a TransactionList, a memo of
// at most MaxMemo bytes, at most MaxTransfers rows per transfer list.
const (
	MaxTx        = 8192
	MaxList      = 16
	MaxMemo      = 100
	MaxTransfers = 16
	// ValidDuration is the transactionValidDuration the builds write, in
	// seconds (the network's maximum is 180).
	ValidDuration = 120
)

// Refusal codes of the Hedera readers.
const (
	CodeTxMalformed      = "hedera/tx-malformed"
	CodeTxTooLarge       = "hedera/tx-too-large"
	CodeDeprecatedFields = "hedera/deprecated-fields"
	CodeListInconsistent = "hedera/list-inconsistent"
	CodeNoMemo           = "hedera/no-memo"
	CodeMemoNotLCP       = "hedera/memo-not-lcp"
	CodeOptionMalformed  = "hedera/option-malformed"
)

// Networks are the four Hedera CAIP-2 networks.
var Networks = []string{"hedera:mainnet", "hedera:testnet", "hedera:previewnet", "hedera:devnet"}

// IsNetwork reports one of the four.
func IsNetwork(s string) bool {
	for _, n := range Networks {
		if n == s {
			return true
		}
	}
	return false
}

var entityRE = regexp.MustCompile(`^(0|[1-9][0-9]{0,18})\.(0|[1-9][0-9]{0,18})\.(0|[1-9][0-9]{0,18})$`)

// Entity is a shard.realm.num id (an account or a token); an alias (an
// EVM address or a key in place of num) is not one.
type Entity struct{ Shard, Realm, Num uint64 }

// ParseEntity reads "shard.realm.num", each part a decimal below 2^63 with
// no leading zero.
func ParseEntity(s string) (Entity, bool) {
	m := entityRE.FindStringSubmatch(s)
	if m == nil {
		return Entity{}, false
	}
	var e Entity
	for i, dst := range []*uint64{&e.Shard, &e.Realm, &e.Num} {
		n, err := strconv.ParseUint(m[i+1], 10, 63)
		if err != nil {
			return Entity{}, false
		}
		*dst = n
	}
	return e, true
}

func (e Entity) String() string {
	return strconv.FormatUint(e.Shard, 10) + "." + strconv.FormatUint(e.Realm, 10) + "." + strconv.FormatUint(e.Num, 10)
}

// HBAR is the asset id x402 gives Hedera's native coin.
const HBAR = "0.0.0"

// TxID is a transaction id: the paying account and the valid start.
type TxID struct {
	Account Entity
	Seconds int64
	Nanos   int32
}

// Text is "0.0.1235@1700000000.000000000".
func (t TxID) Text() string {
	return t.Account.String() + "@" + strconv.FormatInt(t.Seconds, 10) + "." + pad9(t.Nanos)
}

// Mirror is the Mirror Node's form, "0.0.1235-1700000000-000000000".
func (t TxID) Mirror() string {
	return t.Account.String() + "-" + strconv.FormatInt(t.Seconds, 10) + "-" + pad9(t.Nanos)
}

func pad9(n int32) string {
	s := strconv.Itoa(int(n))
	return strings.Repeat("0", 9-len(s)) + s
}

// Transfer is one AccountAmount row.
type Transfer struct {
	Account Entity
	Amount  int64
}

// Body is what the readers take from a TransactionBody; Bytes are the
// body's bytes exactly as signed.
type Body struct {
	ID            TxID
	Node          Entity
	MaxFee        uint64
	ValidDuration int64
	Memo          string
	Bytes         []byte
	// The CryptoTransfer, when the body is one: HBAR rows, and at most one
	// token's rows with its expected decimals (HasDecimals false when the
	// body names none).
	IsTransfer  bool
	HBAR        []Transfer
	Token       *Entity
	TokenRows   []Transfer
	Decimals    uint32
	HasDecimals bool
}

// field is one field of a message.
type field struct {
	num    protowire.Number
	typ    protowire.Type
	varint uint64
	bytes  []byte
}

// fieldsOf reads every field of a message, in order: varint, fixed and
// length-delimited fields only (groups are malformed), each within the
// bytes. ok is false for anything else.
func fieldsOf(b []byte) ([]field, bool) {
	var out []field
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, false
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.varint, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			_, n = protowire.ConsumeFixed32(b)
		case protowire.Fixed64Type:
			_, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			f.bytes, n = protowire.ConsumeBytes(b)
		default:
			return nil, false
		}
		if n < 0 {
			return nil, false
		}
		b = b[n:]
		out = append(out, f)
	}
	return out, true
}

// single is the one field numbered num, of type typ; has false when it is
// absent; ok false when it is repeated or of another type.
func single(fs []field, num protowire.Number, typ protowire.Type) (f field, has, ok bool) {
	for _, x := range fs {
		if x.num != num {
			continue
		}
		if x.typ != typ || has {
			return field{}, false, false
		}
		f, has = x, true
	}
	return f, has, true
}

// int64Field reads a varint field as int64, 0 when absent.
func int64Field(fs []field, num protowire.Number) (int64, bool) {
	f, has, ok := single(fs, num, protowire.VarintType)
	if !ok {
		return 0, false
	}
	if !has {
		return 0, true
	}
	return int64(f.varint), true
}

// entityOf reads an AccountID or TokenID {shard 1, realm 2, num 3}; an
// alias (AccountID field 4) or a negative part is not read.
func entityOf(b []byte) (Entity, bool) {
	fs, ok := fieldsOf(b)
	if !ok {
		return Entity{}, false
	}
	var e Entity
	for _, f := range fs {
		if f.num < 1 || f.num > 3 {
			return Entity{}, false
		}
	}
	for i, dst := range []*uint64{&e.Shard, &e.Realm, &e.Num} {
		v, ok := int64Field(fs, protowire.Number(i+1))
		if !ok || v < 0 {
			return Entity{}, false
		}
		*dst = uint64(v)
	}
	return e, true
}

// transfersOf reads repeated AccountAmount rows {accountID 1, amount 2
// (sint64)}, at most MaxTransfers, none approved (field 3).
func transfersOf(rows []field) ([]Transfer, bool) {
	if len(rows) > MaxTransfers {
		return nil, false
	}
	var out []Transfer
	for _, r := range rows {
		if r.typ != protowire.BytesType {
			return nil, false
		}
		fs, ok := fieldsOf(r.bytes)
		if !ok {
			return nil, false
		}
		acct, hasA, okA := single(fs, 1, protowire.BytesType)
		amt, _, okM := single(fs, 2, protowire.VarintType)
		if !hasA || !okA || !okM || len(fs) > 2 {
			return nil, false
		}
		e, ok := entityOf(acct.bytes)
		if !ok {
			return nil, false
		}
		out = append(out, Transfer{Account: e, Amount: protowire.DecodeZigZag(amt.varint)})
	}
	return out, true
}

// cryptoTransferOf reads a CryptoTransferTransactionBody: transfers (1, a
// TransferList of rows 1) and at most one token's TokenTransferList (2:
// token 1, transfers 2, expected_decimals 4 as a UInt32Value); NFT
// transfers are not read.
func cryptoTransferOf(b []byte, body *Body) bool {
	fs, ok := fieldsOf(b)
	if !ok {
		return false
	}
	tl, hasT, okT := single(fs, 1, protowire.BytesType)
	if !okT {
		return false
	}
	var tokens []field
	for _, f := range fs {
		switch {
		case f.num == 2 && f.typ == protowire.BytesType:
			tokens = append(tokens, f)
		case f.num != 1:
			return false
		}
	}
	if hasT {
		rows, ok := fieldsOf(tl.bytes)
		if !ok {
			return false
		}
		for _, r := range rows {
			if r.num != 1 {
				return false
			}
		}
		if body.HBAR, ok = transfersOf(rows); !ok {
			return false
		}
	}
	if len(tokens) > 1 {
		return false
	}
	if len(tokens) == 1 {
		tfs, ok := fieldsOf(tokens[0].bytes)
		if !ok {
			return false
		}
		tok, hasTok, okTok := single(tfs, 1, protowire.BytesType)
		if !hasTok || !okTok {
			return false
		}
		e, ok := entityOf(tok.bytes)
		if !ok {
			return false
		}
		var rows []field
		for _, f := range tfs {
			switch f.num {
			case 1:
			case 2:
				rows = append(rows, f)
			case 4:
				if f.typ != protowire.BytesType {
					return false
				}
				d, ok := fieldsOf(f.bytes)
				if !ok || body.HasDecimals {
					return false
				}
				v, ok := int64Field(d, 1)
				if !ok || v < 0 || v > 0xffffffff || len(d) > 1 {
					return false
				}
				body.Decimals, body.HasDecimals = uint32(v), true
			default:
				return false
			}
		}
		body.Token = &e
		if body.TokenRows, ok = transfersOf(rows); !ok {
			return false
		}
	}
	body.IsTransfer = true
	return true
}

// ReadBody reads a TransactionBody: transactionID (1: validStart 1
// {seconds, nanos}, accountID 2), nodeAccountID (2), transactionFee (3),
// transactionValidDuration (4), memo (6, UTF-8, at most MaxMemo bytes) and a
// cryptoTransfer (14) when present. Bytes keeps b exactly.
func ReadBody(b []byte) (*Body, bool) {
	fs, ok := fieldsOf(b)
	if !ok {
		return nil, false
	}
	body := &Body{Bytes: append([]byte(nil), b...)}
	idF, hasID, okID := single(fs, 1, protowire.BytesType)
	if !hasID || !okID {
		return nil, false
	}
	idFs, ok := fieldsOf(idF.bytes)
	if !ok {
		return nil, false
	}
	start, hasS, okS := single(idFs, 1, protowire.BytesType)
	acct, hasA, okA := single(idFs, 2, protowire.BytesType)
	if !hasS || !okS || !hasA || !okA {
		return nil, false
	}
	startFs, ok := fieldsOf(start.bytes)
	if !ok {
		return nil, false
	}
	secs, ok1 := int64Field(startFs, 1)
	nanos, ok2 := int64Field(startFs, 2)
	e, ok3 := entityOf(acct.bytes)
	if !ok1 || !ok2 || !ok3 || secs < 0 || nanos < 0 || nanos > 999_999_999 {
		return nil, false
	}
	body.ID = TxID{Account: e, Seconds: secs, Nanos: int32(nanos)}
	if n, has, ok := single(fs, 2, protowire.BytesType); !ok {
		return nil, false
	} else if has {
		if body.Node, ok = entityOf(n.bytes); !ok {
			return nil, false
		}
	}
	if f, _, ok := single(fs, 3, protowire.VarintType); !ok {
		return nil, false
	} else {
		body.MaxFee = f.varint
	}
	if d, has, ok := single(fs, 4, protowire.BytesType); !ok {
		return nil, false
	} else if has {
		dfs, ok := fieldsOf(d.bytes)
		v, okV := int64Field(dfs, 1)
		if !ok || !okV || v < 0 || v > 1_000_000 {
			return nil, false
		}
		body.ValidDuration = v
	}
	if m, has, ok := single(fs, 6, protowire.BytesType); !ok {
		return nil, false
	} else if has {
		if len(m.bytes) > MaxMemo || !utf8.Valid(m.bytes) {
			return nil, false
		}
		body.Memo = string(m.bytes)
	}
	if ct, has, ok := single(fs, 14, protowire.BytesType); !ok {
		return nil, false
	} else if has && !cryptoTransferOf(ct.bytes, body) {
		return nil, false
	}
	return body, true
}

// Signed is a decoded wire transaction: its bodies (one, or one per node of
// a TransactionList, all with one id and memo) and their signatures.
type Signed struct {
	Bodies []*Body
}

// DecodeTx reads a wire Transaction ({5: SignedTransaction {1: bodyBytes,
// 2: sigMap}}; the deprecated fields 1–4 are hedera/deprecated-fields), or
// the SDK's TransactionList of them (top-level field 1, at most MaxList),
// whose bodies must share id and memo (hedera/list-inconsistent).
func DecodeTx(wire []byte) (*Signed, error) {
	if len(wire) > MaxTx {
		return nil, rails.Refuse(CodeTxTooLarge)
	}
	top, ok := fieldsOf(wire)
	if !ok || len(top) == 0 {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	isList := false
	for _, f := range top {
		isList = isList || f.num == 1
	}
	if !isList {
		b, err := transactionOf(top)
		if err != nil {
			return nil, err
		}
		return &Signed{Bodies: []*Body{b}}, nil
	}
	if len(top) > MaxList {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	s := &Signed{}
	for _, f := range top {
		if f.num != 1 || f.typ != protowire.BytesType {
			return nil, rails.Refuse(CodeTxMalformed)
		}
		fs, ok := fieldsOf(f.bytes)
		if !ok {
			return nil, rails.Refuse(CodeTxMalformed)
		}
		b, err := transactionOf(fs)
		if err != nil {
			return nil, err
		}
		s.Bodies = append(s.Bodies, b)
	}
	for _, b := range s.Bodies[1:] {
		if b.ID != s.Bodies[0].ID || b.Memo != s.Bodies[0].Memo {
			return nil, rails.Refuse(CodeListInconsistent)
		}
	}
	return s, nil
}

func transactionOf(tx []field) (*Body, error) {
	for _, f := range tx {
		if f.num >= 1 && f.num <= 4 {
			return nil, rails.Refuse(CodeDeprecatedFields)
		}
	}
	st, has, ok := single(tx, 5, protowire.BytesType)
	if !has || !ok {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	sfs, ok := fieldsOf(st.bytes)
	if !ok {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	bb, has, ok := single(sfs, 1, protowire.BytesType)
	if !has || !ok {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	if _, _, ok := single(sfs, 2, protowire.BytesType); !ok {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	b, ok := ReadBody(bb.bytes)
	if !ok {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	return b, nil
}

// Writing: proto3 omits a zero varint; messages are written even when
// empty where the reference writes them.

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
}

func appendBytesField(b []byte, num protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
}

func appendEntity(b []byte, e Entity) []byte {
	b = appendVarintField(b, 1, e.Shard)
	b = appendVarintField(b, 2, e.Realm)
	return appendVarintField(b, 3, e.Num)
}

func rowBytes(t Transfer) []byte {
	row := appendBytesField(nil, 1, appendEntity(nil, t.Account))
	return appendVarintField(row, 2, protowire.EncodeZigZag(t.Amount))
}

// BodySpec is what a transfer body the builds write holds.
type BodySpec struct {
	ID       TxID
	Node     Entity
	MaxFee   uint64
	Memo     string
	Asset    string // HBAR or a token id
	Payer    Entity
	PayTo    Entity
	Amount   int64
	Decimals *uint32 // a token's expected decimals, when known
	// Rows, when set, are the transfer's rows as written (the payer's debit
	// first), in place of the two rows Payer, PayTo and Amount make.
	Rows []Transfer
}

// WriteBody writes the TransactionBody of a transfer (two rows unless Rows names them), the payer's
// debit first, in field order: transactionID, nodeAccountID,
// transactionFee, transactionValidDuration (ValidDuration), memo (when not
// empty), cryptoTransfer.
func WriteBody(s BodySpec) []byte {
	start := appendVarintField(nil, 1, uint64(s.ID.Seconds))
	start = appendVarintField(start, 2, uint64(s.ID.Nanos))
	id := appendBytesField(nil, 1, start)
	id = appendBytesField(id, 2, appendEntity(nil, s.ID.Account))
	b := appendBytesField(nil, 1, id)
	b = appendBytesField(b, 2, appendEntity(nil, s.Node))
	b = appendVarintField(b, 3, s.MaxFee)
	b = appendBytesField(b, 4, appendVarintField(nil, 1, ValidDuration))
	if s.Memo != "" {
		b = appendBytesField(b, 6, []byte(s.Memo))
	}
	rows := s.Rows
	if rows == nil {
		rows = []Transfer{{Account: s.Payer, Amount: -s.Amount}, {Account: s.PayTo, Amount: s.Amount}}
	}
	var transfer []byte
	if s.Asset == HBAR {
		var list []byte
		for _, r := range rows {
			list = appendBytesField(list, 1, rowBytes(r))
		}
		transfer = appendBytesField(nil, 1, list)
	} else {
		tok, _ := ParseEntity(s.Asset)
		list := appendBytesField(nil, 1, appendEntity(nil, tok))
		for _, r := range rows {
			list = appendBytesField(list, 2, rowBytes(r))
		}
		if s.Decimals != nil {
			list = appendBytesField(list, 4, appendVarintField(nil, 1, uint64(*s.Decimals)))
		}
		transfer = appendBytesField(nil, 2, list)
	}
	return appendBytesField(b, 14, transfer)
}

// Sig is one signature of a body: an Ed25519 (32-byte key) or ECDSA
// secp256k1 (33-byte compressed key) signature of 64 bytes.
type Sig struct {
	PublicKey []byte
	Signature []byte
	ECDSA     bool
}

// WriteTransaction is the wire Transaction {5: SignedTransaction {1:
// bodyBytes, 2: SignatureMap {1: SignaturePair {1: pubKeyPrefix (the whole
// key), 3 ed25519 or 6 ECDSA_secp256k1}}}}; the body bytes are written as
// given.
func WriteTransaction(bodyBytes []byte, s Sig) []byte {
	sigField := protowire.Number(3)
	if s.ECDSA {
		sigField = 6
	}
	pair := appendBytesField(nil, 1, s.PublicKey)
	pair = appendBytesField(pair, sigField, s.Signature)
	signed := appendBytesField(nil, 1, bodyBytes)
	signed = appendBytesField(signed, 2, appendBytesField(nil, 1, pair))
	return appendBytesField(nil, 5, signed)
}
