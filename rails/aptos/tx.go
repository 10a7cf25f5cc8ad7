// Package aptos holds x402/exact/aptos (exact.go) and what it needs of
// Aptos: a strict BCS codec of the RawTransaction of an entry-function
// call, the x402 fungible-asset transfer read out of it, the instrument's
// normal form and id digest, which a reference names, and the seller's
// status check (docs/aptos.md).
package aptos

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/bcs"
)

// Refusals of the codec, as the pairing names them.
var (
	ErrMalformed        = errors.New("aptos/tx-malformed")
	ErrNotEntryFunction = errors.New("aptos/not-entry-function")
)

// Bounds of a raw transaction.
const (
	MaxTxBytes   = 64 * 1024
	MaxTypeArgs  = 16
	MaxArgs      = 16
	MaxArgBytes  = 4096
	MaxName      = 128
	MaxTypeDepth = 8
)

// Address is an account or object address.
type Address [32]byte

// String is 0x and 64 lowercase hex digits.
func (a Address) String() string {
	var b [66]byte
	b[0], b[1] = '0', 'x'
	hex.Encode(b[2:], a[:])
	return string(b[:])
}

// ParseAddress reads 0x and 1 to 64 hex digits (the short form pads with
// zeros on the left, as Aptos writes 0x1).
func ParseAddress(s string) (Address, bool) {
	var a Address
	if len(s) < 3 || len(s) > 66 || s[:2] != "0x" {
		return a, false
	}
	// read from the last digit into the array, so that nothing is
	// allocated: options name two addresses read several times a payment
	// (TestParseAddressAsHex holds it to hex.DecodeString's reading)
	h := s[2:]
	for i := 0; i < len(h); i++ {
		c := h[len(h)-1-i]
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		default:
			return Address{}, false
		}
		a[31-i/2] |= v << (4 * (i % 2))
	}
	return a, true
}

// TypeTag is a Move type: a primitive by its BCS variant, or a struct.
type TypeTag struct {
	Variant uint32 // 0 bool, 1 u8, 2 u64, 3 u128, 4 address, 5 signer, 6 vector, 7 struct, 8 u16, 9 u32, 10 u256
	Elem    *TypeTag
	Struct  *StructTag
}

// StructTag is address::module::name<type args>.
type StructTag struct {
	Address      Address
	Module, Name string
	TypeArgs     []TypeTag
}

// String is the struct's long form.
func (s *StructTag) String() string { return s.Address.String() + "::" + s.Module + "::" + s.Name }

// EntryFunction is the payload's call.
type EntryFunction struct {
	Module   Address
	Name     string // the module's name
	Function string
	TypeArgs []TypeTag
	Args     [][]byte
}

// RawTransaction is what a sender signs.
type RawTransaction struct {
	Sender         Address
	SequenceNumber uint64
	Payload        EntryFunction
	MaxGasAmount   uint64
	GasUnitPrice   uint64
	Expiration     uint64 // Unix seconds
	ChainID        uint8
}

