package xrpl

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
)

// JSON is the decoded transaction in ripple-binary-codec's JSON forms:
// integers as numbers (TransactionType by name), XRP amounts as decimal
// drops, issued amounts as {currency, issuer, value}, MPT amounts as
// {mpt_issuance_id, value}, hashes, blobs and UInt64s as uppercase hex,
// accounts as classic addresses, arrays as [{Member: {…}}].
func (fs Fields) JSON() *jsonv.Object {
	o := &jsonv.Object{}
	for _, f := range fs {
		o.Set(f.ID.Name(), f.JSON())
	}
	return o
}

// JSON is one field's value in its JSON form.
func (f Field) JSON() jsonv.Value {
	v := f.Value
	switch f.ID.Type {
	case TypeSTObject:
		return Fields(f.Fields).JSON()
	case TypeSTArray:
		out := make([]jsonv.Value, 0, len(f.Fields))
		for _, m := range f.Fields {
			out = append(out, jsonv.Obj(m.ID.Name(), Fields(m.Fields).JSON()))
		}
		return out
	case TypeUInt8:
		return jsonv.Number(v[0])
	case TypeUInt16:
		n := binary.BigEndian.Uint16(v)
		if f.ID == FieldTransactionType {
			return TransactionTypes[n]
		}
		return jsonv.Number(n)
	case TypeUInt32:
		return jsonv.Number(binary.BigEndian.Uint32(v))
	case TypeInt32:
		return jsonv.Number(int32(binary.BigEndian.Uint32(v)))
	case TypeNumber:
		return NumberText(v)
	case TypeAccountID:
		var id AccountID
		copy(id[:], v)
		return id.Address()
	case TypeAmount:
		return AmountJSON(v)
	case TypeCurrency:
		return currencyText(v)
	case TypeVector256:
		out := make([]jsonv.Value, 0, len(v)/32)
		for i := 0; i+32 <= len(v); i += 32 {
			out = append(out, upperHex(v[i:i+32]))
		}
		return out
	}
	return upperHex(v)
}

// upperHex is b in uppercase hex, written in one allocation rather than
// encoded and then uppercased (TestUpperHexAsToUpper).
func upperHex(b []byte) string {
	const digits = "0123456789ABCDEF"
	var sb strings.Builder
	sb.Grow(2 * len(b))
	var chunk [128]byte
	for len(b) > 0 {
		n := min(len(b), len(chunk)/2)
		for i, c := range b[:n] {
			chunk[2*i], chunk[2*i+1] = digits[c>>4], digits[c&15]
		}
		sb.Write(chunk[:2*n])
		b = b[n:]
	}
	return sb.String()
}

// AmountJSON is an amount's JSON form.
func AmountJSON(v []byte) jsonv.Value {
	switch {
	case len(v) == 48:
		var issuer AccountID
		copy(issuer[:], v[28:])
		return jsonv.Obj("currency", currencyText(v[8:28]), "issuer", issuer.Address(), "value", IssuedValueText(v[:8]))
	case len(v) == 33:
		return jsonv.Obj("mpt_issuance_id", upperHex(v[9:]), "value", strconv.FormatUint(binary.BigEndian.Uint64(v[1:9]), 10))
	}
	raw := binary.BigEndian.Uint64(v)
	drops := strconv.FormatUint(raw&(1<<62-1), 10)
	if raw&(1<<62) == 0 {
		return "-" + drops
	}
	return drops
}

// currencyText is a currency code: XRP for all zeros, a three-character code
// in the standard form, else 40 hex digits.
func currencyText(c []byte) string {
	if [20]byte(c) == ([20]byte{}) {
		return "XRP"
	}
	std := true
	for i, b := range c {
		if (i < 12 || i >= 15) && b != 0 {
			std = false
		}
	}
	if std {
		iso := string(c[12:15])
		if iso != "XRP" && isCurrencyCode(iso) {
			return iso
		}
	}
	return upperHex(c)
}

func isCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("?!@#$%^&*<>(){}[]|", c) >= 0) {
			return false
		}
	}
	return true
}

// IssuedValueText is an issued amount's value in plain decimal.
func IssuedValueText(v []byte) string {
	raw := binary.BigEndian.Uint64(v)
	mantissa := raw & (1<<54 - 1)
	if mantissa == 0 {
		return "0"
	}
	sign := "-"
	if raw&(1<<62) != 0 {
		sign = ""
	}
	exp := int(raw>>54&0xFF) - 97
	digits := strconv.FormatUint(mantissa, 10)
	stripped := strings.TrimRight(digits, "0")
	lead := len(digits) - 1 + exp // the power of ten of the first digit
	if lead >= 0 {
		whole := stripped
		for len(whole) < lead+1 {
			whole += "0"
		}
		frac := whole[lead+1:]
		whole = whole[:lead+1]
		if frac != "" {
			return sign + whole + "." + frac
		}
		return sign + whole
	}
	return sign + "0." + strings.Repeat("0", -lead-1) + stripped
}

