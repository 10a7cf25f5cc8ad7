// Package tvm is TON's rail: ordinary cells and bags of cells (BoC), the W5
// wallet's signed request, TEP-74 Jetton transfers, and the x402/exact/tvm
// pairing (exact.go) that carries H as a text comment in the transfer's
// forward payload.
package tvm

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math/big"
)

// Cell bounds: TVM's own (1023 data bits, 4 references).
const (
	MaxCellBits = 1023
	MaxCellRefs = 4
)

// Cell is an ordinary TON cell. Exotic cells are never built or accepted:
// nothing this rail signs or reads holds one.
type Cell struct {
	data  []byte // bits, most significant first, the last byte zero-padded
	bits  int
	refs  []*Cell
	hash  [32]byte
	depth uint16
}

// Bits is the cell's data length in bits.
func (c *Cell) Bits() int { return c.bits }

// Refs is the cell's references.
func (c *Cell) Refs() []*Cell { return c.refs }

// Hash is the cell's representation hash.
func (c *Cell) Hash() [32]byte { return c.hash }

// Depth is the cell's depth: 0 without references.
func (c *Cell) Depth() int { return int(c.depth) }

// Equal reports whether c and d are the same cell (same hash).
func (c *Cell) Equal(d *Cell) bool { return c != nil && d != nil && c.hash == d.hash }

// descriptors are d1 (reference count; ordinary, level 0) and d2 (data
// length in half-bytes, rounded up).
func (c *Cell) descriptors() (byte, byte) {
	return byte(len(c.refs)), byte(c.bits/8 + (c.bits+7)/8)
}

// padded is the data with the completion tag: when bits is not a multiple of
// 8, a 1 bit follows the data, then zeros.
func (c *Cell) padded() []byte {
	n := (c.bits + 7) / 8
	out := make([]byte, n)
	copy(out, c.data[:n])
	if c.bits%8 != 0 {
		out[n-1] |= 0x80 >> (c.bits % 8)
	}
	return out
}

// seal computes depth and hash; refs must be sealed.
func (c *Cell) seal() {
	d1, d2 := c.descriptors()
	// d1, d2, the padded data and 34 bytes a reference: at most 2+128+4*34 bytes
	var buf [2 + 128 + MaxCellRefs*34]byte
	w := append(buf[:0], d1, d2)
	n := (c.bits + 7) / 8
	w = append(w, c.data[:n]...)
	if c.bits%8 != 0 {
		w[len(w)-1] |= 0x80 >> (c.bits % 8)
	}
	var depth uint16
	for _, r := range c.refs {
		w = binary.BigEndian.AppendUint16(w, r.depth)
		if r.depth+1 > depth {
			depth = r.depth + 1
		}
	}
	for _, r := range c.refs {
		w = append(w, r.hash[:]...)
	}
	c.hash = sha256.Sum256(w)
	c.depth = depth
}

// Builder writes one cell. A write beyond the cell's bounds sets an error
// that End returns; nothing panics.
type Builder struct {
	data [128]byte
	bits int
	refs []*Cell
	err  error
}

var errCellOverflow = errors.New("tvm: cell overflow")

// NewBuilder returns an empty builder.
func NewBuilder() *Builder { return &Builder{} }

// Bit writes one bit.
func (b *Builder) Bit(v bool) *Builder {
	if b.bits >= MaxCellBits {
		b.err = errCellOverflow
		return b
	}
	if v {
		b.data[b.bits/8] |= 0x80 >> (b.bits % 8)
	}
	b.bits++
	return b
}

// Uint writes the low n bits of v (n ≤ 64), most significant first, a byte
// at a time where it can.
func (b *Builder) Uint(v uint64, n int) *Builder {
	if n < 0 || n > 64 || b.bits+n > MaxCellBits {
		b.err = errCellOverflow
		return b
	}
	for n > 0 {
		free := 8 - b.bits%8
		take := min(free, n)
		chunk := (v >> uint(n-take)) & (1<<uint(take) - 1)
		b.data[b.bits/8] |= byte(chunk << uint(free-take))
		b.bits += take
		n -= take
	}
	return b
}

// Bytes writes whole bytes.
func (b *Builder) Bytes(p []byte) *Builder {
	if b.bits%8 == 0 && b.bits+8*len(p) <= MaxCellBits {
		copy(b.data[b.bits/8:], p)
		b.bits += 8 * len(p)
		return b
	}
	for _, x := range p {
		b.Uint(uint64(x), 8)
	}
	return b
}

// Coins writes a VarUInteger 16 (Grams): 4 bits of byte length, then the
// value; v must be below 2^120.
func (b *Builder) Coins(v *big.Int) *Builder {
	if v.Sign() < 0 || v.BitLen() > 120 {
		b.err = errCellOverflow
		return b
	}
	p := v.Bytes()
	b.Uint(uint64(len(p)), 4)
	return b.Bytes(p)
}

// Address writes addr_std (no anycast) for a, or addr_none for nil.
func (b *Builder) Address(a *Address) *Builder {
	if a == nil {
		return b.Uint(0, 2)
	}
	b.Uint(0b100, 3)
	b.Uint(uint64(uint8(a.Workchain)), 8)
	return b.Bytes(a.Hash[:])
}

