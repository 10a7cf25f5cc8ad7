package algorand

// The msgpack Algorand signs and sends: a small strict codec of our own
// (docs/algorand.md, "Encoding"). Algorand's canonical encoding is msgpack
// with map keys sorted, every integer and length in its shortest form and
// empty values omitted; a transaction's id is the hash of exactly these
// bytes, so a reader that accepted another spelling of the same values would
// name another transaction than the one signed. The reader first scans the
// bytes under the caps (WithinCaps) and only then builds values.

import (
	"encoding/binary"
	"errors"
	"sort"
)

// MaxDepth is the deepest nesting of msgpack arrays and maps a reader
// admits, the outermost container being level 1. A signed transaction
// nests three.
const MaxDepth = 32

// WithinCaps reports whether b is exactly one msgpack value (any format of
// the msgpack specification) whose arrays and maps nest at most MaxDepth
// deep and whose every declared length (of a string, binary or extension's
// bytes, of an array's elements, of a map's keys and values) is no more
// than the bytes left. The value is scanned, never built, in one pass.
func WithinCaps(b []byte) bool {
	n := len(b)
	i := 0
	var pending [MaxDepth]uint64 // values still to come in each open container
	depth := 0
	readUint := func(width int) (uint64, bool) {
		if i+width > n {
			return 0, false
		}
		var v uint64
		for k := 0; k < width; k++ {
			v = v<<8 | uint64(b[i+k])
		}
		i += width
		return v, true
	}
	skip := func(length uint64, ok bool) bool {
		if !ok || length > uint64(n-i) {
			return false
		}
		i += int(length)
		return true
	}
	for {
		if i >= n {
			return false
		}
		t := b[i]
		i++
		opened := false
		open := func(values uint64, ok bool) bool {
			if !ok || values > uint64(n-i) || depth+1 > MaxDepth {
				return false
			}
			if values > 0 {
				pending[depth] = values
				depth++
				opened = true
			}
			return true
		}
		var ok bool
		switch {
		case t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3:
			ok = true
		case t <= 0x8f:
			ok = open(2*uint64(t&0x0f), true)
		case t <= 0x9f:
			ok = open(uint64(t&0x0f), true)
		case t <= 0xbf:
			ok = skip(uint64(t&0x1f), true)
		case t == 0xc4 || t == 0xd9:
			ok = skip(readUint(1))
		case t == 0xc5 || t == 0xda:
			ok = skip(readUint(2))
		case t == 0xc6 || t == 0xdb:
			ok = skip(readUint(4))
		case t == 0xc7 || t == 0xc8 || t == 0xc9:
			l, okL := readUint(1 << (t - 0xc7))
			ok = skip(l+1, okL)
		case t == 0xca:
			ok = skip(4, true)
		case t == 0xcb:
			ok = skip(8, true)
		case t >= 0xcc && t <= 0xcf:
			ok = skip(1<<(t-0xcc), true)
		case t >= 0xd0 && t <= 0xd3:
			ok = skip(1<<(t-0xd0), true)
		case t >= 0xd4 && t <= 0xd8:
			ok = skip(1<<(t-0xd4)+1, true)
		case t == 0xdc:
			ok = open(readUint(2))
		case t == 0xdd:
			ok = open(readUint(4))
		case t == 0xde:
			l, okL := readUint(2)
			ok = open(2*l, okL)
		case t == 0xdf:
			l, okL := readUint(4)
			ok = open(2*l, okL)
		default: // 0xc1, never used
			ok = false
		}
		if !ok {
			return false
		}
		if opened {
			continue
		}
		for depth > 0 {
			pending[depth-1]--
			if pending[depth-1] > 0 {
				break
			}
			depth--
		}
		if depth == 0 {
			return i == n
		}
	}
}

// Kind is the kind of a Value: the msgpack formats Algorand's transactions
// use. Nil, negative integers, floats and extensions never occur in them
// and are refused.
type Kind uint8

const (
	KindUint Kind = iota + 1
	KindBool
	KindStr
	KindBin
	KindArray
	KindMap
)

// Value is one decoded msgpack value.
type Value struct {
	Kind  Kind
	Uint  uint64
	Bool  bool
	Bytes []byte  // KindStr and KindBin
	Array []Value // KindArray
	Map   []Entry // KindMap, keys in strictly increasing byte order
}

// Entry is one member of a map; Algorand's keys are strings.
type Entry struct {
	Key   string
	Value Value
}

// Get returns the member named key of a map.
func (v Value) Get(key string) (Value, bool) {
	for _, e := range v.Map {
		if e.Key == key {
			return e.Value, true
		}
	}
	return Value{}, false
}

