// Package tron holds the Tron pairing, x402/exact/tron/lcp-trc20-memo, and
// what it needs: base58check addresses, the protobuf of the one transaction
// shape the pairing signs (read strictly with protowire, written as
// java-tron writes it) and its id (docs/tron.md).
package tron

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/termsgate/termsgate/internal/base58"
	"github.com/termsgate/termsgate/internal/memo"
	"github.com/termsgate/termsgate/rails"
)

// Refusal codes of the Tron readers.
const (
	CodeTxMalformed        = "tron/tx-malformed"
	CodeTxTooLarge         = "tron/tx-too-large"
	CodeContracts          = "tron/contracts"
	CodeNotTrigger         = "tron/not-trigger"
	CodeNotTransfer        = "tron/not-transfer"
	CodeMemoNotLCP         = "tron/memo-not-lcp"
	CodeRawNotCanonical    = "tron/raw-not-canonical"
	CodeSignatureMalformed = "tron/signature-malformed"
	CodeSignatureInvalid   = "tron/signature-invalid"
	CodeAddressMalformed   = "tron/address-malformed"
	CodeNetworkMalformed   = "tron/network-malformed"
	CodeOptionMalformed    = "tron/option-malformed"
	CodeFeeLimit           = "tron/fee-limit"
)

// Bounds of what the readers take.
const (
	MaxTxHex      = 8192 // hex digits of a signed transaction
	MaxSignatures = 5
	SignatureLen  = 65
	callDataLen   = 68 // transfer(address,uint256): selector and two words
)

// TriggerSmartContract is the contract type of a contract call, and
// TriggerURL its Any type URL.
const (
	TriggerSmartContract = 31
	TriggerURL           = "type.googleapis.com/protocol.TriggerSmartContract"
)

// transferSelector is transfer(address,uint256).
var transferSelector = []byte{0xa9, 0x05, 0x9c, 0xbb}

// TransferTopic is keccak256("Transfer(address,address,uint256)").
const TransferTopic = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"

// Address is a Tron account or contract address: 0x41 and the 20 bytes of
// the EVM-style address.
type Address [21]byte

// String is the base58check spelling (T…): the 21 bytes and the first 4
// bytes of their double SHA-256.
func (a Address) String() string {
	if s, ok := written.Get(a); ok {
		return s
	}
	s := writeAddress(a)
	written.Put(a, s)
	return s
}

func writeAddress(a Address) string {
	sum := sha256.Sum256(a[:])
	sum = sha256.Sum256(sum[:])
	var b [25]byte
	copy(b[:], a[:])
	copy(b[21:], sum[:4])
	return base58.Bitcoin.Encode(b[:])
}

// ParseAddress reads a base58check address: 34 characters, 25 bytes
// beginning 0x41, the checksum matching.
func ParseAddress(s string) (Address, bool) {
	if a, ok := read.Get(s); ok {
		return a, true
	}
	a, ok := readAddress(s)
	if ok {
		read.Put(s, a)
	}
	return a, ok
}

// A payment reads its option's asset and payTo and the payer half a dozen
// times (CheckOption, the choice, the build, the signer's summary), each a
// base58 decoding and a double SHA-256; the last addresses read and written
// are kept (TestAddressMemoAgrees). Only addresses that read are kept.
var (
	read    = memo.New[string, Address](memoSize)
	written = memo.New[Address, string](memoSize)
)

// memoSize bounds a memo: hostile input can name any number of addresses,
// and a full memo is emptied, so it never holds more than this.
const memoSize = 64

func readAddress(s string) (Address, bool) {
	var a Address
	b, ok := shape(s)
	if !ok {
		return a, false
	}
	sum := sha256.Sum256(b[:21])
	sum = sha256.Sum256(sum[:])
	if !bytes.Equal(sum[:4], b[21:]) {
		return a, false
	}
	copy(a[:], b[:])
	return a, true
}

