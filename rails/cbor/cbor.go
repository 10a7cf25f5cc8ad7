// Package cbor is a small strict CBOR (RFC 8949) codec for the rails that
// sign CBOR (Cardano's transactions and auxiliary data): definite lengths
// only, every head in its shortest form, no floats, bounded in size, depth
// and counts. A decoded array or map keeps the bytes it was read from, so
// that a hash is taken over what was signed, not over a re-encoding.
package cbor

import (
	"encoding/binary"
	"errors"
	"math"
	"unicode/utf8"
)

// Major types.
const (
	Uint   = 0
	Neg    = 1
	Bytes  = 2
	Text   = 3
	Array  = 4
	Map    = 5
	Tag    = 6
	Simple = 7
)

// Bounds of what Decode reads.
const (
	MaxInput = 64 << 10
	MaxDepth = 32
	MaxItems = 4096 // in all, across the whole input
)

// Value is one CBOR data item. For Uint, Neg (the value is -1-N), Tag (the
// tag number) and Simple (20 false, 21 true, 22 null) N holds the argument;
// Bytes and Text hold B; Array holds Items; Map holds Items as key, value,
// key, value…; Tag holds its content as Items[0].
type Value struct {
	Major int
	N     uint64
	B     []byte
	Items []*Value
	Raw   []byte // the item's encoding as read (set by Decode)
}

// Errors.
var (
	ErrMalformed = errors.New("cbor: malformed")
	ErrTooLarge  = errors.New("cbor: too large")
)

// Decode reads exactly one item from b.
func Decode(b []byte) (*Value, error) {
	if len(b) > MaxInput {
		return nil, ErrTooLarge
	}
	d := &decoder{b: b}
	// One slab of values and one of child pointers for the whole input,
	// sized by a first pass over the heads, instead of an allocation per
	// item: Cardano's transaction is some sixty items. A first pass that
	// does not finish (malformed, or over the caps) leaves the slabs empty,
	// and the reading pass below refuses the input as before.
	if n := countItems(b); n > 0 {
		d.vals = make([]Value, n)
		d.kids = make([]*Value, n-1)
	}
	v, err := d.item(0)
	if err != nil {
		return nil, err
	}
	if d.pos != len(b) {
		return nil, ErrMalformed
	}
	return v, nil
}

type decoder struct {
	b     []byte
	pos   int
	items int
	vals  []Value  // the values still free in the slab
	kids  []*Value // the child pointers still free in the slab
}

// countItems is the number of items in b's first item, read by heads
// alone (no recursion: a count of the items still owed), or 0 where the
// heads do not hold up or pass MaxItems. Nothing else is checked here:
// item checks everything as it reads.
func countItems(b []byte) int {
	d := decoder{b: b}
	owed, n := uint64(1), 0
	for owed > 0 {
		major, arg, err := d.head()
		if err != nil || n >= MaxItems {
			return 0
		}
		owed--
		n++
		switch major {
		case Bytes, Text:
			if arg > uint64(len(b)-d.pos) {
				return 0
			}
			d.pos += int(arg)
		case Array, Map:
			if major == Map {
				if arg > math.MaxUint32 {
					return 0
				}
				arg *= 2
			}
			if arg > uint64(len(b)-d.pos) { // each item takes at least a byte
				return 0
			}
			owed += arg
		case Tag:
			owed++
		}
	}
	return n
}

// value is a new Value, from the slab while it lasts.
func (d *decoder) value() *Value {
	if len(d.vals) == 0 {
		return new(Value)
	}
	v := &d.vals[0]
	d.vals = d.vals[1:]
	return v
}

// children is room for n child pointers, from the slab while it lasts;
// its capacity is n, so that an append past it cannot reach a sibling's.
func (d *decoder) children(n uint64) []*Value {
	if n > uint64(len(d.kids)) {
		return make([]*Value, 0, n)
	}
	c := d.kids[:0:n]
	d.kids = d.kids[n:]
	return c
}

func (d *decoder) head() (major int, arg uint64, err error) {
	if d.pos >= len(d.b) {
		return 0, 0, ErrMalformed
	}
	ib := d.b[d.pos]
	d.pos++
	major, info := int(ib>>5), ib&31
	switch {
	case info < 24:
		return major, uint64(info), nil
	case info <= 27:
		n := 1 << (info - 24)
		if len(d.b)-d.pos < n {
			return 0, 0, ErrMalformed
		}
		var v uint64
		for _, c := range d.b[d.pos : d.pos+n] {
			v = v<<8 | uint64(c)
		}
		d.pos += n
		// shortest form only: a value that fits a smaller head is refused
		min := [...]uint64{24, 1 << 8, 1 << 16, 1 << 32}[info-24]
		if v < min {
			return 0, 0, ErrMalformed
		}
		return major, v, nil
	}
	return 0, 0, ErrMalformed // reserved, or indefinite length
}

