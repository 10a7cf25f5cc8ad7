package near

import (
	"encoding/binary"
	"errors"
)

// A small strict borsh reader and writer of the few types a delegate
// action holds: u8, u32, u64, u128, strings and byte vectors with u32
// lengths checked against what is left.

var errMalformed = errors.New("near: malformed borsh")

type reader struct {
	b   []byte
	err error
}

func (r *reader) fixed(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = errMalformed
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) u8() uint8 {
	b := r.fixed(1)
	if b == nil {
		return 0
	}
	return b[0]
}

func (r *reader) u32() uint32 {
	b := r.fixed(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (r *reader) u64() uint64 {
	b := r.fixed(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// bytes reads a u32-length byte vector of at most max bytes.
func (r *reader) bytes(max int) []byte {
	n := r.u32()
	if r.err == nil && int64(n) > int64(max) {
		r.err = errMalformed
		return nil
	}
	return r.fixed(int(n))
}

type writer struct{ b []byte }

func (w *writer) u8(v uint8)     { w.b = append(w.b, v) }
func (w *writer) u32(v uint32)   { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *writer) u64(v uint64)   { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *writer) fixed(b []byte) { w.b = append(w.b, b...) }
func (w *writer) bytes(b []byte) {
	w.u32(uint32(len(b)))
	w.fixed(b)
}