// shape is the 25 bytes of a 34-character base58 string beginning 0x41.
// It reads into an array rather than through base58.Bitcoin.Decode's
// slices: an option's asset and payTo and the payer are read several times
// a payment (TestShapeAsBase58 holds it to the generic decoder). The value
// is kept in seven 32-bit limbs, five characters a step (58^5 < 2^32).
func shape(s string) (b [25]byte, ok bool) {
	// A leading '1' is a leading zero byte, which a 25-byte value beginning
	// 0x41 has not: refused here, as the generic decoder's 26 bytes are.
	if len(s) != 34 || s[0] == base58Chars[0] {
		return b, false
	}
	var limbs [7]uint32 // big-endian: 28 bytes, of which the first 3 must be 0
	for i := 0; i < len(s); i += 5 {
		end := min(i+5, len(s))
		var chunk, mul uint64 = 0, 1
		for _, c := range []byte(s[i:end]) {
			d := base58Index[c]
			if d < 0 {
				return b, false
			}
			chunk, mul = chunk*58+uint64(d), mul*58
		}
		carry := chunk
		for j := len(limbs) - 1; j >= 0; j-- {
			t := uint64(limbs[j])*mul + carry
			limbs[j], carry = uint32(t), t>>32
		}
		if carry != 0 {
			return b, false
		}
	}
	if limbs[0]>>8 != 0 {
		return b, false // past 25 bytes
	}
	b[0] = byte(limbs[0])
	for j := 1; j < len(limbs); j++ {
		binary.BigEndian.PutUint32(b[1+4*(j-1):], limbs[j])
	}
	return b, b[0] == 0x41
}

const base58Chars = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

var base58Index = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(base58Chars); i++ {
		t[base58Chars[i]] = int8(i)
	}
	return t
}()

// Raw is Transaction.raw as the pairing uses it: one TriggerSmartContract
// calling the token, the memo, the reference block and the times.
type Raw struct {
	RefBlockBytes   []byte // bytes 6–7 of the reference block's number
	RefBlockHash    []byte // bytes 8–15 of the reference block's id
	Expiration      uint64 // milliseconds
	Data            []byte // the memo
	Owner           []byte // 21 bytes
	ContractAddress []byte // 21 bytes
	CallData        []byte
	Timestamp       uint64 // milliseconds
	FeeLimit        uint64 // sun
}

func appendBytes(out []byte, num protowire.Number, b []byte) []byte {
	if len(b) == 0 {
		return out
	}
	return protowire.AppendBytes(protowire.AppendTag(out, num, protowire.BytesType), b)
}

func appendInt(out []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return out
	}
	return protowire.AppendVarint(protowire.AppendTag(out, num, protowire.VarintType), v)
}

// Encode writes raw as java-tron serializes it: fields in ascending order,
// default values omitted.
func (r *Raw) Encode() []byte { return r.appendEncoded(make([]byte, 0, r.encodedLen())) }

// sizeBytes is what appendBytes writes for n bytes, sizeInt appendInt for v.
func sizeBytes(num protowire.Number, n int) int {
	if n == 0 {
		return 0
	}
	return protowire.SizeTag(num) + protowire.SizeBytes(n)
}

func sizeInt(num protowire.Number, v uint64) int {
	if v == 0 {
		return 0
	}
	return protowire.SizeTag(num) + protowire.SizeVarint(v)
}

// The nested messages' lengths, so that Encode writes each message's
// length first and its fields after, into one buffer, rather than writing
// each message on its own and copying it into the next.
func (r *Raw) triggerLen() int {
	return sizeBytes(1, len(r.Owner)) + sizeBytes(2, len(r.ContractAddress)) + sizeBytes(4, len(r.CallData))
}

func (r *Raw) anyLen() int { return sizeBytes(1, len(TriggerURL)) + sizeBytes(2, r.triggerLen()) }

func (r *Raw) contractLen() int { return sizeInt(1, TriggerSmartContract) + sizeBytes(2, r.anyLen()) }

func (r *Raw) encodedLen() int {
	return sizeBytes(1, len(r.RefBlockBytes)) + sizeBytes(4, len(r.RefBlockHash)) + sizeInt(8, r.Expiration) +
		sizeBytes(10, len(r.Data)) + sizeBytes(11, r.contractLen()) + sizeInt(14, r.Timestamp) + sizeInt(18, r.FeeLimit)
}

