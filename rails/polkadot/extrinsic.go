package polkadot

import (
	"bytes"
	"encoding/binary"
	"math/big"
)

// The profile's call and the signed v4 extrinsic that carries it, as Asset
// Hub's runtime lays them out: the call utility.batch_all([
// assets.transfer_keep_alive(asset, Id(payTo), amount),
// system.remark_with_event(R)]), and the signed extensions CheckMortality,
// CheckNonce, ChargeAssetTxPayment and CheckMetadataHash in the extra
// (https://docs.polkadot.com/polkadot-protocol/parachain-basics/blocks-transactions-fees/transactions/).

// Pallet and call indices, the same on Polkadot and Westend Asset Hub.
var (
	callBatchAll          = [2]byte{40, 2}
	callTransferKeepAlive = [2]byte{50, 9}
	callRemarkWithEvent   = [2]byte{0, 7}
)

// RemarkLength is the length of R, "lcp:sha256:0x" and 64 hex digits.
const RemarkLength = 77

// MaxExtrinsic bounds an extrinsic as read.
const MaxExtrinsic = 4096

var u128Limit = new(big.Int).Lsh(big.NewInt(1), 128)

// Call is the profile's call as read or written.
type Call struct {
	AssetID uint32
	Dest    [32]byte
	Amount  *big.Int
	Remark  []byte
}

// Encode writes the call in SCALE.
func (c *Call) Encode() []byte {
	b := make([]byte, 0, 128)
	b = append(b, callBatchAll[:]...)
	b = append(b, 0x08) // two calls
	b = append(b, callTransferKeepAlive[:]...)
	b = AppendCompact(b, uint64(c.AssetID))
	b = append(b, 0x00) // MultiAddress::Id
	b = append(b, c.Dest[:]...)
	b = AppendCompactBig(b, c.Amount)
	b = append(b, callRemarkWithEvent[:]...)
	b = AppendCompact(b, uint64(len(c.Remark)))
	return append(b, c.Remark...)
}

// DecodeCall reads exactly the profile's call, canonical compacts, an asset
// id below 2^32, an amount below 2^128, a 77-byte remark and nothing after
// it; ok false for anything else.
func DecodeCall(b []byte) (*Call, bool) {
	head := []byte{callBatchAll[0], callBatchAll[1], 0x08, callTransferKeepAlive[0], callTransferKeepAlive[1]}
	if !bytes.HasPrefix(b, head) {
		return nil, false
	}
	asset, at, ok := compactU64(b, len(head), 32)
	if !ok || at+33 > len(b) || b[at] != 0x00 {
		return nil, false
	}
	c := &Call{AssetID: uint32(asset)}
	copy(c.Dest[:], b[at+1:at+33])
	amount, at, ok := Compact(b, at+33)
	if !ok || at+2 > len(b) || b[at] != callRemarkWithEvent[0] || b[at+1] != callRemarkWithEvent[1] {
		return nil, false
	}
	n, at, ok := compactU64(b, at+2, 32)
	if !ok || n != RemarkLength || at+RemarkLength != len(b) {
		return nil, false
	}
	c.Amount, c.Remark = amount, append([]byte(nil), b[at:]...)
	return c, true
}

// Signature types of a MultiSignature, and their lengths.
const (
	SigEd25519 = 0
	SigSr25519 = 1
	SigEcdsa   = 2
)

// Signed is the preamble of a signed v4 extrinsic: who signed and how, and
// where the extension bytes start.
type Signed struct {
	Signer    [32]byte
	SigType   byte
	Signature []byte
	End       int // the index after the signature
}

// Split errors, in the order the preamble is read.
type splitError string

func (e splitError) Error() string { return string(e) }

const (
	errTooLarge    = splitError(CodeExtrinsicTooLarge)
	errMalformed   = splitError(CodeExtrinsicMalformed)
	errNotSignedV4 = splitError(CodeNotSignedV4)
	errAddress     = splitError(CodeAddressNotID)
	errSignature   = splitError(CodeSignatureMalformed)
)

// SplitSigned reads a signed v4 extrinsic's preamble: the length prefix
// (equal to what follows), 0x84, MultiAddress::Id and a MultiSignature. The
// extension bytes that follow are not decoded here.
func SplitSigned(xt []byte) (*Signed, error) {
	if len(xt) > MaxExtrinsic {
		return nil, errTooLarge
	}
	n, at, ok := compactU64(xt, 0, 32)
	if !ok || n != uint64(len(xt)-at) {
		return nil, errMalformed
	}
	if at >= len(xt) || xt[at] != 0x84 {
		return nil, errNotSignedV4
	}
	at++
	if at+33 > len(xt) || xt[at] != 0x00 {
		return nil, errAddress
	}
	s := &Signed{}
	copy(s.Signer[:], xt[at+1:at+33])
	at += 33
	if at >= len(xt) {
		return nil, errSignature
	}
	size := 0
	switch xt[at] {
	case SigEd25519, SigSr25519:
		size = 64
	case SigEcdsa:
		size = 65
	default:
		return nil, errSignature
	}
	if at+1+size > len(xt) {
		return nil, errSignature
	}
	s.SigType, s.Signature, s.End = xt[at], xt[at+1:at+1+size], at+1+size
	return s, nil
}

// Era is a transaction's mortality: immortal, or Period blocks (a power of
// two, 4 to 65536) from the block whose number is Phase modulo Period.
type Era struct {
	Immortal      bool
	Period, Phase uint64
}