// FromJSON builds a transaction's fields from its JSON form (the txJson of a
// signing request), sorted into canonical order. It knows the types the
// builds write: UInt8/16/32, hashes, amounts, blobs, accounts, Vector256,
// objects and arrays; any other field is an error naming it.
func FromJSON(tx *jsonv.Object) (Fields, error) {
	fs, err := objectFromJSON(tx, 0)
	if err != nil {
		return nil, err
	}
	Sort(fs)
	return fs, nil
}

func objectFromJSON(o *jsonv.Object, depth int) (Fields, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("xrpl: nested deeper than %d", MaxDepth)
	}
	fs := make(Fields, 0, o.Len())
	for _, m := range o.Members() {
		id, ok := FieldByName(m.Key)
		if !ok || id == FieldObjectEnd || id == FieldArrayEnd {
			return nil, fmt.Errorf("xrpl: no serialized field named %q", m.Key)
		}
		f, err := fieldFromJSON(id, m.Value, depth)
		if err != nil {
			return nil, fmt.Errorf("xrpl: field %s: %w", m.Key, err)
		}
		fs = append(fs, f)
	}
	return fs, nil
}

func fieldFromJSON(id FieldID, v jsonv.Value, depth int) (Field, error) {
	f := Field{ID: id}
	switch id.Type {
	case TypeSTObject:
		o, ok := jsonv.AsObject(v)
		if !ok {
			return f, fmt.Errorf("not an object")
		}
		fs, err := objectFromJSON(o, depth+1)
		f.Fields = fs
		return f, err
	case TypeSTArray:
		list, ok := jsonv.AsArray(v)
		if !ok {
			return f, fmt.Errorf("not an array")
		}
		for _, item := range list {
			wrap, ok := jsonv.AsObject(item)
			if !ok || wrap.Len() != 1 {
				return f, fmt.Errorf("a member is not {Name: {…}}")
			}
			m := wrap.Members()[0]
			mid, ok := FieldByName(m.Key)
			if !ok || mid.Type != TypeSTObject {
				return f, fmt.Errorf("member %q is not an object field", m.Key)
			}
			mf, err := fieldFromJSON(mid, m.Value, depth+1)
			if err != nil {
				return f, err
			}
			f.Fields = append(f.Fields, mf)
		}
		return f, nil
	case TypeUInt8, TypeUInt16, TypeUInt32:
		if id == FieldTransactionType {
			s, _ := jsonv.AsString(v)
			code, ok := transactionTypeCodes[s]
			if !ok {
				return f, fmt.Errorf("unknown transaction type %v", v)
			}
			f.Value = binary.BigEndian.AppendUint16(nil, code)
			return f, nil
		}
		bits := map[uint8]int{TypeUInt8: 8, TypeUInt16: 16, TypeUInt32: 32}[id.Type]
		n, ok := jsonv.AsSafeInt(v)
		if !ok || n < 0 || n >= 1<<bits {
			return f, fmt.Errorf("not an integer of %d bits", bits)
		}
		f.Value = binary.BigEndian.AppendUint64(nil, uint64(n))[8-bits/8:]
	case TypeHash128, TypeHash160, TypeHash192, TypeHash256, TypeUInt64:
		b, ok := hexOf(v)
		if !ok || len(b) != fixedWidth[id.Type] {
			return f, fmt.Errorf("not %d bytes of hex", fixedWidth[id.Type])
		}
		f.Value = b
	case TypeBlob:
		b, ok := hexOf(v)
		if !ok || len(b) > MaxVL {
			return f, fmt.Errorf("not hex")
		}
		f.Value = b
	case TypeAccountID:
		s, _ := jsonv.AsString(v)
		a, err := ParseAddress(s)
		if err != nil {
			return f, fmt.Errorf("not a classic address with a valid checksum")
		}
		f.Value = a[:]
	case TypeVector256:
		list, ok := jsonv.AsArray(v)
		if !ok {
			return f, fmt.Errorf("not an array")
		}
		for _, item := range list {
			b, ok := hexOf(item)
			if !ok || len(b) != 32 {
				return f, fmt.Errorf("a member is not 32 bytes of hex")
			}
			f.Value = append(f.Value, b...)
		}
	case TypeAmount:
		b, err := AmountFromJSON(v)
		if err != nil {
			return f, err
		}
		f.Value = b
	default:
		return f, fmt.Errorf("type %d is not written by this encoder", id.Type)
	}
	return f, nil
}

