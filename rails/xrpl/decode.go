package xrpl

import (
	"encoding/binary"
	"fmt"
)

// Caps on a decoded blob (docs/xrpl.md "Decoding"): objects and arrays nest
// at most MaxDepth levels below the transaction, and a blob holds at most
// MaxFields fields and array members.
const (
	MaxDepth  = 64
	MaxFields = 2048
)

// Field is one decoded field. A leaf's Value is its bytes without the length
// prefix; an STObject's Fields are its fields, and an STArray's Fields are
// its members, each an STObject field.
type Field struct {
	ID     FieldID
	Value  []byte
	Fields []Field
}

// Fields is an object's fields in canonical order.
type Fields []Field

// Get returns the field id names.
func (fs Fields) Get(id FieldID) (Field, bool) {
	for _, f := range fs {
		if f.ID == id {
			return f, true
		}
	}
	return Field{}, false
}

// DecodeError says where and why a blob is not a canonical serialization.
type DecodeError struct {
	Offset int
	Reason string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("xrpl: not a canonical serialization at byte %d: %s", e.Offset, e.Reason)
}

type decoder struct {
	b      []byte
	at     int
	fields int
}

func (d *decoder) fail(format string, args ...any) error {
	return &DecodeError{Offset: d.at, Reason: fmt.Sprintf(format, args...)}
}

func (d *decoder) take(n int) ([]byte, error) {
	if n < 0 || n > len(d.b)-d.at {
		return nil, d.fail("%d bytes needed, %d left", n, len(d.b)-d.at)
	}
	out := d.b[d.at : d.at+n : d.at+n]
	d.at += n
	return out, nil
}

func (d *decoder) u8() (byte, error) {
	if d.at >= len(d.b) {
		return 0, d.fail("unexpected end")
	}
	c := d.b[d.at]
	d.at++
	return c, nil
}

// header reads a field header, refusing a non-canonical escape (a code below
// 16 written in its own byte) and any pair the definitions do not name.
func (d *decoder) header() (FieldID, error) {
	start := d.at
	head, err := d.u8()
	if err != nil {
		return FieldID{}, err
	}
	t, c := head>>4, head&0x0F
	if t == 0 {
		if t, err = d.u8(); err != nil {
			return FieldID{}, err
		}
		if t < 16 {
			d.at = start
			return FieldID{}, d.fail("type code %d written in its own byte", t)
		}
	}
	if c == 0 {
		if c, err = d.u8(); err != nil {
			return FieldID{}, err
		}
		if c < 16 {
			d.at = start
			return FieldID{}, d.fail("field code %d written in its own byte", c)
		}
	}
	id := FieldID{t, c}
	if !isKnown(id) {
		d.at = start
		return FieldID{}, d.fail("no field (%d, %d) in the definitions", t, c)
	}
	return id, nil
}

// length reads a variable-length prefix. Each length has one encoding, so
// the prefix is canonical whenever it reads.
func (d *decoder) length() (int, error) {
	b1, err := d.u8()
	if err != nil {
		return 0, err
	}
	switch {
	case b1 <= 192:
		return int(b1), nil
	case b1 <= 240:
		b2, err := d.u8()
		if err != nil {
			return 0, err
		}
		return 193 + int(b1-193)<<8 + int(b2), nil
	case b1 <= 254:
		rest, err := d.take(2)
		if err != nil {
			return 0, err
		}
		return 12481 + int(b1-241)<<16 + int(rest[0])<<8 + int(rest[1]), nil
	}
	return 0, d.fail("length prefix byte 0xFF")
}

// Decode reads a transaction blob and requires it to be the canonical
// serialization of what it decodes to: headers canonical and named, fields
// strictly ascending within each object, every nested object and array
// closed, nothing after the last top-level field, each value in its one
// canonical encoding, and the caps. One pass, linear in len(blob); the
// returned values alias blob.
func Decode(blob []byte) (Fields, error) {
	d := &decoder{b: blob}
	return d.object(0)
}

