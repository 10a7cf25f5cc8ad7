// Package bcs is a small strict reader and writer of Binary Canonical
// Serialization, the encoding Sui and Aptos sign (docs/sui.md). It reads
// only canonical input: ULEB128 lengths in their shortest form and within
// u32, booleans and option tags 0 or 1, and a caller that asks Done sees
// any trailing byte. Every length is checked against what is left before
// anything is allocated, so a short input cannot ask for a large buffer.
package bcs

import (
	"encoding/binary"
	"errors"
)

// ErrMalformed is every decoding failure: the input is not canonical BCS of
// the shape asked for.
var ErrMalformed = errors.New("bcs: malformed")

// Reader reads BCS values from a byte slice; the first failure sticks, so a
// caller may read a whole structure and check Err once.
type Reader struct {
	b   []byte
	off int
	err error
}

// NewReader reads b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Err is the first failure, or nil.
func (r *Reader) Err() error { return r.err }

// Offset is how many bytes have been read.
func (r *Reader) Offset() int { return r.off }

// Left is how many bytes are left.
func (r *Reader) Left() int { return len(r.b) - r.off }

// Fail records a failure of the caller's own (a tag it does not know).
func (r *Reader) Fail() { r.fail() }

func (r *Reader) fail() {
	if r.err == nil {
		r.err = ErrMalformed
	}
	r.off = len(r.b)
}

// Done fails unless every byte was read.
func (r *Reader) Done() error {
	if r.err == nil && r.off != len(r.b) {
		r.fail()
	}
	return r.err
}

// Fixed reads n bytes; the slice aliases the input.
func (r *Reader) Fixed(n int) []byte {
	if r.err != nil || n < 0 || n > r.Left() {
		r.fail()
		return nil
	}
	out := r.b[r.off : r.off+n]
	r.off += n
	return out
}

// U8 reads one byte.
func (r *Reader) U8() uint8 {
	b := r.Fixed(1)
	if b == nil {
		return 0
	}
	return b[0]
}

// U16 reads a little-endian u16.
func (r *Reader) U16() uint16 {
	b := r.Fixed(2)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint16(b)
}

// U32 reads a little-endian u32.
func (r *Reader) U32() uint32 {
	b := r.Fixed(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

// U64 reads a little-endian u64.
func (r *Reader) U64() uint64 {
	b := r.Fixed(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// Bool reads 0 or 1.
func (r *Reader) Bool() bool {
	v := r.U8()
	if v > 1 {
		r.fail()
	}
	return v == 1
}

// Option reads an option's tag: whether a value follows.
func (r *Reader) Option() bool { return r.Bool() }

// ULEB128 reads a canonical ULEB128 of at most u32 (BCS's lengths and enum
// tags): no trailing zero group, no value above 2^32-1.
func (r *Reader) ULEB128() uint32 {
	var v uint64
	for i := 0; i < 5; i++ {
		c := r.U8()
		if r.err != nil {
			return 0
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			if i > 0 && c == 0 || v > 1<<32-1 {
				r.fail()
				return 0
			}
			return uint32(v)
		}
	}
	r.fail()
	return 0
}

// Len reads a sequence's length and checks that many elements of at least
// minSize bytes each can still follow, and that it is at most max.
func (r *Reader) Len(minSize, max int) int {
	n := int(r.ULEB128())
	if r.err != nil {
		return 0
	}
	if n > max || minSize > 0 && n > r.Left()/minSize {
		r.fail()
		return 0
	}
	return n
}

// Bytes reads a length-prefixed byte string of at most max bytes.
func (r *Reader) Bytes(max int) []byte { return r.Fixed(r.Len(1, max)) }

// Writer appends BCS values.
type Writer struct{ B []byte }

// Fixed appends b as it is.
func (w *Writer) Fixed(b []byte) { w.B = append(w.B, b...) }

// U8 appends one byte.
func (w *Writer) U8(v uint8) { w.B = append(w.B, v) }

// U16 appends a little-endian u16.
func (w *Writer) U16(v uint16) { w.B = binary.LittleEndian.AppendUint16(w.B, v) }

// U32 appends a little-endian u32.
func (w *Writer) U32(v uint32) { w.B = binary.LittleEndian.AppendUint32(w.B, v) }

// U64 appends a little-endian u64.
func (w *Writer) U64(v uint64) { w.B = binary.LittleEndian.AppendUint64(w.B, v) }

// Bool appends 0 or 1.
func (w *Writer) Bool(v bool) {
	if v {
		w.U8(1)
	} else {
		w.U8(0)
	}
}

// ULEB128 appends v in its shortest form.
func (w *Writer) ULEB128(v uint32) {
	for v >= 0x80 {
		w.B = append(w.B, byte(v)|0x80)
		v >>= 7
	}
	w.B = append(w.B, byte(v))
}

// Bytes appends a length-prefixed byte string.
func (w *Writer) Bytes(b []byte) {
	w.ULEB128(uint32(len(b)))
	w.Fixed(b)
}

// Bytes0 is the bytes read since offset start (aliasing the input).
func (r *Reader) Bytes0(start int) []byte {
	if r.err != nil || start < 0 || start > r.off {
		return nil
	}
	return r.b[start:r.off]
}
