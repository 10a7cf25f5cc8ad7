package ccd

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// The bare form's binary: the V1 transaction as @concordium/web-sdk's
// AccountTransactionV1.serialize writes it (the sender's signatures, the
// sponsor's or a zero byte, the header, the payload: the bytes whose
// SHA-256 is the transaction hash), or as serializeBlockItem writes it for
// a node, the same after the block item kind 3
// (https://github.com/Concordium/concordium-node-sdk-js,
// packages/sdk/src/transactions/AccountTransactionV1.ts). The SDK gives
// bytes; inspect takes them as hex.

// blockItemV1 is BlockItemKind.AccountTransactionV1Kind.
const blockItemV1 = 3

// maxSafe is JSON's largest exact integer: the JSON form carries nonce,
// expiry and energy as numbers, so the binary reads no larger ones.
const maxSafe = 1<<53 - 1

// IsBareBinary reports text that reads as the bare binary form: hex (0x
// optional) of a whole V1 sponsored transaction or block item, which no
// other chain's blob is.
func IsBareBinary(text string) (is bool) {
	defer func() {
		if recover() != nil { // a reader's bug is a form not read, never a crash
			is = false
		}
	}()
	b, ok := bareHex(text)
	if !ok {
		return false
	}
	_, _, err := readBinaryForm(b)
	return err == nil
}

func bareHex(text string) ([]byte, bool) {
	s := strings.TrimPrefix(text, "0x")
	if s == "" || len(s)%2 != 0 || len(s) > 2*(MaxTransaction+1) {
		return nil, false
	}
	b, err := hex.DecodeString(s)
	return b, err == nil
}

// InspectBareBinary states a bare transaction given as hex of its binary
// form, as InspectBare states the JSON form of the same transaction. The
// bytes are read strictly: every signature map with at least one
// credential and one key, indices ascending, each signature 64 bytes; the
// sponsor's signatures the same or none (a zero byte); the header's bitmap
// a sponsor and nothing else; its payload size the payload's; the payload
// a transferWithMemo or a tokenUpdate as ReadWire rebuilds them; nothing
// after it. The header holds the energy, not the execution energy and the
// signature counts the JSON form names: the counts are the signatures
// present (the sponsor's one when it has not signed yet) and the
// execution energy what the energy leaves.
func InspectBareBinary(text string) (rails.Inspection, error) {
	return rails.Guard("ccd.InspectBareBinary", "bare Concordium transaction (binary)", func() (rails.Inspection, error) {
		s := strings.TrimPrefix(text, "0x")
		if len(s) > 2*(MaxTransaction+1) {
			return rails.Inspection{}, bare(fmt.Sprintf("longer than %d bytes", MaxTransaction), rails.Refuse(CodeTooLarge))
		}
		b, ok := bareHex(text)
		if !ok {
			return rails.Inspection{}, bare("not whole hex bytes", rails.Refuse(CodeTransactionMalformed))
		}
		w, sponsor, err := readBinaryForm(b)
		if err != nil {
			return rails.Inspection{}, err
		}
		in, err := bareInspection(w, true)
		if err != nil {
			return rails.Inspection{}, err
		}
		if len(sponsor) > 0 {
			in.Details.Set("sponsorSignatures", jsonv.Number(len(sponsor)))
		}
		return in, nil
	})
}

// readBinaryForm reads b as a block item (kind 3 first) or as the bare
// serialization; a 3 first is also a count of three credentials, so both
// are tried, the block item first, and its error is the one told.
func readBinaryForm(b []byte) (*Wire, map[[2]uint8][]byte, error) {
	if len(b) > 0 && b[0] == blockItemV1 {
		w, sp, err := ReadBinary(b[1:])
		if err == nil {
			return w, sp, nil
		}
		if w2, sp2, err2 := ReadBinary(b); err2 == nil {
			return w2, sp2, nil
		}
		return nil, nil, err
	}
	return ReadBinary(b)
}

