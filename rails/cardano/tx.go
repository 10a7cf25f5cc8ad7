package cardano

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"

	"golang.org/x/crypto/blake2b"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/cbor"
)

// A Cardano transaction as the ledger's CDDL writes it since Alonzo
// (https://github.com/IntersectMBO/cardano-ledger, eras/*/impl/cddl-files):
// [body, witness set, is-valid, auxiliary data / null], read by rails/cbor,
// which keeps each item's bytes so that the id (Blake2b-256 of the body)
// and the auxiliary data hash are taken over what was signed.

// MaxTxBytes bounds a transaction, as its bytes: the ledger's own limit is
// 16 KiB, the reference gates read up to 64 KiB.
const MaxTxBytes = 64 << 10

// Marker is the CIP-20 message line before H's 64 lowercase hex digits.
const Marker = "lcp:sha256:0x"

// LabelMessage is CIP-20's metadata label (https://cips.cardano.org/cip/CIP-0020).
const LabelMessage = 674

// tagAlonzoAux is the tag of the Alonzo auxiliary data form, {0: metadata, …}.
const tagAlonzoAux = 259

// Body keys the pairing reads.
const (
	KeyInputs  = 0
	KeyOutputs = 1
	KeyFee     = 2
	KeyTTL     = 3
	KeyAuxHash = 7
)

// Tx is a decoded transaction.
type Tx struct {
	Raw     []byte      // the transaction as sent
	Body    *cbor.Value // the body, its Raw the bytes the id hashes
	Witness *cbor.Value
	Valid   bool
	Aux     *cbor.Value // nil when the fourth item is null
	ID      [32]byte    // Blake2b-256 of the body's bytes
	TTL     uint64
	HasTTL  bool
	AuxHash []byte // the body's key 7, nil when absent
}

// Refusal codes of a transaction's reading.
const (
	CodeTxMalformed     = "cardano/tx-malformed"
	CodeTxTooLarge      = "cardano/tx-too-large"
	CodeAuxMissing      = "cardano/aux-missing"
	CodeAuxHashMismatch = "cardano/aux-hash-mismatch"
	CodeHashNotCarried  = "cardano/hash-not-carried"
	CodeAmbiguous       = "cardano/ambiguous"
)