// object reads fields up to an end marker (depth > 0) or the end of the
// blob (depth 0, where an end marker is refused).
func (d *decoder) object(depth int) (Fields, error) {
	if depth > MaxDepth {
		return nil, d.fail("nesting deeper than %d", MaxDepth)
	}
	var out Fields
	var last uint32
	unlModify := false
	for d.at < len(d.b) {
		start := d.at
		id, err := d.header()
		if err != nil {
			return nil, err
		}
		if id == FieldObjectEnd {
			if depth == 0 {
				d.at = start
				return nil, d.fail("object end marker at the top level")
			}
			return out, nil
		}
		if id.ordinal() <= last {
			d.at = start
			return nil, d.fail("field (%d, %d) out of canonical order or repeated", id.Type, id.Code)
		}
		last = id.ordinal()
		if d.fields++; d.fields > MaxFields {
			return nil, d.fail("more than %d fields", MaxFields)
		}
		f, err := d.value(id, depth, unlModify && id == FieldAccount)
		if err != nil {
			return nil, err
		}
		// In a UNLModify (or a permission naming it) the Account that
		// follows is written empty.
		if (id == FieldTransactionType && binary.BigEndian.Uint16(f.Value) == txUNLModify) ||
			(id == FieldPermissionValue && binary.BigEndian.Uint32(f.Value) == txUNLModify+1) {
			unlModify = true
		}
		out = append(out, f)
	}
	if depth > 0 {
		return nil, d.fail("object not closed")
	}
	return out, nil
}

// array reads members up to the array end marker; each must be an
// STObject-typed field.
func (d *decoder) array(depth int) (Fields, error) {
	if depth > MaxDepth {
		return nil, d.fail("nesting deeper than %d", MaxDepth)
	}
	var out Fields
	for d.at < len(d.b) {
		start := d.at
		id, err := d.header()
		if err != nil {
			return nil, err
		}
		if id == FieldArrayEnd {
			return out, nil
		}
		if id.Type != TypeSTObject {
			d.at = start
			return nil, d.fail("array member (%d, %d) is not an object", id.Type, id.Code)
		}
		if d.fields++; d.fields > MaxFields {
			return nil, d.fail("more than %d fields", MaxFields)
		}
		inner, err := d.object(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, Field{ID: id, Fields: inner})
	}
	return nil, d.fail("array not closed")
}

var fixedWidth = map[uint8]int{
	TypeUInt8: 1, TypeUInt16: 2, TypeUInt32: 4, TypeUInt64: 8, TypeInt32: 4, TypeNumber: 12,
	TypeHash128: 16, TypeHash160: 20, TypeHash192: 24, TypeHash256: 32, TypeCurrency: 20,
}

// value reads one field's value and checks it is canonical.
func (d *decoder) value(id FieldID, depth int, emptyAccount bool) (Field, error) {
	start := d.at
	f := Field{ID: id}
	var err error
	switch id.Type {
	case TypeSTObject:
		f.Fields, err = d.object(depth + 1)
		return f, err
	case TypeSTArray:
		f.Fields, err = d.array(depth + 1)
		return f, err
	case TypeBlob, TypeAccountID, TypeVector256:
		n, err := d.length()
		if err != nil {
			return f, err
		}
		if f.Value, err = d.take(n); err != nil {
			return f, err
		}
		switch {
		case id.Type == TypeVector256 && n%32 != 0:
			d.at = start
			return f, d.fail("Vector256 of %d bytes", n)
		case id.Type == TypeAccountID && emptyAccount && n != 0:
			d.at = start
			return f, d.fail("a UNLModify's Account must be empty")
		case id.Type == TypeAccountID && !emptyAccount && n != 20:
			d.at = start
			return f, d.fail("AccountID of %d bytes", n)
		}
		return f, nil
	case TypeAmount:
		f.Value, err = d.amount(id == FieldFeeAmountDelta)
		return f, err
	case TypePathSet:
		f.Value, err = d.pathSet()
		return f, err
	case TypeIssue:
		if err = d.issue(); err != nil {
			return f, err
		}
	case TypeXChainBridge:
		for i := 0; i < 2; i++ {
			n, err := d.u8()
			if err != nil {
				return f, err
			}
			if n != 20 {
				d.at--
				return f, d.fail("bridge account length %d", n)
			}
			if _, err := d.take(20); err != nil {
				return f, err
			}
			if err := d.issue(); err != nil {
				return f, err
			}
		}
	default:
		w, ok := fixedWidth[id.Type]
		if !ok {
			return f, d.fail("type %d has no reader", id.Type)
		}
		if f.Value, err = d.take(w); err != nil {
			return f, err
		}
		if err := checkEnum(id, f.Value); err != nil {
			d.at = start
			return f, d.fail("%v", err)
		}
		return f, nil
	}
	f.Value = d.b[start:d.at:d.at]
	return f, nil
}