// ReadBinary reads the bare serialization of a V1 sponsored transaction
// (see InspectBareBinary) into the transaction and the sender's
// signatures, and the sponsor's signatures if it has signed. An error is
// a *BareError naming the part.
func ReadBinary(b []byte) (*Wire, map[[2]uint8][]byte, error) {
	bad := rails.Refuse(CodeTransactionMalformed)
	if len(b) > MaxTransaction {
		return nil, nil, bare(fmt.Sprintf("longer than %d bytes", MaxTransaction), rails.Refuse(CodeTooLarge))
	}
	r := &reader{b: b}
	w := &Wire{}
	var err error
	if w.Signatures, err = r.signatures(); err != nil {
		return nil, nil, bare("the sender's signatures", err)
	}
	var sponsor map[[2]uint8][]byte
	if r.left() > 0 && r.b[r.pos] == 0 {
		r.pos++
	} else if sponsor, err = r.signatures(); err != nil {
		return nil, nil, bare("the sponsor's signatures (or a zero byte for none)", err)
	}
	if r.left() < headerBytes {
		return nil, nil, bare(fmt.Sprintf("the header: %d bytes, %d left", headerBytes, r.left()), bad)
	}
	if bitmap := r.u16(); bitmap != 1 {
		return nil, nil, bare(fmt.Sprintf("the header's bitmap %#04x: a sponsored transaction's is 0x0001 (a sponsor, nothing else)", bitmap), bad)
	}
	copy(w.Tx.Sender[:], r.next(32))
	w.Tx.Nonce = r.u64()
	energy := r.u64()
	size := uint64(binary.BigEndian.Uint32(r.next(4)))
	w.Tx.Expiry = r.u64()
	copy(w.Tx.Sponsor[:], r.next(32))
	if w.Tx.Nonce > maxSafe || energy > maxSafe || w.Tx.Expiry > maxSafe {
		return nil, nil, bare("the header's nonce, energy or expiry: above 2^53-1, which the JSON form cannot carry", bad)
	}
	if size != uint64(r.left()) {
		return nil, nil, bare(fmt.Sprintf("the header's payload size %d: the payload is %d bytes", size, r.left()), bad)
	}
	w.Tx.Payload = r.next(r.left())
	if err := payloadShape(w.Tx.Payload); err != nil {
		return nil, nil, bare("the payload", err)
	}
	w.Tx.SenderSignatures = uint64(len(w.Signatures))
	w.Tx.SponsorSignatures = max(1, uint64(len(sponsor)))
	floor := w.Tx.Energy() // with no execution energy yet
	if energy < floor {
		return nil, nil, bare(fmt.Sprintf("the header's energy %d: under the %d its signatures and bytes cost", energy, floor), bad)
	}
	w.Tx.ExecEnergy = energy - floor
	return w, sponsor, nil
}

// payloadShape checks a payload as ReadWire would have written it.
func payloadShape(p []byte) error {
	bad := rails.Refuse(CodeTransactionMalformed)
	if len(p) == 0 {
		return bad
	}
	switch p[0] {
	case typeTransferWithMemo:
		if len(p) < 1+32+2+8 {
			return bad
		}
		n := int(binary.BigEndian.Uint16(p[33:]))
		if n > MaxMemo {
			return rails.Refuse(CodeTooLarge)
		}
		if len(p) != 1+32+2+n+8 {
			return bad
		}
	case typeTokenUpdate:
		if len(p) < 2 || len(p) < 2+int(p[1])+4 || !isToken(string(p[2:2+int(p[1])])) {
			return bad
		}
		n := int(p[1])
		m := binary.BigEndian.Uint32(p[2+n:])
		if m > MaxOperations {
			return rails.Refuse(CodeTooLarge)
		}
		if uint64(len(p)) != uint64(2+n+4)+uint64(m) {
			return bad
		}
	default:
		return rails.Refuse(CodePayloadKind)
	}
	return nil
}

type reader struct {
	b   []byte
	pos int
}

func (r *reader) left() int { return len(r.b) - r.pos }

// next is the next n bytes; the caller checked that they are there.
func (r *reader) next(n int) []byte {
	p := r.b[r.pos : r.pos+n]
	r.pos += n
	return p
}

func (r *reader) u16() uint16 { return binary.BigEndian.Uint16(r.next(2)) }
func (r *reader) u64() uint64 { return binary.BigEndian.Uint64(r.next(8)) }

// signatures reads a signature map as appendSignatures writes it: a
// count of credentials (at least one), each its index (ascending), a count
// of keys (at least one) and each key's index (ascending) and a
// 2-byte-length signature of 64 bytes; at most 255 signatures in all.
func (r *reader) signatures() (map[[2]uint8][]byte, error) {
	bad := rails.Refuse(CodeTransactionMalformed)
	if r.left() < 1 || r.b[r.pos] == 0 {
		return nil, bad
	}
	creds := int(r.next(1)[0])
	sigs := make(map[[2]uint8][]byte, 1)
	last := -1
	for range creds {
		if r.left() < 2 {
			return nil, bad
		}
		c, keys := r.b[r.pos], int(r.b[r.pos+1])
		r.pos += 2
		if int(c) <= last || keys == 0 {
			return nil, bad
		}
		last = int(c)
		lastKey := -1
		for range keys {
			if r.left() < 3 {
				return nil, bad
			}
			k := r.b[r.pos]
			n := int(binary.BigEndian.Uint16(r.b[r.pos+1:]))
			r.pos += 3
			if int(k) <= lastKey || n != 64 || r.left() < n || len(sigs) >= 255 {
				return nil, bad
			}
			lastKey = int(k)
			sigs[[2]uint8{c, k}] = r.next(n)
		}
	}
	return sigs, nil
}

// Serialize is w as AccountTransactionV1.serialize writes it: the sender's
// signatures, the sponsor's (a zero byte for none), the header and the
// payload; ReadBinary reads it back.
func (w *Wire) Serialize(sponsor map[[2]uint8][]byte) []byte {
	b := appendSignatures(nil, w.Signatures)
	if len(sponsor) == 0 {
		b = append(b, 0)
	} else {
		b = appendSignatures(b, sponsor)
	}
	b = append(b, w.Tx.Header()...)
	return append(b, w.Tx.Payload...)
}