// Uints, Strs, Bins, Maps and Arrays build values.
func Uint(u uint64) Value    { return Value{Kind: KindUint, Uint: u} }
func Str(s string) Value     { return Value{Kind: KindStr, Bytes: []byte(s)} }
func Bin(b []byte) Value     { return Value{Kind: KindBin, Bytes: b} }
func Array(a ...Value) Value { return Value{Kind: KindArray, Array: a} }

// Map builds a map from key, value pairs, leaving out empty values (zero,
// false, empty bytes, an empty array or map) as the canonical encoding
// does, with its keys sorted.
func Map(entries ...Entry) Value {
	out := make([]Entry, 0, len(entries))
	for _, e := range entries {
		if !e.Value.empty() {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return Value{Kind: KindMap, Map: out}
}

func (v Value) empty() bool {
	switch v.Kind {
	case KindUint:
		return v.Uint == 0
	case KindBool:
		return !v.Bool
	case KindStr, KindBin:
		return len(v.Bytes) == 0
	case KindArray:
		return len(v.Array) == 0
	case KindMap:
		return len(v.Map) == 0
	}
	return true
}

// Encode writes v canonically.
func Encode(v Value) []byte { return appendValue(make([]byte, 0, 256), v) }

func appendValue(out []byte, v Value) []byte {
	switch v.Kind {
	case KindUint:
		return appendUint(out, v.Uint)
	case KindBool:
		if v.Bool {
			return append(out, 0xc3)
		}
		return append(out, 0xc2)
	case KindStr:
		out = appendStrHeader(out, len(v.Bytes))
		return append(out, v.Bytes...)
	case KindBin:
		out = appendLen(out, len(v.Bytes), 0, 0xc4)
		return append(out, v.Bytes...)
	case KindArray:
		out = appendLen(out, len(v.Array), 0x90, 0xdc)
		for _, e := range v.Array {
			out = appendValue(out, e)
		}
		return out
	case KindMap:
		out = appendLen(out, len(v.Map), 0x80, 0xde)
		for _, e := range v.Map {
			out = appendStrHeader(out, len(e.Key))
			out = append(out, e.Key...)
			out = appendValue(out, e.Value)
		}
		return out
	}
	panic("algorand: encoding a value of no kind")
}

func appendUint(out []byte, u uint64) []byte {
	switch {
	case u <= 0x7f:
		return append(out, byte(u))
	case u <= 0xff:
		return append(out, 0xcc, byte(u))
	case u <= 0xffff:
		return binary.BigEndian.AppendUint16(append(out, 0xcd), uint16(u))
	case u <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(out, 0xce), uint32(u))
	}
	return binary.BigEndian.AppendUint64(append(out, 0xcf), u)
}

func appendStrHeader(out []byte, n int) []byte {
	switch {
	case n <= 31:
		return append(out, 0xa0|byte(n))
	case n <= 0xff:
		return append(out, 0xd9, byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(out, 0xda), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(out, 0xdb), uint32(n))
}

// appendLen writes a bin (fix 0), array or map header: fix form below 16
// when fix is set, else the 8- (bin only), 16- or 32-bit form.
func appendLen(out []byte, n int, fix, first byte) []byte {
	if fix != 0 && n <= 15 {
		return append(out, fix|byte(n))
	}
	if first == 0xc4 {
		switch {
		case n <= 0xff:
			return append(out, 0xc4, byte(n))
		case n <= 0xffff:
			return binary.BigEndian.AppendUint16(append(out, 0xc5), uint16(n))
		}
		return binary.BigEndian.AppendUint32(append(out, 0xc6), uint32(n))
	}
	if n <= 0xffff {
		return binary.BigEndian.AppendUint16(append(out, first), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(out, first+1), uint32(n))
}

// Errors of Decode.
var (
	ErrCaps         = errors.New("algorand: msgpack beyond the caps (depth, a length past the end, or not exactly one value)")
	ErrNotAlgorand  = errors.New("algorand: a msgpack format no Algorand transaction uses (nil, a negative integer, a float or an extension)")
	ErrNonCanonical = errors.New("algorand: msgpack not in canonical form (a longer integer or length than needed, unsorted or repeated keys, or an empty value in a map)")
	ErrMapKey       = errors.New("algorand: a map key that is not a string")
)

// Decode reads b, exactly one canonical msgpack value within the caps.
func Decode(b []byte) (Value, error) {
	if !WithinCaps(b) {
		return Value{}, ErrCaps
	}
	d := decoder{b: b}
	v, err := d.value()
	if err != nil {
		return Value{}, err
	}
	return v, nil
}

type decoder struct {
	b []byte
	i int
}

// The caps scan has checked every length against the bytes left, so the
// reads below cannot run past the end; they check anyway.
func (d *decoder) next(n int) ([]byte, error) {
	if n < 0 || n > len(d.b)-d.i {
		return nil, ErrCaps
	}
	s := d.b[d.i : d.i+n]
	d.i += n
	return s, nil
}

func (d *decoder) uintN(width int) (uint64, error) {
	s, err := d.next(width)
	if err != nil {
		return 0, err
	}
	var v uint64
	for _, c := range s {
		v = v<<8 | uint64(c)
	}
	return v, nil
}

// length reads a length of width bytes that must need that width: a
// shorter form exists below min.
func (d *decoder) length(width int, min uint64) (int, error) {
	v, err := d.uintN(width)
	if err != nil {
		return 0, err
	}
	if v < min {
		return 0, ErrNonCanonical
	}
	if v > uint64(len(d.b)) {
		return 0, ErrCaps
	}
	return int(v), nil
}

func (d *decoder) value() (Value, error) {
	tb, err := d.next(1)
	if err != nil {
		return Value{}, err
	}
	t := tb[0]
	switch {
	case t <= 0x7f:
		return Uint(uint64(t)), nil
	case t >= 0xcc && t <= 0xcf:
		width := 1 << (t - 0xcc)
		u, err := d.uintN(width)
		if err != nil {
			return Value{}, err
		}
		if width == 1 && u <= 0x7f || width > 1 && u < 1<<(4*width) {
			return Value{}, ErrNonCanonical
		}
		return Uint(u), nil
	case t == 0xc2 || t == 0xc3:
		return Value{Kind: KindBool, Bool: t == 0xc3}, nil
	case t >= 0xa0 && t <= 0xbf:
		return d.bytes(KindStr, int(t&0x1f))
	case t == 0xd9 || t == 0xda || t == 0xdb:
		width := 1 << (t - 0xd9)
		n, err := d.length(width, []uint64{32, 0x100, 0x10000}[t-0xd9])
		if err != nil {
			return Value{}, err
		}
		return d.bytes(KindStr, n)
	case t == 0xc4 || t == 0xc5 || t == 0xc6:
		width := 1 << (t - 0xc4)
		n, err := d.length(width, []uint64{0, 0x100, 0x10000}[t-0xc4])
		if err != nil {
			return Value{}, err
		}
		return d.bytes(KindBin, n)
	case t >= 0x90 && t <= 0x9f:
		return d.array(int(t & 0x0f))
	case t == 0xdc || t == 0xdd:
		n, err := d.length(2<<(t-0xdc), []uint64{16, 0x10000}[t-0xdc])
		if err != nil {
			return Value{}, err
		}
		return d.array(n)
	case t >= 0x80 && t <= 0x8f:
		return d.mapOf(int(t & 0x0f))
	case t == 0xde || t == 0xdf:
		n, err := d.length(2<<(t-0xde), []uint64{16, 0x10000}[t-0xde])
		if err != nil {
			return Value{}, err
		}
		return d.mapOf(n)
	}
	return Value{}, ErrNotAlgorand
}

func (d *decoder) bytes(k Kind, n int) (Value, error) {
	s, err := d.next(n)
	if err != nil {
		return Value{}, err
	}
	return Value{Kind: k, Bytes: s}, nil
}

func (d *decoder) array(n int) (Value, error) {
	if n > len(d.b)-d.i {
		return Value{}, ErrCaps
	}
	a := make([]Value, n)
	for k := range a {
		v, err := d.value()
		if err != nil {
			return Value{}, err
		}
		a[k] = v
	}
	return Value{Kind: KindArray, Array: a}, nil
}

func (d *decoder) mapOf(n int) (Value, error) {
	if 2*n > len(d.b)-d.i {
		return Value{}, ErrCaps
	}
	m := make([]Entry, n)
	for k := range m {
		key, err := d.value()
		if err != nil {
			return Value{}, err
		}
		if key.Kind != KindStr {
			return Value{}, ErrMapKey
		}
		if k > 0 && string(key.Bytes) <= m[k-1].Key {
			return Value{}, ErrNonCanonical
		}
		v, err := d.value()
		if err != nil {
			return Value{}, err
		}
		if v.empty() {
			return Value{}, ErrNonCanonical
		}
		m[k] = Entry{Key: string(key.Bytes), Value: v}
	}
	return Value{Kind: KindMap, Map: m}, nil
}
