package xrpl

import (
	"encoding/binary"
)

// Hash prefixes (docs/xrpl.md "Signing and hashes").
var (
	prefixTxID   = []byte("TXN\x00")
	prefixSign   = []byte("STX\x00")
	prefixClaim  = []byte("CLM\x00")
	spaceChannel = []byte{0x00, 0x78}
)

// TxHash is a signed transaction's id: SHA512Half("TXN\0" ‖ blob), as 64
// uppercase hex digits.
func TxHash(blob []byte) string {
	h := SHA512Half(prefixTxID, blob)
	return upperHex(h[:])
}

// SigningData is what a single signer signs: "STX\0" and every field but
// TxnSignature.
func SigningData(fs Fields) []byte {
	b := append([]byte(nil), prefixSign...)
	for _, f := range fs {
		if f.ID != FieldTxnSignature {
			b = appendField(b, f)
		}
	}
	return b
}

// SignFields sets SigningPubKey to key's and TxnSignature to its signature
// over the fields, and returns the signed blob.
func SignFields(fs Fields, key *Key) []byte {
	fs = set(fs, Field{ID: FieldSigningPubKey, Value: key.PublicKey()})
	fs = remove(fs, FieldTxnSignature)
	sig := key.Sign(SigningData(fs))
	fs = set(fs, Field{ID: FieldTxnSignature, Value: sig})
	return Encode(fs)
}

// set puts f in place of a field with its id, or inserts it in order.
func set(fs Fields, f Field) Fields {
	out := make(Fields, 0, len(fs)+1)
	placed := false
	for _, g := range fs {
		switch {
		case g.ID == f.ID:
			continue
		case !placed && g.ID.ordinal() > f.ID.ordinal():
			out = append(out, f)
			placed = true
		}
		out = append(out, g)
	}
	if !placed {
		out = append(out, f)
	}
	return out
}

func remove(fs Fields, id FieldID) Fields {
	out := make(Fields, 0, len(fs))
	for _, g := range fs {
		if g.ID != id {
			out = append(out, g)
		}
	}
	return out
}

// ChannelID is the id of the payment channel account opens to destination
// with the create's sequence: SHA512Half(0x0078 ‖ account ‖ destination ‖
// sequence).
func ChannelID(account, destination AccountID, sequence uint32) [32]byte {
	return SHA512Half(spaceChannel, account[:], destination[:], binary.BigEndian.AppendUint32(nil, sequence))
}

// ClaimBytes is what a channel claim signs: "CLM\0" ‖ channel ‖ drops (44
// bytes).
func ClaimBytes(channel [32]byte, drops uint64) []byte {
	b := make([]byte, 0, 44)
	b = append(b, prefixClaim...)
	b = append(b, channel[:]...)
	return binary.BigEndian.AppendUint64(b, drops)
}

// ClaimLen is the length of claim bytes.
const ClaimLen = 44

// ReadClaim reads claim bytes back; ok is false unless they are exactly
// "CLM\0", a channel and drops.
func ReadClaim(b []byte) (channel [32]byte, drops uint64, ok bool) {
	if len(b) != ClaimLen || string(b[:4]) != string(prefixClaim) {
		return channel, 0, false
	}
	copy(channel[:], b[4:36])
	return channel, binary.BigEndian.Uint64(b[36:]), true
}

// SignClaim signs claim bytes with the channel's key: Ed25519 over the bytes,
// secp256k1 over their SHA512Half (Key.Sign does both).
func SignClaim(claim []byte, key *Key) []byte { return key.Sign(claim) }

// The session's request kinds: the channel's opening with its first claim,
// and a claim alone.
const (
	KindSessionOpen = "xrpl-session-open"
	KindClaim       = "xrpl-claim"
)

// ChannelOf is the id of the channel a PaymentChannelCreate's fields open:
// from its Account, Destination and Sequence (its TicketSequence when
// Sequence is 0).
func ChannelOf(fs Fields) ([32]byte, bool) {
	a, ok1 := fs.Get(FieldAccount)
	d, ok2 := fs.Get(FieldDestination)
	s, ok3 := fs.Get(FieldSequence)
	if !ok1 || !ok2 || !ok3 || len(a.Value) != 20 || len(d.Value) != 20 {
		return [32]byte{}, false
	}
	seq := binary.BigEndian.Uint32(s.Value)
	if seq == 0 {
		t, ok := fs.Get(FieldTicketSequence)
		if !ok {
			return [32]byte{}, false
		}
		seq = binary.BigEndian.Uint32(t.Value)
	}
	return ChannelID(AccountID(a.Value), AccountID(d.Value), seq), true
}
