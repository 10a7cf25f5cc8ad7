package tvm

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"strconv"
	"strings"
)

// Bounds of a BoC this rail reads: seller and chain input never grows past
// them (the reference gates use the same).
const (
	MaxBocBytes = 8192
	MaxCells    = 512
	MaxDepth    = 32
)

// Refusal codes of the BoC reader.
const (
	CodeBocMalformed = "tvm/boc-malformed"
	CodeBocTooLarge  = "tvm/boc-too-large"
)

var (
	errBocMalformed = errors.New(CodeBocMalformed)
	errBocTooLarge  = errors.New(CodeBocTooLarge)
)

const bocMagic = 0xb5ee9c72

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// EncodeBoC writes root as a BoC with one root, no index and a CRC32C, as
// @ton/core's toBoc({idx: false, crc32: true}) and pytoniq do: cells in
// topological order, parents first, each distinct cell once.
func EncodeBoC(root *Cell) []byte {
	order, index := topo(root)
	size := 1
	for len(order) >= 1<<(8*size) {
		size++
	}
	total := 0
	for _, c := range order {
		total += 2 + (c.bits+7)/8 + size*len(c.refs)
	}
	off := 1
	for total >= 1<<(8*off) {
		off++
	}
	out := make([]byte, 0, 6+3*size+off+total+4)
	out = binary.BigEndian.AppendUint32(out, bocMagic)
	out = append(out, 0x40|byte(size), byte(off))
	out = appendN(out, uint64(len(order)), size)
	out = appendN(out, 1, size)
	out = appendN(out, 0, size)
	out = appendN(out, uint64(total), off)
	out = appendN(out, 0, size)
	for _, c := range order {
		d1, d2 := c.descriptors()
		out = append(out, d1, d2)
		out = append(out, c.padded()...)
		for _, r := range c.refs {
			out = appendN(out, uint64(index[r.hash]), size)
		}
	}
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
}

// EncodeBoC64 is EncodeBoC in standard padded base64.
func EncodeBoC64(root *Cell) string { return base64.StdEncoding.EncodeToString(EncodeBoC(root)) }

func appendN(out []byte, v uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		out = append(out, byte(v>>(8*uint(i))))
	}
	return out
}

// topo orders the distinct cells under root by reverse post-order, so that
// every reference points to a later cell.
func topo(root *Cell) ([]*Cell, map[[32]byte]int) {
	seen := map[[32]byte]bool{}
	var post []*Cell
	var visit func(c *Cell)
	visit = func(c *Cell) {
		if seen[c.hash] {
			return
		}
		seen[c.hash] = true
		// the last reference first, so that reversed, siblings keep their order
		for i := len(c.refs) - 1; i >= 0; i-- {
			visit(c.refs[i])
		}
		post = append(post, c)
	}
	visit(root)
	order := make([]*Cell, len(post))
	index := make(map[[32]byte]int, len(post))
	for i, c := range post {
		order[len(post)-1-i] = c
		index[c.hash] = len(post) - 1 - i
	}
	return order, index
}

// DecodeBoC64 reads a standard base64 BoC (padded, as the x402 TON scheme
// writes it).
func DecodeBoC64(s string) (*Cell, error) {
	if s == "" || len(s) > (MaxBocBytes+2)/3*4+4 || len(s)%4 != 0 || strings.ContainsAny(s, "\r\n") {
		if len(s) > (MaxBocBytes+2)/3*4+4 {
			return nil, errBocTooLarge
		}
		return nil, errBocMalformed
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, errBocMalformed
	}
	return DecodeBoC(b)
}

// DecodeBoCHex reads a BoC in hex (TON Center's form of a body in these
// fixtures).
func DecodeBoCHex(s string) (*Cell, error) {
	if len(s) > 2*MaxBocBytes {
		return nil, errBocTooLarge
	}
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		return nil, errBocMalformed
	}
	return DecodeBoC(b)
}