// MortalEra is the era of Period blocks starting at block number current,
// rounded as the runtime quantizes it; period must be a power of two from 4
// to 65536.
func MortalEra(period, current uint64) Era {
	q := max(period>>12, 1)
	return Era{Period: period, Phase: current % period / q * q}
}

// Encode writes the era: 0x00, or two bytes.
func (e Era) Encode() []byte {
	if e.Immortal {
		return []byte{0}
	}
	tz := uint64(0)
	for p := e.Period; p > 1; p >>= 1 {
		tz++
	}
	low := min(max(tz-1, 1), 15)
	q := max(e.Period>>12, 1)
	v := uint16(low | (e.Phase/q)<<4)
	return []byte{byte(v), byte(v >> 8)}
}

// DecodeEra reads an era at b[at:]: the era and the index after it.
func DecodeEra(b []byte, at int) (Era, int, bool) {
	if at >= len(b) {
		return Era{}, 0, false
	}
	if b[at] == 0 {
		return Era{Immortal: true}, at + 1, true
	}
	if at+2 > len(b) {
		return Era{}, 0, false
	}
	v := uint64(binary.LittleEndian.Uint16(b[at:]))
	period := uint64(2) << (v % 16)
	q := max(period>>12, 1)
	phase := (v >> 4) * q
	if period < 4 || phase >= period {
		return Era{}, 0, false
	}
	return Era{Period: period, Phase: phase}, at + 2, true
}

// Birth is the first block the era admits for a transaction made at
// block current, and Death the first it no longer does.
func (e Era) Birth(current uint64) uint64 {
	return (max(current, e.Phase)-e.Phase)/e.Period*e.Period + e.Phase
}

// Death is the first block after the era.
func (e Era) Death(current uint64) uint64 { return e.Birth(current) + e.Period }

// Extra is what the signed extensions write into the extrinsic.
type Extra struct {
	Era   Era
	Nonce uint32
	Tip   uint64 // in the fee asset's units; 0 for the pairing's own payments
	// FeeAsset is nil to pay fees in DOT; otherwise the SCALE bytes of the
	// asset's location, as the wallet chose it.
	FeeAsset     []byte
	MetadataHash bool // CheckMetadataHash's mode: false Disabled, true Enabled
}

// Encode writes the extra: era, nonce, ChargeAssetTxPayment's tip and
// asset, CheckMetadataHash's mode.
func (x *Extra) Encode() []byte {
	b := x.Era.Encode()
	b = AppendCompact(b, uint64(x.Nonce))
	b = AppendCompact(b, x.Tip)
	if x.FeeAsset == nil {
		b = append(b, 0)
	} else {
		b = append(append(b, 1), x.FeeAsset...)
	}
	if x.MetadataHash {
		return append(b, 1)
	}
	return append(b, 0)
}

// DecodeExtra reads an extra whose fee asset is DOT (None): the only
// form this pairing builds and reads in full.
func DecodeExtra(b []byte, at int) (*Extra, int, bool) {
	era, at, ok := DecodeEra(b, at)
	if !ok {
		return nil, 0, false
	}
	nonce, at, ok := compactU64(b, at, 32)
	if !ok {
		return nil, 0, false
	}
	tip, at, ok := compactU64(b, at, 64)
	if !ok || at+2 > len(b) || b[at] != 0 || b[at+1] > 1 {
		return nil, 0, false
	}
	return &Extra{Era: era, Nonce: uint32(nonce), Tip: tip, MetadataHash: b[at+1] == 1}, at + 2, true
}

// Additional is what the signed extensions add to the signed payload
// without writing it into the extrinsic.
type Additional struct {
	SpecVersion, TxVersion uint32
	Genesis, EraBlock      [32]byte
	MetadataHash           *[32]byte // Some when CheckMetadataHash is enabled
}

// SigningPayload is what the payer's key signs: call, extra and
// additional; its BLAKE2b-256 when longer than 256 bytes, as the runtime
// checks it.
func SigningPayload(call []byte, x *Extra, a *Additional) []byte {
	p := append(append([]byte(nil), call...), x.Encode()...)
	p = binary.LittleEndian.AppendUint32(p, a.SpecVersion)
	p = binary.LittleEndian.AppendUint32(p, a.TxVersion)
	p = append(p, a.Genesis[:]...)
	p = append(p, a.EraBlock[:]...)
	if a.MetadataHash == nil {
		p = append(p, 0)
	} else {
		p = append(append(p, 1), a.MetadataHash[:]...)
	}
	if len(p) > 256 {
		h := Blake2b256(p)
		return h[:]
	}
	return p
}

// EncodeSigned writes a signed v4 extrinsic: the length prefix, 0x84, the
// signer as MultiAddress::Id, the MultiSignature, the extra and the call.
func EncodeSigned(signer [32]byte, sigType byte, sig []byte, x *Extra, call []byte) []byte {
	body := make([]byte, 0, 1+33+1+len(sig)+16+len(call))
	body = append(body, 0x84, 0x00)
	body = append(body, signer[:]...)
	body = append(body, sigType)
	body = append(body, sig...)
	body = append(body, x.Encode()...)
	body = append(body, call...)
	return append(AppendCompact(nil, uint64(len(body))), body...)
}

// ExtrinsicHash is the BLAKE2b-256 of an extrinsic's bytes, its length
// prefix included: the hash a node and Sidecar name it by.
func ExtrinsicHash(xt []byte) [32]byte { return Blake2b256(xt) }
