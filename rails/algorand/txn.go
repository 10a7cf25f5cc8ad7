package algorand

import (
	"crypto/sha512"
	"errors"
	"math/bits"
	"unicode/utf8"
)

// Txn is one Algorand transaction of the two types a payment uses: pay
// (ALGO) and axfer (an asset). Zero fields are absent on the wire.
type Txn struct {
	Type        string // "pay" or "axfer"
	Sender      [32]byte
	Fee         uint64
	FirstValid  uint64
	LastValid   uint64
	GenesisID   string
	GenesisHash [32]byte
	Note        []byte
	Group       [32]byte
	Lease       [32]byte
	RekeyTo     [32]byte

	Receiver [32]byte // pay
	Amount   uint64
	CloseTo  [32]byte

	AssetID       uint64 // axfer
	AssetAmount   uint64
	AssetReceiver [32]byte
	AssetCloseTo  [32]byte
	AssetSender   [32]byte // a clawback's source
}

// Limits of what a reader takes.
const (
	MaxNote       = 4096 // bytes: Algorand's own note limit is 1024; a longer one is no transaction
	MaxGenesisID  = 64
	MaxTxnLife    = 1000 // rounds: the protocol's MaxTxnLife
	addlSignBytes = 75   // what a single signature adds to a transaction's size, for the fee estimate
)

func addr(b [32]byte) Value {
	if b == [32]byte{} {
		return Value{Kind: KindBin}
	}
	return Bin(append([]byte(nil), b[:]...))
}

// Value is the transaction as its canonical msgpack map.
func (t *Txn) Value() Value {
	e := []Entry{
		{"type", Str(t.Type)}, {"snd", addr(t.Sender)}, {"fee", Uint(t.Fee)}, {"fv", Uint(t.FirstValid)},
		{"lv", Uint(t.LastValid)}, {"gen", Str(t.GenesisID)}, {"gh", addr(t.GenesisHash)}, {"note", Bin(t.Note)},
		{"grp", addr(t.Group)}, {"lx", addr(t.Lease)}, {"rekey", addr(t.RekeyTo)},
	}
	switch t.Type {
	case "pay":
		e = append(e, Entry{"rcv", addr(t.Receiver)}, Entry{"amt", Uint(t.Amount)}, Entry{"close", addr(t.CloseTo)})
	case "axfer":
		e = append(e, Entry{"xaid", Uint(t.AssetID)}, Entry{"aamt", Uint(t.AssetAmount)}, Entry{"arcv", addr(t.AssetReceiver)},
			Entry{"aclose", addr(t.AssetCloseTo)}, Entry{"asnd", addr(t.AssetSender)})
	}
	return Map(e...)
}

// Bytes is the transaction's canonical msgpack: Value's encoding, written
// directly in key order (the build hashes a transaction several times).
func (t *Txn) Bytes() []byte { return t.appendTo(make([]byte, 0, 320)) }

func (t *Txn) appendTo(out []byte) []byte {
	type field struct {
		key  string
		kind Kind
		u    uint64
		b    []byte
	}
	var zero [32]byte
	a := func(k string, v *[32]byte) field {
		if *v == zero {
			return field{key: k}
		}
		return field{key: k, kind: KindBin, b: v[:]}
	}
	u := func(k string, v uint64) field { return field{key: k, kind: KindUint, u: v} }
	pay, axfer := t.Type == "pay", t.Type == "axfer"
	var fs [19]field // every key Value writes, in sorted order
	if axfer {
		fs[0], fs[1] = u("aamt", t.AssetAmount), a("aclose", &t.AssetCloseTo)
	}
	if pay {
		fs[2] = u("amt", t.Amount)
	}
	if axfer {
		fs[3], fs[4] = a("arcv", &t.AssetReceiver), a("asnd", &t.AssetSender)
	}
	if pay {
		fs[5] = a("close", &t.CloseTo)
	}
	fs[6], fs[7] = u("fee", t.Fee), u("fv", t.FirstValid)
	fs[8] = field{key: "gen", kind: KindStr, b: []byte(t.GenesisID)}
	fs[9], fs[10], fs[11], fs[12] = a("gh", &t.GenesisHash), a("grp", &t.Group), u("lv", t.LastValid), a("lx", &t.Lease)
	fs[13] = field{key: "note", kind: KindBin, b: t.Note}
	if pay {
		fs[14] = a("rcv", &t.Receiver)
	}
	fs[15], fs[16] = a("rekey", &t.RekeyTo), a("snd", &t.Sender)
	fs[17] = field{key: "type", kind: KindStr, b: []byte(t.Type)}
	if axfer {
		fs[18] = u("xaid", t.AssetID)
	}
	n := 0
	for _, f := range fs {
		if f.kind == KindUint && f.u != 0 || f.kind != KindUint && f.kind != 0 && len(f.b) > 0 {
			n++
		}
	}
	out = appendLen(out, n, 0x80, 0xde)
	for _, f := range fs {
		if f.kind == 0 || f.kind == KindUint && f.u == 0 || f.kind != KindUint && len(f.b) == 0 {
			continue
		}
		out = appendStrHeader(out, len(f.key))
		out = append(out, f.key...)
		switch f.kind {
		case KindUint:
			out = appendUint(out, f.u)
		case KindStr:
			out = appendStrHeader(out, len(f.b))
			out = append(out, f.b...)
		default:
			out = appendLen(out, len(f.b), 0, 0xc4)
			out = append(out, f.b...)
		}
	}
	return out
}

