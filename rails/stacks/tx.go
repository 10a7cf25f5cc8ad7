// Package stacks holds what mpp/charge/usdc/stacks needs of Stacks: c32check
// addresses, Clarity values, and a strict codec of the one transaction
// shape the pairing signs (a single-signature contract call to a SIP-010
// transfer) with its txid and SIP-005 signature hash; the pairing is in
// charge_usdc.go.
package stacks

import (
	"crypto/sha512"
	"encoding/binary"
	"errors"
)

// ErrMalformed is a transaction that is not one canonical transaction of
// the shape this codec reads.
var ErrMalformed = errors.New("stacks: not a canonical single-signature contract call")

// Bounds of a transaction.
const (
	MaxTxBytes        = 16 * 1024
	MaxPostConditions = 16
	MaxArgs           = 16
	MaxName           = 128
	MaxClarityDepth   = 8
)

// Principal is a standard principal (version and hash160) or, with Name,
// a contract principal.
type Principal struct {
	Version byte
	Hash    [20]byte
	Name    string
}

// PostCondition is a fungible-token post-condition: the standard principal
// (PrincipalType 2) or the origin (1) sends Code of Amount of the asset.
type PostCondition struct {
	PrincipalType byte
	Principal     Principal
	Asset         Principal // the contract
	AssetName     string
	Code          byte
	Amount        uint64
}

