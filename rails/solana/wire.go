package solana

import (
	"bytes"
	"encoding/binary"
	"sort"
)

// The wire transaction and the v0 message (docs/solana.md): a compact-u16
// signature count, 64-byte signatures, then the message. Everything a
// seller sends is read strictly: the shortest compact-u16 form only, every
// count within the bytes that remain, every byte consumed.

// MaxWire is the largest wire transaction (the network's packet limit).
const MaxWire = 1232

// Instruction is one compiled instruction: program and accounts as indexes
// into the message's keys.
type Instruction struct {
	Program  uint8
	Accounts []uint8
	Data     []byte
}

// Tx is a decoded wire transaction.
type Tx struct {
	Signatures                       [][]byte // 64 bytes each
	Message                          []byte   // exactly the bytes every signer signed
	Versioned                        bool
	Required                         int // the header's required signatures
	ReadonlySigned, ReadonlyUnsigned int
	Keys                             []Key // the static keys
	Blockhash                        Key
	Instructions                     []Instruction
	LookupTables                     int // v0: how many address lookup tables
}

type cursor struct {
	b  []byte
	at int
	ok bool
}

func (c *cursor) byte() byte {
	if !c.ok || c.at >= len(c.b) {
		c.ok = false
		return 0
	}
	v := c.b[c.at]
	c.at++
	return v
}

func (c *cursor) bytes(n int) []byte {
	if !c.ok || n < 0 || n > len(c.b)-c.at {
		c.ok = false
		return nil
	}
	out := c.b[c.at : c.at+n]
	c.at += n
	return out
}

// compact reads a compact-u16: 7-bit groups, low first, at most 3 bytes,
// no trailing zero group, at most 0xFFFF.
func (c *cursor) compact() int {
	v := 0
	for i := 0; i < 3; i++ {
		b := c.byte()
		if !c.ok {
			return 0
		}
		v |= int(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			if i > 0 && b == 0 || v > 0xffff {
				c.ok = false
				return 0
			}
			return v
		}
	}
	c.ok = false
	return 0
}

func appendCompact(out []byte, v int) []byte {
	for {
		b := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(out, b)
		}
		out = append(out, b|0x80)
	}
}

// DecodeTx reads a legacy or v0 wire transaction of at most MaxWire bytes.
// ok is false for anything else; tooLarge when only the size is wrong.
func DecodeTx(wire []byte) (tx *Tx, ok, tooLarge bool) {
	if len(wire) == 0 {
		return nil, false, false
	}
	if len(wire) > MaxWire {
		return nil, false, true
	}
	c := &cursor{b: wire, ok: true}
	count := c.compact()
	t := &Tx{}
	for i := 0; i < count && c.ok; i++ {
		t.Signatures = append(t.Signatures, c.bytes(64))
	}
	start := c.at
	m, ok := decodeMessage(c)
	if !ok || !c.ok || c.at != len(wire) || count != m.Required {
		return nil, false, false
	}
	m.Signatures, m.Message = t.Signatures, wire[start:]
	return m, true, false
}

// DecodeMessage reads a message alone, every byte consumed.
func DecodeMessage(msg []byte) (*Tx, bool) {
	c := &cursor{b: msg, ok: true}
	m, ok := decodeMessage(c)
	if !ok || !c.ok || c.at != len(msg) {
		return nil, false
	}
	m.Message = msg
	return m, true
}

func decodeMessage(c *cursor) (*Tx, bool) {
	t := &Tx{}
	first := c.byte()
	if first&0x80 != 0 {
		if first != 0x80 {
			return nil, false // only v0 exists
		}
		t.Versioned = true
		t.Required = int(c.byte())
	} else {
		t.Required = int(first)
	}
	t.ReadonlySigned, t.ReadonlyUnsigned = int(c.byte()), int(c.byte())
	nKeys := c.compact()
	if nKeys*32 > len(c.b)-c.at {
		return nil, false
	}
	t.Keys = make([]Key, nKeys)
	for i := range t.Keys {
		copy(t.Keys[i][:], c.bytes(32))
	}
	if !c.ok || t.Required == 0 || t.Required > nKeys || t.ReadonlySigned >= t.Required || t.ReadonlyUnsigned > nKeys-t.Required {
		return nil, false
	}
	copy(t.Blockhash[:], c.bytes(32))
	nIx := c.compact()
	// Each instruction takes at least three bytes: a count past the end is
	// refused before anything is allocated for it.
	if nIx*3 > len(c.b)-c.at {
		return nil, false
	}
	for i := 0; i < nIx && c.ok; i++ {
		var ix Instruction
		ix.Program = c.byte()
		ix.Accounts = c.bytes(c.compact())
		ix.Data = c.bytes(c.compact())
		t.Instructions = append(t.Instructions, ix)
	}
	if t.Versioned {
		n := c.compact()
		for i := 0; i < n && c.ok; i++ {
			c.bytes(32)
			c.bytes(c.compact())
			c.bytes(c.compact())
		}
		t.LookupTables = n
	}
	return t, c.ok
}