func hexOf(v jsonv.Value) ([]byte, bool) {
	s, ok := jsonv.AsString(v)
	if !ok {
		return nil, false
	}
	b, err := hex.DecodeString(s)
	return b, err == nil
}

// AmountFromJSON writes an amount: a string of drops (XRP), {currency,
// issuer, value} (issued) or {mpt_issuance_id, value} (MPT).
func AmountFromJSON(v jsonv.Value) ([]byte, error) {
	if s, ok := jsonv.AsString(v); ok {
		drops, ok := ParseDrops(s)
		if !ok {
			return nil, fmt.Errorf("XRP amount %q is not 0…10^17 drops in decimal", s)
		}
		return binary.BigEndian.AppendUint64(nil, drops|1<<62), nil
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, fmt.Errorf("amount is neither drops nor an object")
	}
	value, _ := o.GetString("value")
	if id, has := o.GetString("mpt_issuance_id"); has {
		b, err := hex.DecodeString(id)
		n, perr := strconv.ParseUint(value, 10, 63)
		if err != nil || len(b) != 24 || perr != nil || o.Len() != 2 {
			return nil, fmt.Errorf("MPT amount is not {mpt_issuance_id: 48 hex, value: below 2^63}")
		}
		out := binary.BigEndian.AppendUint64([]byte{0x60}, n)
		return append(out, b...), nil
	}
	cur, _ := o.GetString("currency")
	issuerText, _ := o.GetString("issuer")
	issuer, err := ParseAddress(issuerText)
	if err != nil || o.Len() != 3 {
		return nil, fmt.Errorf("issued amount is not {currency, issuer, value} with a valid issuer")
	}
	code, err := currencyBytes(cur)
	if err != nil {
		return nil, err
	}
	val, err := IssuedValue(value)
	if err != nil {
		return nil, err
	}
	out := append(val, code[:]...)
	return append(out, issuer[:]...), nil
}

// ParseDrops reads an XRP amount in drops: decimal digits without a sign,
// point or leading zero, at most 10^17.
func ParseDrops(s string) (uint64, bool) {
	if s == "" || len(s) > 18 || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil && n <= MaxDrops
}

func currencyBytes(s string) ([20]byte, error) {
	var c [20]byte
	if isCurrencyCode(s) && s != "XRP" {
		copy(c[12:], s)
		return c, nil
	}
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 20 || [20]byte(b) == c {
		return c, fmt.Errorf("currency %q is neither a three-character code nor 40 hex digits", s)
	}
	return [20]byte(b), nil
}

// IssuedValue writes an issued amount's 8-byte value from decimal text
// (optionally signed, with a fraction and an exponent): 16 significant
// digits at most, normalized to a mantissa of 10^15…10^16-1 and an exponent
// of -96…80.
func IssuedValue(s string) ([]byte, error) {
	bad := fmt.Errorf("issued value %q is not a decimal of at most 16 significant digits within range", s)
	neg := strings.HasPrefix(s, "-")
	body := strings.TrimPrefix(s, "-")
	mant, expText, hasExp := strings.Cut(strings.ToLower(body), "e")
	integer, fraction, hasPoint := strings.Cut(mant, ".")
	if integer == "" || (hasPoint && fraction == "") || !allDigits(integer) || !allDigits(fraction) {
		return nil, bad
	}
	exp := 0
	if hasExp {
		x, err := strconv.Atoi(expText)
		if err != nil || x < -1000 || x > 1000 {
			return nil, bad
		}
		exp = x
	}
	digits := strings.TrimLeft(integer+fraction, "0")
	exp -= len(fraction)
	for strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		exp++
	}
	if digits == "" {
		return binary.BigEndian.AppendUint64(nil, 1<<63), nil
	}
	if len(digits) > 16 {
		return nil, bad
	}
	m, _ := strconv.ParseUint(digits, 10, 64)
	for m < 1e15 {
		m *= 10
		exp--
	}
	if exp < -96 || exp > 80 {
		return nil, bad
	}
	raw := uint64(1)<<63 | uint64(exp+97)<<54 | m
	if !neg {
		raw |= 1 << 62
	}
	return binary.BigEndian.AppendUint64(nil, raw), nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