// Tx is a single-signature (P2PKH, compressed key) standard-auth contract
// call.
type Tx struct {
	Version        byte
	ChainID        uint32
	Signer         [20]byte
	Nonce, Fee     uint64
	Signature      [65]byte // recovery id, r, s
	AnchorMode     byte
	PostCondMode   byte
	PostConditions []PostCondition
	Contract       Principal
	Function       string
	Args           [][]byte // Clarity values, each as serialized
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) fixed(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = ErrMalformed
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) u8() byte {
	if b := r.fixed(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) u32() uint32 {
	if b := r.fixed(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if b := r.fixed(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

func (r *reader) name() string {
	n := int(r.u8())
	if n == 0 || n > MaxName {
		r.err = ErrMalformed
	}
	return string(r.fixed(n))
}

func (r *reader) principal(contract bool) Principal {
	p := Principal{Version: r.u8()}
	if p.Version >= 32 && r.err == nil {
		r.err = ErrMalformed // c32 writes a version as one of its 32 characters
	}
	copy(p.Hash[:], r.fixed(20))
	if contract {
		p.Name = r.name()
	}
	return p
}

// DecodeTx reads exactly one transaction of the codec's shape; its bytes
// must be what Encode writes back.
func DecodeTx(b []byte) (*Tx, error) {
	if len(b) > MaxTxBytes {
		return nil, ErrMalformed
	}
	r := &reader{b: b}
	t := &Tx{Version: r.u8(), ChainID: r.u32()}
	if r.u8() != 0x04 || r.u8() != 0x00 { // standard auth, P2PKH
		return nil, ErrMalformed
	}
	copy(t.Signer[:], r.fixed(20))
	t.Nonce, t.Fee = r.u64(), r.u64()
	if r.u8() != 0x00 { // compressed key
		return nil, ErrMalformed
	}
	copy(t.Signature[:], r.fixed(65))
	t.AnchorMode, t.PostCondMode = r.u8(), r.u8()
	n := r.u32()
	if n > MaxPostConditions {
		return nil, ErrMalformed
	}
	for i := uint32(0); i < n && r.err == nil; i++ {
		if r.u8() != 0x01 { // fungible
			return nil, ErrMalformed
		}
		pc := PostCondition{PrincipalType: r.u8()}
		switch pc.PrincipalType {
		case 1:
		case 2:
			pc.Principal = r.principal(false)
		default:
			return nil, ErrMalformed
		}
		pc.Asset = r.principal(true)
		pc.AssetName = r.name()
		pc.Code, pc.Amount = r.u8(), r.u64()
		t.PostConditions = append(t.PostConditions, pc)
	}
	if r.u8() != 0x02 { // contract call
		return nil, ErrMalformed
	}
	t.Contract = r.principal(true)
	t.Function = r.name()
	n = r.u32()
	if n > MaxArgs {
		return nil, ErrMalformed
	}
	for i := uint32(0); i < n && r.err == nil; i++ {
		start := len(r.b)
		skipClarity(r, 0)
		if r.err == nil {
			t.Args = append(t.Args, b[len(b)-start:len(b)-len(r.b)])
		}
	}
	if r.err != nil || len(r.b) != 0 || string(t.Encode()) != string(b) {
		return nil, ErrMalformed
	}
	return t, nil
}

// skipClarity reads one Clarity value of the kinds a SIP-010 transfer
// takes: uint, int, standard and contract principals, buffers, none and
// some.
func skipClarity(r *reader, depth int) {
	if depth > MaxClarityDepth {
		r.err = ErrMalformed
		return
	}
	switch r.u8() {
	case 0x00, 0x01: // int, uint
		r.fixed(16)
	case 0x02: // buffer
		n := r.u32()
		if n > MaxTxBytes {
			r.err = ErrMalformed
			return
		}
		r.fixed(int(n))
	case 0x05:
		r.principal(false)
	case 0x06:
		r.principal(true)
	case 0x09: // none
	case 0x0a: // some
		skipClarity(r, depth+1)
	default:
		r.err = ErrMalformed
	}
}

func (p Principal) write(b []byte) []byte {
	b = append(b, p.Version)
	b = append(b, p.Hash[:]...)
	if p.Name != "" {
		b = append(b, byte(len(p.Name)))
		b = append(b, p.Name...)
	}
	return b
}

// Encode writes the transaction.
func (t *Tx) Encode() []byte {
	b := make([]byte, 0, 330)
	b = append(b, t.Version)
	b = binary.BigEndian.AppendUint32(b, t.ChainID)
	b = append(b, 0x04, 0x00)
	b = append(b, t.Signer[:]...)
	b = binary.BigEndian.AppendUint64(b, t.Nonce)
	b = binary.BigEndian.AppendUint64(b, t.Fee)
	b = append(b, 0x00)
	b = append(b, t.Signature[:]...)
	b = append(b, t.AnchorMode, t.PostCondMode)
	b = binary.BigEndian.AppendUint32(b, uint32(len(t.PostConditions)))
	for _, pc := range t.PostConditions {
		b = append(b, 0x01, pc.PrincipalType)
		if pc.PrincipalType == 2 {
			b = pc.Principal.write(b)
		}
		b = pc.Asset.write(b)
		b = append(b, byte(len(pc.AssetName)))
		b = append(b, pc.AssetName...)
		b = append(b, pc.Code)
		b = binary.BigEndian.AppendUint64(b, pc.Amount)
	}
	b = append(b, 0x02)
	b = t.Contract.write(b)
	b = append(b, byte(len(t.Function)))
	b = append(b, t.Function...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(t.Args)))
	for _, a := range t.Args {
		b = append(b, a...)
	}
	return b
}

// TxID is SHA-512/256 of the transaction's bytes.
func TxID(b []byte) [32]byte { return sha512.Sum512_256(b) }

// SigHash is what the origin's key signs (SIP-005): SHA-512/256 of the
// initial sighash (the txid of the transaction with nonce, fee and
// signature cleared), the auth type 0x04, the fee and the nonce.
func (t *Tx) SigHash() [32]byte {
	c := *t
	c.Nonce, c.Fee, c.Signature = 0, 0, [65]byte{}
	initial := TxID(c.Encode())
	m := make([]byte, 0, 49)
	m = append(m, initial[:]...)
	m = append(m, 0x04)
	m = binary.BigEndian.AppendUint64(m, t.Fee)
	m = binary.BigEndian.AppendUint64(m, t.Nonce)
	return sha512.Sum512_256(m)
}