func (d *decoder) item(depth int) (*Value, error) {
	if depth > MaxDepth {
		return nil, ErrTooLarge
	}
	d.items++
	if d.items > MaxItems {
		return nil, ErrTooLarge
	}
	start := d.pos
	major, arg, err := d.head()
	if err != nil {
		return nil, err
	}
	v := d.value()
	v.Major, v.N = major, arg
	switch major {
	case Uint, Neg:
	case Bytes, Text:
		if arg > uint64(len(d.b)-d.pos) {
			return nil, ErrMalformed
		}
		v.B = d.b[d.pos : d.pos+int(arg)]
		d.pos += int(arg)
		if major == Text && !utf8.Valid(v.B) {
			return nil, ErrMalformed
		}
		v.N = 0
	case Array, Map:
		n := arg
		if major == Map {
			if n > math.MaxUint32 {
				return nil, ErrTooLarge
			}
			n *= 2
		}
		if n > uint64(len(d.b)-d.pos) { // each item takes at least a byte
			return nil, ErrMalformed
		}
		v.Items = d.children(n)
		for i := uint64(0); i < n; i++ {
			c, err := d.item(depth + 1)
			if err != nil {
				return nil, err
			}
			v.Items = append(v.Items, c)
		}
		if major == Map && !distinctKeys(v.Items) {
			return nil, ErrMalformed
		}
		v.N = 0
	case Tag:
		c, err := d.item(depth + 1)
		if err != nil {
			return nil, err
		}
		v.Items = append(d.children(1), c)
	case Simple:
		if arg < 20 || arg > 22 { // false, true, null only; no floats or undefined
			return nil, ErrMalformed
		}
	}
	v.Raw = d.b[start:d.pos]
	return v, nil
}

// Encode writes v in the shortest form (Raw is ignored), into one
// allocation of the encoding's exact size.
func Encode(v *Value) []byte { return v.append(make([]byte, 0, v.size())) }

// headSize is the length of appendHead's head for arg.
func headSize(arg uint64) int {
	switch {
	case arg < 24:
		return 1
	case arg < 1<<8:
		return 2
	case arg < 1<<16:
		return 3
	case arg < 1<<32:
		return 5
	}
	return 9
}

// size is the length of v's encoding.
func (v *Value) size() int {
	switch v.Major {
	case Bytes, Text:
		return headSize(uint64(len(v.B))) + len(v.B)
	case Array:
		return headSize(uint64(len(v.Items))) + v.itemsSize()
	case Map:
		return headSize(uint64(len(v.Items)/2)) + v.itemsSize()
	case Tag:
		return headSize(v.N) + v.itemsSize()
	}
	return headSize(v.N)
}

func (v *Value) itemsSize() int {
	n := 0
	for _, c := range v.Items {
		n += c.size()
	}
	return n
}

func appendHead(out []byte, major int, arg uint64) []byte {
	m := byte(major << 5)
	switch {
	case arg < 24:
		return append(out, m|byte(arg))
	case arg < 1<<8:
		return append(out, m|24, byte(arg))
	case arg < 1<<16:
		return binary.BigEndian.AppendUint16(append(out, m|25), uint16(arg))
	case arg < 1<<32:
		return binary.BigEndian.AppendUint32(append(out, m|26), uint32(arg))
	}
	return binary.BigEndian.AppendUint64(append(out, m|27), arg)
}

func (v *Value) append(out []byte) []byte {
	switch v.Major {
	case Bytes, Text:
		return append(appendHead(out, v.Major, uint64(len(v.B))), v.B...)
	case Array:
		out = appendHead(out, Array, uint64(len(v.Items)))
	case Map:
		out = appendHead(out, Map, uint64(len(v.Items)/2))
	case Tag:
		out = appendHead(out, Tag, v.N)
	default:
		return appendHead(out, v.Major, v.N)
	}
	for _, c := range v.Items {
		out = c.append(out)
	}
	return out
}

// Constructors.

// U is an unsigned integer.
func U(n uint64) *Value { return &Value{Major: Uint, N: n} }

// B is a byte string.
func B(b []byte) *Value { return &Value{Major: Bytes, B: b} }

// T is a text string.
func T(s string) *Value { return &Value{Major: Text, B: []byte(s)} }

// A is an array.
func A(items ...*Value) *Value { return &Value{Major: Array, Items: items} }

// M is a map of key, value pairs in the order given.
func M(kv ...*Value) *Value { return &Value{Major: Map, Items: kv} }

// Tagged is a tagged item.
func Tagged(tag uint64, v *Value) *Value { return &Value{Major: Tag, N: tag, Items: []*Value{v}} }

// Get is a map's value for an unsigned integer key, or nil.
func (v *Value) Get(key uint64) *Value {
	if v == nil || v.Major != Map {
		return nil
	}
	for i := 0; i+1 < len(v.Items); i += 2 {
		if k := v.Items[i]; k.Major == Uint && k.N == key {
			return v.Items[i+1]
		}
	}
	return nil
}

// distinctKeys: a map whose keys repeat (byte for byte) is refused, so that
// a reader and a ledger cannot take different values for one key.
func distinctKeys(kv []*Value) bool {
	for i := 0; i < len(kv); i += 2 {
		for j := i + 2; j < len(kv); j += 2 {
			if string(kv[i].Raw) == string(kv[j].Raw) {
				return false
			}
		}
	}
	return true
}

// AppendHead appends an item's head (major type and argument) in the
// shortest form, for writers that stream an item without building a Value.
func AppendHead(out []byte, major int, arg uint64) []byte { return appendHead(out, major, arg) }

// AppendBytes appends a byte string; AppendText a text string.
func AppendBytes(out, b []byte) []byte { return append(appendHead(out, Bytes, uint64(len(b))), b...) }

// AppendText appends a text string.
func AppendText(out []byte, s string) []byte {
	return append(appendHead(out, Text, uint64(len(s))), s...)
}
