package ccd

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// The V1 sponsored account transaction the payer signs, as Concordium's
// nodes and @concordium/web-sdk serialize it (protocol version 10):
// the header is a 2-byte bitmap (bit 0: a sponsor follows), the V0 header
// (sender, nonce, energy, payload size, expiry) and the sponsor's address;
// the payload is its type byte and body. Both signers sign SHA-256 of 31
// zero bytes and a one, then the header and the payload
// (https://github.com/Concordium/concordium-node-sdk-js, packages/sdk/src/transactions/AccountTransactionV1.ts).

// Payload type bytes.
const (
	typeTransferWithMemo = 22
	typeTokenUpdate      = 27
)

// Energy: each signature costs energyPerSignature, each byte of header and
// payload one, and the payload's own execution cost is added on top.
const (
	energyPerSignature = 100
	headerBytes        = 2 + 60 + 32
	// ExecTransfer is a CCD transfer's execution energy; ExecTokenTransfer
	// a PLT update with one transfer operation (the vectors' and the
	// SDK's figures).
	ExecTransfer      = 300
	ExecTokenTransfer = 400
)

// Tx is an unsigned V1 transaction with a sponsor.
type Tx struct {
	Sender, Sponsor   [32]byte
	Nonce, Expiry     uint64
	ExecEnergy        uint64
	SenderSignatures  uint64
	SponsorSignatures uint64
	Payload           []byte // the type byte, then the body
}

// Energy is the header's energy amount: what the sponsor pays for at most.
func (t *Tx) Energy() uint64 {
	return energyPerSignature*(t.SenderSignatures+t.SponsorSignatures) + headerBytes + uint64(len(t.Payload)) + t.ExecEnergy
}

// Header is the serialized V1 header.
func (t *Tx) Header() []byte {
	b := make([]byte, 0, headerBytes)
	b = append(b, 0, 1)
	b = append(b, t.Sender[:]...)
	b = binary.BigEndian.AppendUint64(b, t.Nonce)
	b = binary.BigEndian.AppendUint64(b, t.Energy())
	b = binary.BigEndian.AppendUint32(b, uint32(len(t.Payload)))
	b = binary.BigEndian.AppendUint64(b, t.Expiry)
	return append(b, t.Sponsor[:]...)
}

// SignDigest is what the sender and the sponsor sign.
func (t *Tx) SignDigest() [32]byte {
	h := sha256.New()
	var prefix [32]byte
	prefix[31] = 1
	h.Write(prefix[:])
	h.Write(t.Header())
	h.Write(t.Payload)
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// TransferWithMemoPayload is a CCD transfer's payload: the receiver, the
// memo with its 2-byte length, the amount in microCCD.
func TransferWithMemoPayload(to []byte, memo []byte, amount uint64) []byte {
	b := make([]byte, 0, 1+32+2+len(memo)+8)
	b = append(b, typeTransferWithMemo)
	b = append(b, to...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(memo)))
	b = append(b, memo...)
	return binary.BigEndian.AppendUint64(b, amount)
}

// TokenUpdatePayload is a PLT update's payload: the token id with a 1-byte
// length, the CBOR operations with a 4-byte length.
func TokenUpdatePayload(tokenID string, ops []byte) []byte {
	b := make([]byte, 0, 1+1+len(tokenID)+4+len(ops))
	b = append(b, typeTokenUpdate, byte(len(tokenID)))
	b = append(b, tokenID...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(ops)))
	return append(b, ops...)
}

// cborHead writes a CBOR head of major type m for n under its shortest form.
func cborHead(b []byte, m byte, n uint64) []byte {
	m <<= 5
	switch {
	case n < 24:
		return append(b, m|byte(n))
	case n <= 0xff:
		return append(b, m|24, byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, m|25), uint16(n))
	case n <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(b, m|26), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, m|27), n)
}

func appendText(b []byte, s string) []byte { return append(cborHead(b, 3, uint64(len(s))), s...) }