func checkEnum(id FieldID, v []byte) error {
	switch id {
	case FieldTransactionType:
		if _, ok := TransactionTypes[binary.BigEndian.Uint16(v)]; !ok {
			return fmt.Errorf("unknown TransactionType %d", binary.BigEndian.Uint16(v))
		}
	case FieldLedgerEntryType:
		if !ledgerEntryTypes[binary.BigEndian.Uint16(v)] {
			return fmt.Errorf("unknown LedgerEntryType %d", binary.BigEndian.Uint16(v))
		}
	case FieldTransactionResult:
		if !transactionResults.has(v[0]) {
			return fmt.Errorf("unknown TransactionResult %d", v[0])
		}
	case FieldPermissionValue:
		if !permissionValues[binary.BigEndian.Uint32(v)] {
			return fmt.Errorf("unknown PermissionValue %d", binary.BigEndian.Uint32(v))
		}
	}
	if id.Type == TypeNumber && !numberCanonical(v) {
		return fmt.Errorf("number not in its canonical encoding")
	}
	return nil
}

// amount reads an XRP, issued or MPT amount (docs/xrpl.md "Amounts").
func (d *decoder) amount(signed bool) ([]byte, error) {
	start := d.at
	if d.at >= len(d.b) {
		return nil, d.fail("unexpected end")
	}
	var v []byte
	var err error
	var why string
	switch first := d.b[d.at]; {
	case first&0x80 != 0:
		if v, err = d.take(48); err != nil {
			return nil, err
		}
		why = issuedProblem(v, signed)
	case first&0x20 != 0:
		if v, err = d.take(33); err != nil {
			return nil, err
		}
		if signed || v[0] != 0x60 || v[1]&0x80 != 0 {
			why = "MPT amount not 0x60 and below 2^63"
		}
	default:
		if v, err = d.take(8); err != nil {
			return nil, err
		}
		drops := binary.BigEndian.Uint64(v) & (1<<62 - 1)
		positive := v[0]&0x40 != 0
		if drops > MaxDrops {
			why = "more than 10^17 drops"
		} else if !positive && !(signed && drops != 0) {
			why = "XRP amount without its positive bit"
		}
	}
	if why != "" {
		d.at = start
		return nil, d.fail("%s", why)
	}
	return v, nil
}

// MaxDrops is all the XRP there is, in drops.
const MaxDrops = 100_000_000_000_000_000

// issuedProblem checks an issued amount's 8-byte value: the canonical zero,
// or a mantissa of 16 digits and an exponent from -96 to 80.
func issuedProblem(v []byte, signed bool) string {
	if signed {
		return "FeeAmountDelta must be XRP"
	}
	raw := binary.BigEndian.Uint64(v)
	if raw == 1<<63 {
		return ""
	}
	mantissa := raw & (1<<54 - 1)
	exp := int(raw>>54) & 0xFF
	if mantissa < 1e15 || mantissa >= 1e16 || exp < 1 || exp > 177 {
		return "issued amount not normalized"
	}
	return ""
}

// pathSet reads a PathSet: paths of hops separated by 0xFF, ended by 0x00.
func (d *decoder) pathSet() ([]byte, error) {
	start := d.at
	paths, inPath := 0, 0
	for d.at < len(d.b) {
		kind, _ := d.u8()
		if kind&^0x31 != 0 || (kind == 0 && paths == 0 && inPath == 0) {
			d.at--
			return nil, d.fail("path step type 0x%02X", kind)
		}
		n := 0
		for _, bit := range []byte{0x01, 0x10, 0x20} {
			if kind&bit != 0 {
				n += 20
			}
		}
		if _, err := d.take(n); err != nil {
			return nil, err
		}
		inPath++
		if d.at >= len(d.b) {
			return nil, d.fail("path set not ended")
		}
		if next := d.b[d.at]; next == 0x00 || next == 0xFF {
			d.at++
			paths++
			inPath = 0
			if next == 0x00 {
				return d.b[start:d.at:d.at], nil
			}
		}
	}
	if paths > 0 || inPath > 0 {
		return nil, d.fail("path set not ended")
	}
	return d.b[start:d.at:d.at], nil
}

var noAccount = [20]byte{19: 1}

// issue reads an Issue: XRP's 20 zero bytes, or currency and issuer, plus a
// 4-byte sequence when the issuer is the MPT sentinel.
func (d *decoder) issue() error {
	cur, err := d.take(20)
	if err != nil {
		return err
	}
	if [20]byte(cur) == ([20]byte{}) {
		return nil
	}
	issuer, err := d.take(20)
	if err != nil {
		return err
	}
	if [20]byte(issuer) == noAccount {
		_, err = d.take(4)
	}
	return err
}