// DecodeBoC reads a BoC of exactly one root with no absent cells: at most
// MaxBocBytes bytes, MaxCells cells and MaxDepth depth; ordinary cells only,
// each reference pointing to a later cell, padding as TVM writes it, the
// CRC32C checked when flagged, nothing after it.
func DecodeBoC(b []byte) (*Cell, error) {
	if len(b) > MaxBocBytes {
		return nil, errBocTooLarge
	}
	r := reader{b: b}
	if magic, ok := r.n(4); !ok || magic != bocMagic {
		return nil, errBocMalformed
	}
	flags, ok := r.n(1)
	if !ok {
		return nil, errBocMalformed
	}
	hasIdx, hasCRC, size := flags&0x80 != 0, flags&0x40 != 0, int(flags&7)
	if flags&0x18 != 0 || size < 1 || size > 4 {
		return nil, errBocMalformed
	}
	off64, ok := r.n(1)
	off := int(off64)
	if !ok || off < 1 || off > 8 {
		return nil, errBocMalformed
	}
	cells, ok1 := r.n(size)
	roots, ok2 := r.n(size)
	absent, ok3 := r.n(size)
	total, ok4 := r.n(off)
	if !ok1 || !ok2 || !ok3 || !ok4 || roots != 1 || absent != 0 || cells < 1 {
		return nil, errBocMalformed
	}
	if cells > MaxCells {
		return nil, errBocTooLarge
	}
	if rootIdx, ok := r.n(size); !ok || rootIdx != 0 {
		return nil, errBocMalformed
	}
	if hasIdx {
		if !r.skip(int(cells) * off) {
			return nil, errBocMalformed
		}
	}
	start := r.pos
	n := int(cells)
	type raw struct {
		data []byte
		bits int
		refs []int
	}
	raws := make([]raw, n)
	for i := 0; i < n; i++ {
		d1, ok1 := r.n(1)
		d2, ok2 := r.n(1)
		if !ok1 || !ok2 {
			return nil, errBocMalformed
		}
		// exotic (8), level (32, 64) and the stored-hashes flag (16) are refused.
		refs := int(d1 & 7)
		if d1&0xf8 != 0 || refs > MaxCellRefs {
			return nil, errBocMalformed
		}
		nbytes := int(d2+1) / 2
		data, ok := r.bytes(nbytes)
		if !ok {
			return nil, errBocMalformed
		}
		bits := 8 * nbytes
		if d2%2 == 1 {
			last := data[nbytes-1]
			if last == 0 {
				return nil, errBocMalformed
			}
			tz := 0
			for last&(1<<tz) == 0 {
				tz++
			}
			bits = 8*nbytes - tz - 1
		}
		if bits > MaxCellBits {
			return nil, errBocMalformed
		}
		raws[i] = raw{data: data, bits: bits}
		for j := 0; j < refs; j++ {
			idx, ok := r.n(size)
			if !ok || idx <= uint64(i) || idx >= cells {
				return nil, errBocMalformed
			}
			raws[i].refs = append(raws[i].refs, int(idx))
		}
	}
	if uint64(r.pos-start) != total {
		return nil, errBocMalformed
	}
	if hasCRC {
		body := r.pos
		sum, ok := r.bytes(4)
		if !ok || binary.LittleEndian.Uint32(sum) != crc32.Checksum(b[:body], castagnoli) {
			return nil, errBocMalformed
		}
	}
	if r.pos != len(b) {
		return nil, errBocMalformed
	}
	built := make([]*Cell, n)
	for i := n - 1; i >= 0; i-- {
		c := &Cell{bits: raws[i].bits, data: append([]byte(nil), raws[i].data...)}
		if c.bits%8 != 0 {
			c.data[len(c.data)-1] &= ^byte(0xff >> (c.bits % 8))
		}
		for _, j := range raws[i].refs {
			c.refs = append(c.refs, built[j])
		}
		c.seal()
		if c.depth > MaxDepth {
			return nil, errBocTooLarge
		}
		built[i] = c
	}
	return built[0], nil
}

type reader struct {
	b   []byte
	pos int
}

func (r *reader) n(k int) (uint64, bool) {
	p, ok := r.bytes(k)
	if !ok {
		return 0, false
	}
	var v uint64
	for _, x := range p {
		v = v<<8 | uint64(x)
	}
	return v, true
}

func (r *reader) bytes(k int) ([]byte, bool) {
	if k < 0 || len(r.b)-r.pos < k {
		return nil, false
	}
	p := r.b[r.pos : r.pos+k]
	r.pos += k
	return p, true
}

func (r *reader) skip(k int) bool { _, ok := r.bytes(k); return ok }

// Address is a raw TON address: a workchain and a 256-bit account id.
type Address struct {
	Workchain int32
	Hash      [32]byte
}

// ParseAddress reads the raw form "<workchain>:<64 hex digits>" (workchain
// -128 to 127, as addr_std stores it); user-friendly base64 forms are
// refused, so that an option names one account in one spelling.
func ParseAddress(s string) (*Address, bool) {
	wc, h, ok := strings.Cut(s, ":")
	if !ok || len(h) != 64 || wc == "" || len(wc) > 4 {
		return nil, false
	}
	digits := strings.TrimPrefix(wc, "-")
	if digits == "" || len(digits) > 1 && digits[0] == '0' {
		return nil, false
	}
	w, err := strconv.Atoi(wc)
	if err != nil || w < -128 || w > 127 {
		return nil, false
	}
	a := &Address{Workchain: int32(w)}
	if _, err := hex.Decode(a.Hash[:], []byte(h)); err != nil {
		return nil, false
	}
	return a, true
}

// String is the raw form with lowercase hex.
func (a Address) String() string {
	return strconv.Itoa(int(a.Workchain)) + ":" + hex.EncodeToString(a.Hash[:])
}