// coinInfoCCD is the recipient's coin info as the SDK writes it: key 1,
// tag 40305 around {1: 919} (SLIP-44's coin type of Concordium).
const coinTypeCCD = 919

// TokenTransferOps is the CBOR operations of one PLT transfer, as the SDK
// writes them: [{"transfer": {"memo": 24(bytes(memo)), "amount":
// 4([-decimals, amount]), "recipient": 40307({1: 40305({1: 919}), 3:
// bytes(recipient)})}}].
func TokenTransferOps(recipient []byte, amount uint64, decimals uint8, memo []byte) []byte {
	b := []byte{0x81, 0xa1}
	b = appendText(b, "transfer")
	b = append(b, 0xa3)
	b = appendText(b, "memo")
	b = cborHead(b, 6, tagEncodedCBOR)
	b = append(cborHead(b, 2, uint64(len(memo))), memo...)
	b = appendText(b, "amount")
	b = cborHead(b, 6, tagDecimal)
	b = append(b, 0x82)
	if decimals == 0 {
		b = append(b, 0)
	} else {
		b = cborHead(b, 1, uint64(decimals)-1)
	}
	b = cborHead(b, 0, amount)
	b = appendText(b, "recipient")
	b = cborHead(b, 6, tagAccountAddress)
	b = append(b, 0xa2, 0x01)
	b = cborHead(b, 6, 40305)
	b = append(b, 0xa1, 0x01)
	b = cborHead(b, 0, coinTypeCCD)
	b = append(b, 0x03)
	return append(cborHead(b, 2, uint64(len(recipient))), recipient...)
}

// Address is the base58check form of an account's 32 bytes (version 1).
func Address(raw []byte) string {
	if len(raw) != 32 {
		return encodeAddress(raw)
	}
	if s, ok := addresses.Get([32]byte(raw)); ok {
		return s
	}
	s := encodeAddress(raw)
	addresses.Put([32]byte(raw), s)
	return s
}

func encodeAddress(raw []byte) string {
	b := make([]byte, 0, 37)
	b = append(b, 1)
	b = append(b, raw...)
	a := sha256.Sum256(b)
	c := sha256.Sum256(a[:])
	return alphabet.Encode(append(b, c[:4]...))
}

// WireForm is x402's signedTransaction for t with the sender's one
// signature (credential 0, key 0), in the SDK's toJSONString member order.
func WireForm(t *Tx, sig []byte) (*jsonv.Object, error) {
	body, err := payloadJSON(t.Payload)
	if err != nil {
		return nil, err
	}
	return jsonv.Obj("version", 1,
		"signatures", jsonv.Obj("sender", jsonv.Obj("0", jsonv.Obj("0", hex.EncodeToString(sig)))),
		"header", jsonv.Obj("sender", Address(t.Sender[:]), "nonce", jsonv.Number(t.Nonce), "expiry", jsonv.Number(t.Expiry),
			"executionEnergyAmount", jsonv.Number(t.ExecEnergy), "numSignatures", jsonv.Number(t.SenderSignatures),
			"sponsor", jsonv.Obj("account", Address(t.Sponsor[:]), "numSignatures", jsonv.Number(t.SponsorSignatures))),
		"payload", body), nil
}

func payloadJSON(p []byte) (*jsonv.Object, error) {
	switch {
	case len(p) >= 1+32+2+8 && p[0] == typeTransferWithMemo:
		n := int(binary.BigEndian.Uint16(p[33:]))
		if len(p) != 1+32+2+n+8 {
			break
		}
		return jsonv.Obj("type", "transferWithMemo", "toAddress", Address(p[1:33]), "memo", hex.EncodeToString(p[33:35+n]),
			"amount", strconv.FormatUint(binary.BigEndian.Uint64(p[35+n:]), 10)), nil
	case len(p) >= 2 && p[0] == typeTokenUpdate:
		n := int(p[1])
		if len(p) < 2+n+4 {
			break
		}
		m := int(binary.BigEndian.Uint32(p[2+n:]))
		if len(p) != 2+n+4+m {
			break
		}
		return jsonv.Obj("type", "tokenUpdate", "tokenId", string(p[2:2+n]), "operations", hex.EncodeToString(p[2+n+4:])), nil
	}
	return nil, rails.Refuse(CodeTransactionMalformed)
}