// appendHeader is appendBytes' tag and length without the bytes, for a
// message written next in place; nothing for an empty one, as appendBytes.
func appendHeader(out []byte, num protowire.Number, n int) []byte {
	if n == 0 {
		return out
	}
	return protowire.AppendVarint(protowire.AppendTag(out, num, protowire.BytesType), uint64(n))
}

func (r *Raw) appendEncoded(out []byte) []byte {
	out = appendBytes(out, 1, r.RefBlockBytes)
	out = appendBytes(out, 4, r.RefBlockHash)
	out = appendInt(out, 8, r.Expiration)
	out = appendBytes(out, 10, r.Data)
	out = appendHeader(out, 11, r.contractLen())
	out = appendInt(out, 1, TriggerSmartContract)
	out = appendHeader(out, 2, r.anyLen())
	out = appendBytes(out, 1, []byte(TriggerURL))
	out = appendHeader(out, 2, r.triggerLen())
	out = appendBytes(appendBytes(appendBytes(out, 1, r.Owner), 2, r.ContractAddress), 4, r.CallData)
	out = appendInt(out, 14, r.Timestamp)
	return appendInt(out, 18, r.FeeLimit)
}

// TxID is the transaction id: SHA-256 of the raw bytes.
func TxID(rawBytes []byte) [32]byte { return sha256.Sum256(rawBytes) }

// EncodeTransaction writes a Transaction: raw_data and the signatures.
func EncodeTransaction(rawBytes []byte, sigs ...[]byte) []byte {
	n := sizeBytes(1, len(rawBytes))
	for _, s := range sigs {
		n += sizeBytes(2, len(s))
	}
	out := appendBytes(make([]byte, 0, n), 1, rawBytes)
	for _, s := range sigs {
		out = appendBytes(out, 2, s)
	}
	return out
}

type field struct {
	num protowire.Number
	typ protowire.Type
	u   uint64
	b   []byte
}

var errWire = errors.New("tron: not well-formed protobuf")

// fields reads one message's fields in order, appended to out: varints and
// length-delimited values only, every length within the bytes. Callers
// pass a small array's slice, so that a message of the pairing's few
// fields is read without allocating.
func fields(b []byte, out []field) ([]field, error) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num == 0 {
			return nil, errWire
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return nil, errWire
			}
			out, b = append(out, field{num: num, typ: typ, u: v}), b[n:]
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return nil, errWire
			}
			out, b = append(out, field{num: num, typ: typ, b: v}), b[n:]
		default:
			return nil, errWire
		}
	}
	return out, nil
}

// Tx is a decoded signed transaction.
type Tx struct {
	Raw        Raw
	RawBytes   []byte
	Signatures [][]byte
}