func readName(r *bcs.Reader) string {
	b := r.Bytes(MaxName)
	if r.Err() == nil && !isIdentifier(string(b)) {
		r.Fail()
	}
	return string(b)
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func readType(r *bcs.Reader, depth int) TypeTag {
	if depth > MaxTypeDepth {
		r.Fail()
		return TypeTag{}
	}
	t := TypeTag{Variant: r.ULEB128()}
	switch t.Variant {
	case 0, 1, 2, 3, 4, 5, 8, 9, 10:
	case 6:
		e := readType(r, depth+1)
		t.Elem = &e
	case 7:
		s := &StructTag{}
		copy(s.Address[:], r.Fixed(32))
		s.Module, s.Name = readName(r), readName(r)
		n := r.Len(1, MaxTypeArgs)
		for i := 0; i < n && r.Err() == nil; i++ {
			s.TypeArgs = append(s.TypeArgs, readType(r, depth+1))
		}
		t.Struct = s
	default:
		r.Fail()
	}
	return t
}

func writeType(w *bcs.Writer, t TypeTag) {
	w.ULEB128(t.Variant)
	switch {
	case t.Variant == 6 && t.Elem != nil:
		writeType(w, *t.Elem)
	case t.Variant == 7 && t.Struct != nil:
		w.Fixed(t.Struct.Address[:])
		w.Bytes([]byte(t.Struct.Module))
		w.Bytes([]byte(t.Struct.Name))
		w.ULEB128(uint32(len(t.Struct.TypeArgs)))
		for _, a := range t.Struct.TypeArgs {
			writeType(w, a)
		}
	}
}

// DecodeRawTransaction reads exactly one RawTransaction whose payload is
// an entry function (variant 2; any other is aptos/not-entry-function);
// its bytes must be what Encode writes back (aptos/tx-malformed).
func DecodeRawTransaction(b []byte) (*RawTransaction, error) {
	t, n, err := decodeRawPrefix(b)
	if err == nil && n != len(b) {
		return nil, ErrMalformed
	}
	return t, err
}

// decodeRawPrefix reads the RawTransaction b starts with and how many bytes
// it took; those bytes must be what Encode writes back.
func decodeRawPrefix(b []byte) (*RawTransaction, int, error) {
	if len(b) > MaxTxBytes {
		return nil, 0, ErrMalformed
	}
	r := bcs.NewReader(b)
	t := &RawTransaction{}
	copy(t.Sender[:], r.Fixed(32))
	t.SequenceNumber = r.U64()
	variant := r.ULEB128()
	if r.Err() != nil {
		return nil, 0, ErrMalformed
	}
	if variant != 2 {
		return nil, 0, ErrNotEntryFunction
	}
	p := &t.Payload
	copy(p.Module[:], r.Fixed(32))
	p.Name, p.Function = readName(r), readName(r)
	n := r.Len(1, MaxTypeArgs)
	for i := 0; i < n && r.Err() == nil; i++ {
		p.TypeArgs = append(p.TypeArgs, readType(r, 0))
	}
	n = r.Len(1, MaxArgs)
	for i := 0; i < n && r.Err() == nil; i++ {
		p.Args = append(p.Args, r.Bytes(MaxArgBytes))
	}
	t.MaxGasAmount, t.GasUnitPrice, t.Expiration, t.ChainID = r.U64(), r.U64(), r.U64(), r.U8()
	if r.Err() != nil || string(t.Encode()) != string(b[:r.Offset()]) {
		return nil, 0, ErrMalformed
	}
	return t, r.Offset(), nil
}

// Encode writes the transaction in BCS.
func (t *RawTransaction) Encode() []byte {
	w := &bcs.Writer{B: make([]byte, 0, 272)}
	w.Fixed(t.Sender[:])
	w.U64(t.SequenceNumber)
	w.ULEB128(2)
	p := &t.Payload
	w.Fixed(p.Module[:])
	w.Bytes([]byte(p.Name))
	w.Bytes([]byte(p.Function))
	w.ULEB128(uint32(len(p.TypeArgs)))
	for _, a := range p.TypeArgs {
		writeType(w, a)
	}
	w.ULEB128(uint32(len(p.Args)))
	for _, a := range p.Args {
		w.Bytes(a)
	}
	w.U64(t.MaxGasAmount)
	w.U64(t.GasUnitPrice)
	w.U64(t.Expiration)
	w.U8(t.ChainID)
	return w.B
}

// The x402 transfer's function and type argument.
var (
	framework          = Address{31: 1}
	TransferFunction   = framework.String() + "::primary_fungible_store::transfer"
	MetadataTypeLong   = framework.String() + "::fungible_asset::Metadata"
	errNotX402Transfer = errors.New("aptos/not-an-x402-transfer")
)

// Transfer is the x402 payment's call: metadata (the asset), recipient
// and amount of 0x1::primary_fungible_store::transfer<0x1::fungible_asset::Metadata>.
type Transfer struct {
	Metadata, Recipient Address
	Amount              uint64
}

// ReadTransfer reads the payload as the x402 transfer: the function, one
// type argument that is the Metadata struct with no type arguments of its
// own, and three arguments of 32, 32 and 8 bytes (aptos/not-an-x402-transfer).
func (t *RawTransaction) ReadTransfer() (Transfer, error) {
	p := &t.Payload
	// TransferFunction and MetadataTypeLong compared by their parts, not
	// written out: the address's long form has no colons and each name one
	// "::" less than the whole, so the parts are equal exactly when the
	// joined strings are (TestReadTransferAsJoined)
	if p.Module != framework || p.Name != "primary_fungible_store" || p.Function != "transfer" || len(p.TypeArgs) != 1 || len(p.Args) != 3 {
		return Transfer{}, errNotX402Transfer
	}
	s := p.TypeArgs[0].Struct
	if p.TypeArgs[0].Variant != 7 || s == nil || len(s.TypeArgs) != 0 || s.Address != framework || s.Module != "fungible_asset" || s.Name != "Metadata" ||
		len(p.Args[0]) != 32 || len(p.Args[1]) != 32 || len(p.Args[2]) != 8 {
		return Transfer{}, errNotX402Transfer
	}
	var tr Transfer
	copy(tr.Metadata[:], p.Args[0])
	copy(tr.Recipient[:], p.Args[1])
	for i := 7; i >= 0; i-- {
		tr.Amount = tr.Amount<<8 | uint64(p.Args[2][i])
	}
	return tr, nil
}

// NormalForm is the instrument's normal form: {arguments (metadata and
// recipient as long addresses, the amount as a decimal string), function
// and typeArguments in long form, sender, sequenceNumber (a decimal
// string)}.
func NormalForm(sender Address, sequence uint64, tr Transfer) *jsonv.Object {
	return jsonv.Obj("arguments", []jsonv.Value{tr.Metadata.String(), tr.Recipient.String(), strconv.FormatUint(tr.Amount, 10)},
		"function", TransferFunction, "sender", sender.String(), "sequenceNumber", strconv.FormatUint(sequence, 10),
		"typeArguments", []jsonv.Value{MetadataTypeLong})
}

// IDDigest is SHA-256 of the normal form's canonical JSON (members sorted,
// no whitespace): what a reference names the payment by before it has a
// hash.
func IDDigest(normal *jsonv.Object) [32]byte { return sha256.Sum256(jsonv.Canonical(normal)) }

// TransferTransaction is the RawTransaction of the x402 transfer tr from
// sender at sequence, with the gas, expiration and chain id given.
func TransferTransaction(sender Address, sequence uint64, tr Transfer, maxGas, gasPrice, expiration uint64, chain uint8) *RawTransaction {
	amount := make([]byte, 8)
	for i := range 8 {
		amount[i] = byte(tr.Amount >> (8 * i))
	}
	meta := &StructTag{Address: framework, Module: "fungible_asset", Name: "Metadata"}
	return &RawTransaction{Sender: sender, SequenceNumber: sequence,
		Payload: EntryFunction{Module: framework, Name: "primary_fungible_store", Function: "transfer",
			TypeArgs: []TypeTag{{Variant: 7, Struct: meta}},
			Args:     [][]byte{append([]byte{}, tr.Metadata[:]...), append([]byte{}, tr.Recipient[:]...), amount}},
		MaxGasAmount: maxGas, GasUnitPrice: gasPrice, Expiration: expiration, ChainID: chain}
}