// Wire is a signedTransaction read back into the transaction it signs and
// the sender's signatures.
type Wire struct {
	Tx         Tx
	Signatures map[[2]uint8][]byte // (credential, key) to 64 bytes
}

// ReadWire rebuilds the signed bytes from a signedTransaction: the header's
// members, the sponsor, and the payload of a transferWithMemo or a
// tokenUpdate, with every signature of the sender 64 bytes of hex.
func ReadWire(tx *jsonv.Object) (*Wire, error) { return readWire(tx, true) }

// readWire is ReadWire; without signed, a transaction with no signatures
// member reads as well (the bare form a wallet signs), with none.
func readWire(tx *jsonv.Object, signed bool) (*Wire, error) {
	bad := rails.Refuse(CodeTransactionMalformed)
	if v, _ := tx.Get("version"); v != jsonv.Number(1) {
		return nil, rails.Refuse(CodeNotV1)
	}
	header, ok1 := tx.GetObject("header")
	body, ok2 := tx.GetObject("payload")
	sigs, ok3 := tx.GetObject("signatures")
	if !ok1 || !ok2 || !ok3 && (signed || tx.Has("signatures")) {
		return nil, bad
	}
	w := &Wire{Signatures: map[[2]uint8][]byte{}}
	var ok bool
	if w.Tx.Nonce, ok = u64Member(header, "nonce"); !ok {
		return nil, bad
	}
	if w.Tx.Expiry, ok = u64Member(header, "expiry"); !ok {
		return nil, bad
	}
	if w.Tx.ExecEnergy, ok = u64Member(header, "executionEnergyAmount"); !ok {
		return nil, bad
	}
	if w.Tx.SenderSignatures, ok = u64Member(header, "numSignatures"); !ok || w.Tx.SenderSignatures < 1 || w.Tx.SenderSignatures > 255 {
		return nil, bad
	}
	s, _ := header.GetString("sender")
	sender, err := AccountBytes(s)
	if err != nil {
		return nil, err
	}
	copy(w.Tx.Sender[:], sender)
	sp, ok := header.GetObject("sponsor")
	if !ok {
		return nil, bad
	}
	s, _ = sp.GetString("account")
	sponsor, err := AccountBytes(s)
	if err != nil {
		return nil, err
	}
	copy(w.Tx.Sponsor[:], sponsor)
	if w.Tx.SponsorSignatures, ok = u64Member(sp, "numSignatures"); !ok || w.Tx.SponsorSignatures < 1 || w.Tx.SponsorSignatures > 255 {
		return nil, bad
	}
	typ, _ := body.GetString("type")
	switch typ {
	case "transferWithMemo":
		to, _ := body.GetString("toAddress")
		rcv, err := AccountBytes(to)
		if err != nil {
			return nil, err
		}
		memo, err := memoBlob(body)
		if err != nil {
			return nil, err
		}
		amount, _ := body.GetString("amount")
		n, ok := u64Of(amount)
		if !ok {
			return nil, bad
		}
		w.Tx.Payload = TransferWithMemoPayload(rcv, memo, n)
	case "tokenUpdate":
		id, _ := body.GetString("tokenId")
		if !isToken(id) || len(id) > 255 {
			return nil, bad
		}
		ops, err := hexField(body, "operations", MaxOperations)
		if err != nil {
			return nil, err
		}
		w.Tx.Payload = TokenUpdatePayload(id, ops)
	default:
		return nil, rails.Refuse(CodePayloadKind)
	}
	if !ok3 {
		return w, nil
	}
	sender0, _ := sigs.GetObject("sender")
	if sender0 == nil || sender0.Len() == 0 || sender0.Len() > 255 {
		return nil, bad
	}
	for _, cred := range sender0.Keys() {
		keys, _ := sender0.GetObject(cred)
		c, ok := smallIndex(cred)
		if !ok || keys == nil || keys.Len() == 0 || keys.Len() > 255 {
			return nil, bad
		}
		for _, key := range keys.Keys() {
			k, ok := smallIndex(key)
			text, _ := keys.GetString(key)
			sig, err := hex.DecodeString(text)
			if !ok || err != nil || len(sig) != ed25519.SignatureSize {
				return nil, bad
			}
			w.Signatures[[2]uint8{c, k}] = sig
		}
	}
	return w, nil
}