// AccountMeta is an instruction's account with its role.
type AccountMeta struct {
	Key              Key
	Signer, Writable bool
}

// Ix is an instruction before compilation.
type Ix struct {
	Program  Key
	Accounts []AccountMeta
	Data     []byte
}

// CompileV0 compiles a v0 message with no lookup tables: the fee payer
// first (a writable signer), then writable signers, read-only signers,
// writable non-signers and read-only non-signers, each class in raw key-byte
// order, roles OR-ed over every instruction (programs are read-only
// non-signers). Solana leaves the order inside a class open; raw byte order
// is deterministic and is what the vectors' reference tool writes.
func CompileV0(feePayer Key, blockhash Key, ixs []Ix) []byte {
	type role struct{ signer, writable bool }
	roles := map[Key]*role{feePayer: {true, true}}
	add := func(k Key, signer, writable bool) {
		r, ok := roles[k]
		if !ok {
			r = &role{}
			roles[k] = r
		}
		r.signer = r.signer || signer
		r.writable = r.writable || writable
	}
	for _, ix := range ixs {
		for _, a := range ix.Accounts {
			add(a.Key, a.Signer, a.Writable)
		}
		add(ix.Program, false, false)
	}
	var classes [4][]Key
	for k, r := range roles {
		if k == feePayer {
			continue
		}
		i := 3
		switch {
		case r.signer && r.writable:
			i = 0
		case r.signer:
			i = 1
		case r.writable:
			i = 2
		}
		classes[i] = append(classes[i], k)
	}
	keys := []Key{feePayer}
	for _, c := range classes {
		sort.Slice(c, func(a, b int) bool { return bytes.Compare(c[a][:], c[b][:]) < 0 })
		keys = append(keys, c...)
	}
	index := make(map[Key]uint8, len(keys))
	for i, k := range keys {
		index[k] = uint8(i)
	}
	required := 1 + len(classes[0]) + len(classes[1])
	out := []byte{0x80, byte(required), byte(len(classes[1])), byte(len(classes[3]))}
	out = appendCompact(out, len(keys))
	for _, k := range keys {
		out = append(out, k[:]...)
	}
	out = append(out, blockhash[:]...)
	out = appendCompact(out, len(ixs))
	for _, ix := range ixs {
		out = append(out, index[ix.Program])
		out = appendCompact(out, len(ix.Accounts))
		for _, a := range ix.Accounts {
			out = append(out, index[a.Key])
		}
		out = appendCompact(out, len(ix.Data))
		out = append(out, ix.Data...)
	}
	return appendCompact(out, 0) // no lookup tables
}

// SignedWire is the wire of msg with signature in signer's slot and zeros
// in every other required slot. ok is false when msg does not decode or
// signer is not one of its required signers.
func SignedWire(msg []byte, signer Key, signature []byte) ([]byte, bool) {
	m, ok := DecodeMessage(msg)
	if !ok || len(signature) != 64 {
		return nil, false
	}
	slot := -1
	for i := 0; i < m.Required; i++ {
		if m.Keys[i] == signer {
			slot = i
			break
		}
	}
	if slot < 0 {
		return nil, false
	}
	out := appendCompact(nil, m.Required)
	at := len(out)
	out = append(out, make([]byte, 64*m.Required)...)
	copy(out[at+64*slot:], signature)
	return append(out, msg...), true
}

// ComputeBudgetIxs are SetComputeUnitLimit and SetComputeUnitPrice.
func ComputeBudgetIxs(limit uint32, price uint64) []Ix {
	l := binary.LittleEndian.AppendUint32([]byte{2}, limit)
	p := binary.LittleEndian.AppendUint64([]byte{3}, price)
	return []Ix{{Program: ComputeBudget, Data: l}, {Program: ComputeBudget, Data: p}}
}

// ProgramOf is the key an instruction's program index names, ok false when
// the index is outside the static keys (a program cannot come from a
// lookup table).
func (t *Tx) ProgramOf(ix Instruction) (Key, bool) {
	if int(ix.Program) >= len(t.Keys) {
		return Key{}, false
	}
	return t.Keys[ix.Program], true
}