// SigningBytes is what the sender signs: "TX" and the canonical msgpack.
func (t *Txn) SigningBytes() []byte { return t.appendTo(append(make([]byte, 0, 320), "TX"...)) }

// RawID is the transaction's id: SHA-512/256 of its signing bytes.
func (t *Txn) RawID() [32]byte { return sha512.Sum512_256(t.SigningBytes()) }

// ID is the id as Algorand writes it: base32, 52 characters.
func (t *Txn) ID() string { id := t.RawID(); return b32.EncodeToString(id[:]) }

// GroupID is the id of a group of transactions (without their grp field):
// SHA-512/256 of "TG" and the msgpack of {txlist: [their raw ids]}.
func GroupID(txns []*Txn) [32]byte {
	// Written directly, as Encode writes it: a map of one key, an array
	// (fixarray to 15 entries, else array16), each id a bin8 of 32 bytes.
	out := make([]byte, 0, 2+1+7+3+len(txns)*34)
	out = append(out, "TG"...)
	out = append(out, 0x81, 0xa6, 't', 'x', 'l', 'i', 's', 't')
	if len(txns) <= 15 {
		out = append(out, 0x90|byte(len(txns)))
	} else {
		out = append(out, 0xdc, byte(len(txns)>>8), byte(len(txns)))
	}
	for _, t := range txns {
		id := t.RawID()
		out = append(append(out, 0xc4, 32), id[:]...)
	}
	return sha512.Sum512_256(out)
}

// SuggestedFee is the fee algod's suggested parameters ask of t: perByte
// times its size once signed, and at least minFee. false when it overflows.
func SuggestedFee(t Txn, perByte, minFee uint64) (uint64, bool) {
	t.Fee = perByte
	hi, fee := bits.Mul64(perByte, uint64(len(t.Bytes())+addlSignBytes))
	if hi != 0 {
		return 0, false
	}
	if fee < minFee {
		fee = minFee
	}
	return fee, true
}

// Errors of ReadTxn.
var (
	ErrTxnShape = errors.New("algorand: not a pay or axfer transaction this reader knows (a field of the wrong kind, or one it does not read)")
)

// txnFields are the fields ReadTxn reads, and the kind each has.
var txnFields = map[string]Kind{
	"type": KindStr, "snd": KindBin, "fee": KindUint, "fv": KindUint, "lv": KindUint, "gen": KindStr, "gh": KindBin,
	"note": KindBin, "grp": KindBin, "lx": KindBin, "rekey": KindBin,
	"rcv": KindBin, "amt": KindUint, "close": KindBin,
	"xaid": KindUint, "aamt": KindUint, "arcv": KindBin, "aclose": KindBin, "asnd": KindBin,
}

var payOnly = map[string]bool{"rcv": true, "amt": true, "close": true}
var axferOnly = map[string]bool{"xaid": true, "aamt": true, "arcv": true, "aclose": true, "asnd": true}