func u64Member(o *jsonv.Object, k string) (uint64, bool) {
	v, _ := o.Get(k)
	n, ok := jsonv.AsSafeInt(v)
	return uint64(n), ok && n >= 0
}

// smallIndex reads a credential or key index, a decimal 0–255 without
// leading zeros.
func smallIndex(s string) (uint8, bool) {
	if s == "" || len(s) > 3 || len(s) > 1 && s[0] == '0' || !rails.IsDecimal(s) {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 8)
	return uint8(n), err == nil
}

// Verifies reports that key signed w's transaction as credential 0, key 0.
func (w *Wire) Verifies(key ed25519.PublicKey) bool {
	sig, ok := w.Signatures[[2]uint8{0, 0}]
	if !ok || len(key) != ed25519.PublicKeySize {
		return false
	}
	d := w.Tx.SignDigest()
	return ed25519.Verify(key, d[:], sig)
}

// appendSignatures writes a signature map as the chain serializes it: a
// 1-byte count of credentials, each its index, a 1-byte count of keys and
// each key's index and 2-byte-length signature, indices ascending.
func appendSignatures(b []byte, sigs map[[2]uint8][]byte) []byte {
	var creds [256][]uint8
	var ncred int
	for k := range sigs {
		if len(creds[k[0]]) == 0 {
			ncred++
		}
		creds[k[0]] = append(creds[k[0]], k[1])
	}
	b = append(b, byte(ncred))
	for c := 0; c < 256; c++ {
		keys := creds[c]
		if len(keys) == 0 {
			continue
		}
		sortBytes(keys)
		b = append(b, byte(c), byte(len(keys)))
		for _, k := range keys {
			s := sigs[[2]uint8{uint8(c), k}]
			b = append(b, k)
			b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
			b = append(b, s...)
		}
	}
	return b
}

func sortBytes(b []uint8) {
	for i := 1; i < len(b); i++ {
		for j := i; j > 0 && b[j] < b[j-1]; j-- {
			b[j], b[j-1] = b[j-1], b[j]
		}
	}
}

// Hash is the transaction hash the chain names the block item by: SHA-256
// of the sender's and the sponsor's signatures, the header and the payload.
func (w *Wire) Hash(sponsor map[[2]uint8][]byte) [32]byte {
	b := appendSignatures(nil, w.Signatures)
	if len(sponsor) == 0 {
		b = append(b, 0)
	} else {
		b = appendSignatures(b, sponsor)
	}
	b = append(b, w.Tx.Header()...)
	return sha256.Sum256(append(b, w.Tx.Payload...))
}

// Carried reads a presented payment as Bound does and rebuilds the signed
// transaction from its wire form.
func Carried(presented jsonv.Value) (*Signed, *Wire, error) {
	s, err := ReadSigned(presented)
	if err != nil {
		return nil, nil, err
	}
	o, _ := jsonv.AsObject(presented)
	payload, _ := o.GetObject("payload")
	tx, _ := payload.GetObject("signedTransaction")
	w, err := ReadWire(tx)
	if err != nil {
		return nil, nil, err
	}
	return s, w, nil
}

// Pays reports a carried transaction that moves the option's amount of
// its asset to its payTo, sponsored by its feePayer.
func Pays(s *Signed, w *Wire, accepted *jsonv.Object) bool {
	return pays(s, w, accepted, Address(s.Sender), 0)
}