// DecodeTx reads a transaction's bytes: exactly one strict CBOR item (see
// rails/cbor), an array of four whose body is a map with distinct unsigned
// keys, an unsigned key 3 when present, and a boolean third item.
func DecodeTx(b []byte) (*Tx, error) {
	if len(b) > MaxTxBytes {
		return nil, rails.Refuse(CodeTxTooLarge)
	}
	top, err := cbor.Decode(b)
	if err != nil || top.Major != cbor.Array || len(top.Items) != 4 {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	body, wit, valid, aux := top.Items[0], top.Items[1], top.Items[2], top.Items[3]
	if body.Major != cbor.Map || valid.Major != cbor.Simple || valid.N == 22 {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	t := &Tx{Raw: b, Body: body, Witness: wit, Valid: valid.N == 21, ID: blake2b.Sum256(body.Raw)}
	for i := 0; i < len(body.Items); i += 2 {
		if body.Items[i].Major != cbor.Uint {
			return nil, rails.Refuse(CodeTxMalformed)
		}
	}
	if ttl := body.Get(KeyTTL); ttl != nil {
		if ttl.Major != cbor.Uint {
			return nil, rails.Refuse(CodeTxMalformed)
		}
		t.TTL, t.HasTTL = ttl.N, true
	}
	if !(aux.Major == cbor.Simple && aux.N == 22) {
		t.Aux = aux
	}
	if ah := body.Get(KeyAuxHash); ah != nil {
		if t.Aux != nil && (ah.Major != cbor.Bytes || len(ah.B) != 32) {
			return nil, rails.Refuse(CodeTxMalformed)
		}
		t.AuxHash = ah.B
	}
	return t, nil
}

// IDString is the transaction id as 0x and 64 lowercase hex digits.
func (t *Tx) IDString() string { return "0x" + hex.EncodeToString(t.ID[:]) }

// CheckAux is nil for auxiliary data the body commits to:
// cardano/aux-missing without key 7 or auxiliary data,
// cardano/aux-hash-mismatch when they do not hash to key 7.
func (t *Tx) CheckAux() error {
	if t.Body.Get(KeyAuxHash) == nil || t.Aux == nil {
		return rails.Refuse(CodeAuxMissing)
	}
	if h := blake2b.Sum256(t.Aux.Raw); !bytes.Equal(h[:], t.AuxHash) {
		return rails.Refuse(CodeAuxHashMismatch)
	}
	return nil
}

// CarriedH reads H from the auxiliary data the body commits to (CheckAux),
// then the CIP-20 message (Carrier).
func (t *Tx) CarriedH() (atr.Hash, error) {
	if err := t.CheckAux(); err != nil {
		return atr.Hash{}, err
	}
	return Carrier(t.Aux)
}

// Metadata is the metadata map of the three auxiliary data forms (a map,
// [metadata, scripts], or tag 259 whose map's key 0 is the metadata), or nil.
func Metadata(aux *cbor.Value) *cbor.Value {
	switch {
	case aux == nil:
		return nil
	case aux.Major == cbor.Map:
		return aux
	case aux.Major == cbor.Array:
		if len(aux.Items) > 0 && aux.Items[0].Major == cbor.Map {
			return aux.Items[0]
		}
	case aux.Major == cbor.Tag && aux.N == tagAlonzoAux && aux.Items[0].Major == cbor.Map:
		if m := aux.Items[0].Get(0); m != nil && m.Major == cbor.Map {
			return m
		}
	}
	return nil
}

// Carrier reads H from label 674's "msg" lines: exactly one line that reads
// as the marker once case and a leading byte-order mark are set aside
// (cardano/ambiguous for more), and it must be the marker exactly, followed
// by a line of 64 lowercase hex digits (cardano/hash-not-carried
// otherwise). The message's keys must be distinct once a text key's
// leading byte-order mark is set aside (cardano/ambiguous), so that every
// reader of the message reads the same lines.
func Carrier(aux *cbor.Value) (atr.Hash, error) {
	md := Metadata(aux)
	msg := md.Get(LabelMessage) // the codec refuses a repeated label
	var marker, digits *cbor.Value
	found := 0
	if msg != nil && msg.Major == cbor.Map {
		if !distinctMessageKeys(msg.Items) {
			return atr.Hash{}, rails.Refuse(CodeAmbiguous)
		}
		for i := 0; i < len(msg.Items); i += 2 {
			k, lines := msg.Items[i], msg.Items[i+1]
			if k.Major != cbor.Text || string(k.B) != "msg" || lines.Major != cbor.Array {
				continue
			}
			for j, line := range lines.Items {
				if line.Major != cbor.Text || !markerLike(line.B) {
					continue
				}
				found++
				marker, digits = line, nil
				if j+1 < len(lines.Items) {
					digits = lines.Items[j+1]
				}
			}
		}
	}
	if found > 1 {
		return atr.Hash{}, rails.Refuse(CodeAmbiguous)
	}
	if marker == nil || string(marker.B) != Marker || digits == nil || digits.Major != cbor.Text || !isLowerHex64(digits.B) {
		return atr.Hash{}, rails.Refuse(CodeHashNotCarried)
	}
	var h atr.Hash
	hex.Decode(h[:], digits.B)
	return h, nil
}

const bom = "\ufeff"

// markerLike reports a line that is the marker once a leading byte-order
// mark is set aside and its letters lowercased. Comparing bytes, with
// ASCII's letters folded, is strings.ToLower's equality here: the only
// runes ToLower takes to ASCII are ASCII's own, the Kelvin sign (to k) and
// U+0130 (to i), and the marker has neither k nor i (TestMarkerLikeAsToLower).
func markerLike(line []byte) bool {
	line = bytes.TrimPrefix(line, []byte(bom))
	if len(line) != len(Marker) {
		return false
	}
	for i, c := range line {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != Marker[i] {
			return false
		}
	}
	return true
}

// distinctMessageKeys reports kv's keys (kv is key, value, …) distinct by
// keyOf. A message has a key or two, so they are compared pairwise, without
// building keyOf's strings; past smallKeys, through a set of them.
func distinctMessageKeys(kv []*cbor.Value) bool {
	const smallKeys = 16
	if len(kv) > 2*smallKeys {
		seen := make(map[string]bool, len(kv)/2)
		for i := 0; i < len(kv); i += 2 {
			k := keyOf(kv[i])
			if seen[k] {
				return false
			}
			seen[k] = true
		}
		return true
	}
	for i := 0; i < len(kv); i += 2 {
		for j := i + 2; j < len(kv); j += 2 {
			if sameKey(kv[i], kv[j]) {
				return false
			}
		}
	}
	return true
}

// sameKey is keyOf(a) == keyOf(b).
func sameKey(a, b *cbor.Value) bool {
	if (a.Major == cbor.Text) != (b.Major == cbor.Text) {
		return false
	}
	if a.Major == cbor.Text {
		return bytes.Equal(bytes.TrimPrefix(a.B, []byte(bom)), bytes.TrimPrefix(b.B, []byte(bom)))
	}
	return bytes.Equal(a.Raw, b.Raw)
}

// keyOf is a message key's identity: its encoding, a text key's without a
// leading byte-order mark.
func keyOf(k *cbor.Value) string {
	if k.Major == cbor.Text {
		return "t" + strings.TrimPrefix(string(k.B), bom)
	}
	return "r" + string(k.Raw)
}

func isLowerHex64(b []byte) bool {
	if len(b) != 64 {
		return false
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// AuxiliaryData is the auxiliary data the payer attaches:
// tag 259 {0: {674: {"msg": ["lcp:sha256:0x", <H's 64 lowercase hex>]}}}.
func AuxiliaryData(h atr.Hash) []byte {
	out := make([]byte, 0, 95)
	out = cbor.AppendHead(cbor.AppendHead(out, cbor.Tag, tagAlonzoAux), cbor.Map, 1)
	out = cbor.AppendHead(cbor.AppendHead(cbor.AppendHead(out, cbor.Uint, 0), cbor.Map, 1), cbor.Uint, LabelMessage)
	out = cbor.AppendHead(cbor.AppendText(cbor.AppendHead(out, cbor.Map, 1), "msg"), cbor.Array, 2)
	out = cbor.AppendHead(cbor.AppendText(out, Marker), cbor.Text, 64)
	return hex.AppendEncode(out, h[:])
}

// Input is a transaction input, the output it spends.
type Input struct {
	TxID  [32]byte
	Index uint64
}

// String is the input as txid#index, the form x402's Cardano nonce takes.
func (i Input) String() string { return hex.EncodeToString(i.TxID[:]) + "#" + uitoa(i.Index) }

// Output is a transaction output: its address, its lovelace and its native
// assets (policy id hex + asset name hex → quantity).
type Output struct {
	Address Address
	Coin    uint64
	Assets  map[string]uint64
}

var errShape = errors.New("cardano: the body's inputs or outputs do not read")

// maxEntries bounds the inputs, outputs and assets read.
const maxEntries = 512

// Inputs reads the body's key 0: an array of [id, index], or the same
// under tag 258 (a set).
func (t *Tx) Inputs() ([]Input, error) {
	v := untagSet(t.Body.Get(KeyInputs))
	if v == nil || v.Major != cbor.Array || len(v.Items) > maxEntries {
		return nil, errShape
	}
	out := make([]Input, 0, len(v.Items))
	for _, it := range v.Items {
		if it.Major != cbor.Array || len(it.Items) != 2 || it.Items[0].Major != cbor.Bytes || len(it.Items[0].B) != 32 || it.Items[1].Major != cbor.Uint {
			return nil, errShape
		}
		out = append(out, Input{TxID: [32]byte(it.Items[0].B), Index: it.Items[1].N})
	}
	return out, nil
}

func untagSet(v *cbor.Value) *cbor.Value {
	if v != nil && v.Major == cbor.Tag && v.N == 258 {
		return v.Items[0]
	}
	return v
}

// Outputs reads the body's key 1: legacy [address, value(, datum hash)]
// outputs and Babbage {0: address, 1: value, …} ones; a value is a coin or
// [coin, {policy: {name: quantity}}].
func (t *Tx) Outputs() ([]Output, error) {
	v := t.Body.Get(KeyOutputs)
	if v == nil || v.Major != cbor.Array || len(v.Items) > maxEntries {
		return nil, errShape
	}
	out := make([]Output, 0, len(v.Items))
	for _, it := range v.Items {
		var addr, val *cbor.Value
		switch {
		case it.Major == cbor.Array && len(it.Items) >= 2:
			addr, val = it.Items[0], it.Items[1]
		case it.Major == cbor.Map:
			addr, val = it.Get(0), it.Get(1)
		}
		if addr == nil || val == nil || addr.Major != cbor.Bytes || len(addr.B) == 0 {
			return nil, errShape
		}
		o := Output{Address: Address(addr.B)}
		switch {
		case val.Major == cbor.Uint:
			o.Coin = val.N
		case val.Major == cbor.Array && len(val.Items) == 2 && val.Items[0].Major == cbor.Uint && val.Items[1].Major == cbor.Map:
			o.Coin = val.Items[0].N
			assets, err := readAssets(val.Items[1])
			if err != nil {
				return nil, err
			}
			o.Assets = assets
		default:
			return nil, errShape
		}
		out = append(out, o)
	}
	return out, nil
}

func readAssets(m *cbor.Value) (map[string]uint64, error) {
	out := map[string]uint64{}
	for i := 0; i < len(m.Items); i += 2 {
		pol, names := m.Items[i], m.Items[i+1]
		if pol.Major != cbor.Bytes || len(pol.B) != 28 || names.Major != cbor.Map {
			return nil, errShape
		}
		for j := 0; j < len(names.Items); j += 2 {
			n, q := names.Items[j], names.Items[j+1]
			if n.Major != cbor.Bytes || len(n.B) > 32 || q.Major != cbor.Uint || len(out) >= maxEntries {
				return nil, errShape
			}
			out[hex.EncodeToString(pol.B)+hex.EncodeToString(n.B)] = q.N
		}
	}
	return out, nil
}

// Fee is the body's key 2.
func (t *Tx) Fee() (uint64, bool) {
	f := t.Body.Get(KeyFee)
	if f == nil || f.Major != cbor.Uint {
		return 0, false
	}
	return f.N, true
}

// VKeyWitness is one Ed25519 witness: the verification key and its
// signature of the transaction id.
type VKeyWitness struct {
	VKey, Signature []byte
}

// VKeyWitnesses reads the witness set's key 0 (an array or a tag 258 set);
// witnesses of another shape are left out.
func (t *Tx) VKeyWitnesses() []VKeyWitness {
	if t.Witness == nil || t.Witness.Major != cbor.Map {
		return nil
	}
	v := untagSet(t.Witness.Get(0))
	if v == nil || v.Major != cbor.Array {
		return nil
	}
	var out []VKeyWitness
	for _, w := range v.Items {
		if w.Major == cbor.Array && len(w.Items) == 2 && w.Items[0].Major == cbor.Bytes && len(w.Items[0].B) == 32 &&
			w.Items[1].Major == cbor.Bytes && len(w.Items[1].B) == 64 {
			out = append(out, VKeyWitness{VKey: w.Items[0].B, Signature: w.Items[1].B})
		}
	}
	return out
}

func uitoa(n uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return string(b[i:])
}

func auxHash(aux []byte) [32]byte { return blake2b.Sum256(aux) }

func bodyID(body []byte) [32]byte { return blake2b.Sum256(body) }

// decodeAux reads auxiliary data bytes alone.
func decodeAux(b []byte) (*cbor.Value, error) { return cbor.Decode(b) }

// AuxMatches reports auxiliary data and key 7 both absent, or the data
// hashing to key 7, as the ledger requires.
func (t *Tx) AuxMatches() bool {
	if t.Aux == nil || t.Body.Get(KeyAuxHash) == nil {
		return t.Aux == nil && t.Body.Get(KeyAuxHash) == nil
	}
	h := blake2b.Sum256(t.Aux.Raw)
	return bytes.Equal(h[:], t.AuxHash)
}