// ReadTxn reads a transaction map: a pay or an axfer, every field of the
// kind and length it has, none it does not read, none of the other type's.
func ReadTxn(v Value) (*Txn, error) {
	if v.Kind != KindMap {
		return nil, ErrTxnShape
	}
	typ, _ := v.Get("type")
	t := &Txn{Type: string(typ.Bytes)}
	if typ.Kind != KindStr || t.Type != "pay" && t.Type != "axfer" {
		return nil, ErrTxnShape
	}
	for _, e := range v.Map {
		k, known := txnFields[e.Key]
		if !known || e.Value.Kind != k || t.Type == "pay" && axferOnly[e.Key] || t.Type == "axfer" && payOnly[e.Key] {
			return nil, ErrTxnShape
		}
		b := e.Value.Bytes
		if k == KindBin && e.Key != "note" && len(b) != 32 {
			return nil, ErrTxnShape
		}
		var a [32]byte
		copy(a[:], b)
		switch e.Key {
		case "snd":
			t.Sender = a
		case "fee":
			t.Fee = e.Value.Uint
		case "fv":
			t.FirstValid = e.Value.Uint
		case "lv":
			t.LastValid = e.Value.Uint
		case "gen":
			if len(b) > MaxGenesisID || !utf8.Valid(b) {
				return nil, ErrTxnShape
			}
			t.GenesisID = string(b)
		case "gh":
			t.GenesisHash = a
		case "note":
			if len(b) > MaxNote {
				return nil, ErrTxnShape
			}
			t.Note = b
		case "grp":
			t.Group = a
		case "lx":
			t.Lease = a
		case "rekey":
			t.RekeyTo = a
		case "rcv":
			t.Receiver = a
		case "amt":
			t.Amount = e.Value.Uint
		case "close":
			t.CloseTo = a
		case "xaid":
			t.AssetID = e.Value.Uint
		case "aamt":
			t.AssetAmount = e.Value.Uint
		case "arcv":
			t.AssetReceiver = a
		case "aclose":
			t.AssetCloseTo = a
		case "asnd":
			t.AssetSender = a
		}
	}
	return t, nil
}

// SignedTxn is one entry of a payment group: a transaction and, when its
// sender signed it, the signature (and the signer, when a rekeyed account's
// key signed).
type SignedTxn struct {
	Txn     Value // the transaction map as read
	Sig     []byte
	AuthKey [32]byte
}

// ErrSignedShape is a signed transaction that is not {sig?, sgnr?, txn}.
var ErrSignedShape = errors.New("algorand: not a signed transaction ({sig, txn}, a 64-byte signature, a transaction map)")

// DecodeSigned reads a signed transaction's msgpack: canonical, within the
// caps, a map of txn and optionally sig (64 bytes) and sgnr (32). Multisig
// and logic signatures are not read.
func DecodeSigned(b []byte) (*SignedTxn, error) {
	v, err := Decode(b)
	if err != nil {
		return nil, err
	}
	if v.Kind != KindMap {
		return nil, ErrSignedShape
	}
	s := &SignedTxn{}
	for _, e := range v.Map {
		switch e.Key {
		case "sig":
			if e.Value.Kind != KindBin || len(e.Value.Bytes) != 64 {
				return nil, ErrSignedShape
			}
			s.Sig = e.Value.Bytes
		case "sgnr":
			if e.Value.Kind != KindBin || len(e.Value.Bytes) != 32 {
				return nil, ErrSignedShape
			}
			copy(s.AuthKey[:], e.Value.Bytes)
		case "txn":
			if e.Value.Kind != KindMap {
				return nil, ErrSignedShape
			}
			s.Txn = e.Value
		default:
			return nil, ErrSignedShape
		}
	}
	if s.Txn.Kind != KindMap {
		return nil, ErrSignedShape
	}
	return s, nil
}

// EncodeSigned writes a signed transaction: {sig, txn}, or {txn} alone
// when sig is nil (an entry another party signs).
func EncodeSigned(t *Txn, sig []byte) []byte {
	out := make([]byte, 0, 400)
	if sig != nil {
		out = append(out, 0x82, 0xa3, 's', 'i', 'g')
		out = appendLen(out, len(sig), 0, 0xc4)
		out = append(out, sig...)
	} else {
		out = append(out, 0x81)
	}
	return t.appendTo(append(out, 0xa3, 't', 'x', 'n'))
}