// DecodeTx reads a signed Transaction in lowercase hex: raw_data with
// exactly one TriggerSmartContract and only the fields Raw names, 1 to 5
// signatures of 65 bytes, the raw bytes exactly what Encode writes for the
// fields read. The refusals say what is wrong, in the order checked.
func DecodeTx(hexText string) (*Tx, error) {
	if len(hexText) > MaxTxHex {
		return nil, rails.Refuse(CodeTxTooLarge)
	}
	b, ok := lowerHex(hexText)
	if !ok || len(b) == 0 {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	var buf [8]field
	outer, err := fields(b, buf[:0])
	if err != nil {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	tx := &Tx{}
	seenRaw := false
	for _, f := range outer {
		switch {
		case f.num == 1 && f.typ == protowire.BytesType && !seenRaw:
			tx.RawBytes, seenRaw = f.b, true
		case f.num == 2 && f.typ == protowire.BytesType:
			tx.Signatures = append(tx.Signatures, f.b)
		default:
			return nil, rails.Refuse(CodeTxMalformed)
		}
	}
	if !seenRaw {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	if len(tx.Signatures) < 1 || len(tx.Signatures) > MaxSignatures {
		return nil, rails.Refuse(CodeSignatureMalformed)
	}
	for _, s := range tx.Signatures {
		if len(s) != SignatureLen {
			return nil, rails.Refuse(CodeSignatureMalformed)
		}
	}
	raw, err := DecodeRaw(tx.RawBytes)
	if err != nil {
		return nil, err
	}
	tx.Raw = *raw
	return tx, nil
}

// DecodeRaw reads Transaction.raw bytes as DecodeTx does.
func DecodeRaw(rawBytes []byte) (*Raw, error) {
	malformed := rails.Refuse(CodeTxMalformed)
	var buf [8]field
	fs, err := fields(rawBytes, buf[:0])
	if err != nil {
		return nil, malformed
	}
	r := &Raw{}
	var contract []byte
	contracts := 0
	for _, f := range fs {
		switch {
		case f.typ == protowire.BytesType && f.num == 1:
			r.RefBlockBytes = f.b
		case f.typ == protowire.BytesType && f.num == 4:
			r.RefBlockHash = f.b
		case f.typ == protowire.BytesType && f.num == 10:
			r.Data = f.b
		case f.typ == protowire.BytesType && f.num == 11:
			contract, contracts = f.b, contracts+1
		case f.typ == protowire.VarintType && (f.num == 8 || f.num == 14 || f.num == 18):
			if f.u >= 1<<63 {
				return nil, malformed
			}
			switch f.num {
			case 8:
				r.Expiration = f.u
			case 14:
				r.Timestamp = f.u
			default:
				r.FeeLimit = f.u
			}
		default:
			return nil, malformed
		}
	}
	if contracts != 1 {
		return nil, rails.Refuse(CodeContracts)
	}
	cf, err := fields(contract, buf[:0])
	if err != nil {
		return nil, malformed
	}
	var typ uint64
	var anyMsg []byte
	hasAny := false
	for _, f := range cf {
		switch {
		case f.num == 1 && f.typ == protowire.VarintType:
			typ = f.u
		case f.num == 2 && f.typ == protowire.BytesType:
			anyMsg, hasAny = f.b, true
		default:
			return nil, malformed
		}
	}
	if typ != TriggerSmartContract || !hasAny {
		return nil, rails.Refuse(CodeNotTrigger)
	}
	af, err := fields(anyMsg, buf[:0])
	if err != nil {
		return nil, malformed
	}
	var url, value []byte
	hasURL := false
	for _, f := range af {
		switch {
		case f.num == 1 && f.typ == protowire.BytesType:
			url, hasURL = f.b, true
		case f.num == 2 && f.typ == protowire.BytesType:
			value = f.b
		default:
			return nil, malformed
		}
	}
	if !hasURL || string(url) != TriggerURL {
		return nil, rails.Refuse(CodeNotTrigger)
	}
	tf, err := fields(value, buf[:0])
	if err != nil {
		return nil, malformed
	}
	for _, f := range tf {
		switch {
		case f.num == 1 && f.typ == protowire.BytesType:
			r.Owner = f.b
		case f.num == 2 && f.typ == protowire.BytesType:
			r.ContractAddress = f.b
		case f.num == 4 && f.typ == protowire.BytesType:
			r.CallData = f.b
		default:
			return nil, malformed
		}
	}
	// the canonical check compares in a stack buffer (what the pairing
	// builds is some 200 bytes); a longer one is written on the heap
	var enc [320]byte
	if !bytes.Equal(r.appendEncoded(enc[:0]), rawBytes) {
		return nil, rails.Refuse(CodeRawNotCanonical)
	}
	return r, nil
}

// lowerHex decodes lowercase hex digits only.
func lowerHex(s string) ([]byte, bool) {
	if len(s)%2 != 0 {
		return nil, false
	}
	out := make([]byte, len(s)/2)
	for i := 0; i < len(s); i++ {
		c := s[i]
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		default:
			return nil, false
		}
		out[i/2] = out[i/2]<<4 | v
	}
	return out, true
}

// Transfer reads call data of transfer(address,uint256): the payee (0x41
// and the address word's low 20 bytes, whose high 12 must be zero) and the
// amount word.
func Transfer(call []byte) (to Address, amount []byte, ok bool) {
	if len(call) != callDataLen || !bytes.Equal(call[:4], transferSelector) {
		return to, nil, false
	}
	for _, c := range call[4:16] {
		if c != 0 {
			return to, nil, false
		}
	}
	to[0] = 0x41
	copy(to[1:], call[16:36])
	return to, call[36:68], true
}