// Ref adds a reference.
func (b *Builder) Ref(c *Cell) *Builder {
	if len(b.refs) >= MaxCellRefs || c == nil {
		b.err = errCellOverflow
		return b
	}
	b.refs = append(b.refs, c)
	return b
}

// Slice writes a cell's remaining bits and references.
func (b *Builder) Slice(s *Slice) *Builder {
	for s.RemainingBits() > 0 {
		v, _ := s.Bit()
		b.Bit(v)
	}
	for s.RemainingRefs() > 0 {
		r, _ := s.Ref()
		b.Ref(r)
	}
	return b
}

// End seals the cell.
func (b *Builder) End() (*Cell, error) {
	if b.err != nil {
		return nil, b.err
	}
	n := (b.bits + 7) / 8
	c := &Cell{data: append([]byte(nil), b.data[:n]...), bits: b.bits, refs: append([]*Cell(nil), b.refs...)}
	if c.bits%8 != 0 {
		c.data[n-1] &= ^byte(0xff >> (c.bits % 8))
	}
	c.seal()
	return c, nil
}

// Slice reads one cell from its start. A read past its end returns
// errSliceUnderflow.
type Slice struct {
	c      *Cell
	pos    int
	refPos int
}

var errSliceUnderflow = errors.New("tvm: cell underflow")

// Parse returns a slice over c.
func (c *Cell) Parse() *Slice { return &Slice{c: c} }

// RemainingBits is the number of unread bits.
func (s *Slice) RemainingBits() int { return s.c.bits - s.pos }

// RemainingRefs is the number of unread references.
func (s *Slice) RemainingRefs() int { return len(s.c.refs) - s.refPos }

// Bit reads one bit.
func (s *Slice) Bit() (bool, error) {
	if s.pos >= s.c.bits {
		return false, errSliceUnderflow
	}
	v := s.c.data[s.pos/8]&(0x80>>(s.pos%8)) != 0
	s.pos++
	return v, nil
}

// Uint reads n bits (n ≤ 64) as an unsigned integer.
func (s *Slice) Uint(n int) (uint64, error) {
	if n < 0 || n > 64 || s.RemainingBits() < n {
		return 0, errSliceUnderflow
	}
	var v uint64
	for n > 0 {
		avail := 8 - s.pos%8
		take := min(avail, n)
		chunk := uint64(s.c.data[s.pos/8]>>uint(avail-take)) & (1<<uint(take) - 1)
		v = v<<uint(take) | chunk
		s.pos += take
		n -= take
	}
	return v, nil
}

// Bytes reads n whole bytes.
func (s *Slice) Bytes(n int) ([]byte, error) {
	if n < 0 || s.RemainingBits() < 8*n {
		return nil, errSliceUnderflow
	}
	out := make([]byte, n)
	if s.pos%8 == 0 {
		copy(out, s.c.data[s.pos/8:])
		s.pos += 8 * n
		return out, nil
	}
	for i := range out {
		v, _ := s.Uint(8)
		out[i] = byte(v)
	}
	return out, nil
}

// Coins reads a VarUInteger 16.
func (s *Slice) Coins() (*big.Int, error) {
	n, err := s.Uint(4)
	if err != nil {
		return nil, err
	}
	p, err := s.Bytes(int(n))
	if err != nil {
		return nil, err
	}
	return new(big.Int).SetBytes(p), nil
}

var errAddress = errors.New("tvm: address not addr_std or addr_none")

// MaybeAddress reads addr_none (nil) or addr_std without anycast; the
// external and variable forms are refused.
func (s *Slice) MaybeAddress() (*Address, error) {
	tag, err := s.Uint(2)
	if err != nil {
		return nil, err
	}
	switch tag {
	case 0:
		return nil, nil
	case 2:
	default:
		return nil, errAddress
	}
	anycast, err := s.Bit()
	if err != nil {
		return nil, err
	}
	if anycast {
		return nil, errAddress
	}
	wc, err := s.Uint(8)
	if err != nil {
		return nil, err
	}
	h, err := s.Bytes(32)
	if err != nil {
		return nil, err
	}
	a := &Address{Workchain: int32(int8(uint8(wc)))}
	copy(a.Hash[:], h)
	return a, nil
}

// Address reads addr_std; addr_none is refused.
func (s *Slice) Address() (*Address, error) {
	a, err := s.MaybeAddress()
	if err == nil && a == nil {
		err = errAddress
	}
	return a, err
}

// Ref reads the next reference.
func (s *Slice) Ref() (*Cell, error) {
	if s.refPos >= len(s.c.refs) {
		return nil, errSliceUnderflow
	}
	r := s.c.refs[s.refPos]
	s.refPos++
	return r, nil
}

// MaybeRef reads Maybe ^Cell.
func (s *Slice) MaybeRef() (*Cell, error) {
	has, err := s.Bit()
	if err != nil || !has {
		return nil, err
	}
	return s.Ref()
}
