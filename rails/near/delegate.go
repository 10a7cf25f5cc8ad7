package near

import (
	"crypto/sha256"
	"encoding/binary"
	"math/big"
	"strings"

	"github.com/termsgate/termsgate/internal/base58"
)

// NEP-366 delegate actions and NEP-461's signed-message prefix
// (docs/near.md, "The delegate action").

// NEP461Delegate is the prefix of a delegate action's signed message:
// 2^30 + 366, little-endian before the action's borsh bytes.
const NEP461Delegate = 1<<30 + 366

// FTTransferGas is the gas attached to ft_transfer: 30 Tgas.
const FTTransferGas = 30_000_000_000_000

// Bounds of a delegate action.
const (
	MaxAccountID = 64
	MaxMethod    = 256
	MaxArgs      = 4096
	MaxActions   = 16
)

// Key types.
const (
	KeyEd25519   = 0
	KeySecp256k1 = 1
)

// PublicKey is a NEAR public key: its type and 32 (Ed25519) or 64
// (secp256k1) bytes.
type PublicKey struct {
	Type uint8
	Data []byte
}

// ParsePublicKey reads "ed25519:<base58 of 32 bytes>" or
// "secp256k1:<base58 of 64 bytes>".
func ParsePublicKey(s string) (PublicKey, bool) {
	name, data, ok := strings.Cut(s, ":")
	if !ok || len(data) > 100 {
		return PublicKey{}, false
	}
	b, ok := base58.Bitcoin.Decode(data)
	switch {
	case !ok:
		return PublicKey{}, false
	case name == "ed25519" && len(b) == 32:
		return PublicKey{Type: KeyEd25519, Data: b}, true
	case name == "secp256k1" && len(b) == 64:
		return PublicKey{Type: KeySecp256k1, Data: b}, true
	}
	return PublicKey{}, false
}

func (k PublicKey) String() string {
	name := "ed25519:"
	if k.Type == KeySecp256k1 {
		name = "secp256k1:"
	}
	return name + base58.Bitcoin.Encode(k.Data)
}

// Action is one action of a delegate action; only FunctionCall (kind 2)
// is read in full, other kinds are refused by the reader.
type Action struct {
	Kind    uint8
	Method  string
	Args    []byte
	Gas     uint64
	Deposit *big.Int // u128
}

// DelegateAction is NEP-366's DelegateAction.
type DelegateAction struct {
	SenderID, ReceiverID string
	Actions              []Action
	Nonce                uint64
	MaxBlockHeight       uint64
	PublicKey            PublicKey
}

// ErrNotFunctionCall is an action of a kind the reader does not read.
type actionKindError struct{}

func (actionKindError) Error() string { return "near: an action that is not a function call" }

func readAccount(r *reader) string {
	b := r.bytes(MaxAccountID)
	if r.err == nil && !IsAccountID(string(b)) {
		r.err = errMalformed
	}
	return string(b)
}

func readU128(r *reader) *big.Int {
	b := r.fixed(16)
	if b == nil {
		return new(big.Int)
	}
	be := make([]byte, 16)
	for i := range be {
		be[i] = b[15-i]
	}
	return new(big.Int).SetBytes(be)
}

func readKey(r *reader) PublicKey {
	k := PublicKey{Type: r.u8()}
	switch k.Type {
	case KeyEd25519:
		k.Data = append([]byte(nil), r.fixed(32)...)
	case KeySecp256k1:
		k.Data = append([]byte(nil), r.fixed(64)...)
	default:
		r.err = errMalformed
	}
	return k
}

func readDelegate(r *reader) (*DelegateAction, error) {
	d := &DelegateAction{SenderID: readAccount(r), ReceiverID: readAccount(r)}
	n := r.u32()
	if r.err == nil && n > MaxActions {
		r.err = errMalformed
	}
	for i := uint32(0); i < n && r.err == nil; i++ {
		a := Action{Kind: r.u8()}
		if r.err == nil && a.Kind != 2 {
			return nil, actionKindError{}
		}
		m := r.bytes(MaxMethod)
		a.Method = string(m)
		a.Args = append([]byte(nil), r.bytes(MaxArgs)...)
		a.Gas = r.u64()
		a.Deposit = readU128(r)
		d.Actions = append(d.Actions, a)
	}
	d.Nonce = r.u64()
	d.MaxBlockHeight = r.u64()
	d.PublicKey = readKey(r)
	return d, r.err
}

// Encode writes the delegate action in borsh.
func (d *DelegateAction) Encode() []byte {
	w := &writer{b: make([]byte, 0, 320)}
	w.bytes([]byte(d.SenderID))
	w.bytes([]byte(d.ReceiverID))
	w.u32(uint32(len(d.Actions)))
	for _, a := range d.Actions {
		w.u8(a.Kind)
		w.bytes([]byte(a.Method))
		w.bytes(a.Args)
		w.u64(a.Gas)
		var le [16]byte
		be := a.Deposit.FillBytes(make([]byte, 16))
		for i := range le {
			le[i] = be[15-i]
		}
		w.fixed(le[:])
	}
	w.u64(d.Nonce)
	w.u64(d.MaxBlockHeight)
	w.u8(d.PublicKey.Type)
	w.fixed(d.PublicKey.Data)
	return w.b
}

// SigningHash is what the key signs: SHA-256 of the NEP-461 prefix and the
// action's borsh bytes.
func (d *DelegateAction) SigningHash() [32]byte { return signingHashOf(d.Encode()) }

// signingHashOf is SigningHash over an action's borsh bytes already written.
func signingHashOf(action []byte) [32]byte {
	var p [4]byte
	binary.LittleEndian.PutUint32(p[:], NEP461Delegate)
	h := sha256.New()
	h.Write(p[:])
	h.Write(action)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// signedBytes is Signed.Encode over the action's borsh bytes already
// written, which it does not change.
func signedBytes(action []byte, sigType uint8, sig []byte) []byte {
	w := &writer{b: make([]byte, 0, len(action)+1+len(sig))}
	w.fixed(action)
	w.u8(sigType)
	w.fixed(sig)
	return w.b
}

// Signed is a SignedDelegateAction: the action and its signature.
type Signed struct {
	Action  *DelegateAction
	SigType uint8
	Sig     []byte
}

// Encode writes the signed delegate action in borsh.
func (s *Signed) Encode() []byte {
	w := &writer{b: s.Action.Encode()}
	w.u8(s.SigType)
	w.fixed(s.Sig)
	return w.b
}

// DecodeSigned reads exactly one canonical SignedDelegateAction: every
// byte read, and the bytes what Encode writes back.
func DecodeSigned(b []byte) (*Signed, error) {
	r := &reader{b: b}
	d, err := readDelegate(r)
	if err != nil {
		return nil, err
	}
	s := &Signed{Action: d, SigType: r.u8()}
	switch s.SigType {
	case KeyEd25519:
		s.Sig = append([]byte(nil), r.fixed(64)...)
	case KeySecp256k1:
		s.Sig = append([]byte(nil), r.fixed(65)...)
	default:
		r.err = errMalformed
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, errMalformed
	}
	if string(s.Encode()) != string(b) {
		return nil, errMalformed
	}
	return s, nil
}

// IsAccountID reports a NEAR account id: 2 to 64 of a–z, 0–9 and . _ -,
// as the reference gates read them.
func IsAccountID(s string) bool {
	if len(s) < 2 || len(s) > MaxAccountID {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
