// Package lightning holds the Lightning pairings (docs/lightning.md): a
// strict BOLT11 reader and writer, x402/exact/lnbtc, and the request binding
// x402's lnbtc scheme hashes into an invoice's description hash. The payer
// signs nothing: its node pays an invoice the seller's node signed, and the
// preimage it gets back is the payment. Nothing public shows that payment,
// so every Lightning pairing runs the agreement exchange first.
package lightning

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/rails"
)

// Refusal codes of the invoice reader (docs/lightning.md, "Reading an invoice").
const (
	CodeInvoiceMalformed = "ln/invoice-malformed"   // not a BOLT11 invoice this reader accepts
	CodeInvoiceTooLarge  = "ln/invoice-too-large"   // over MaxInvoice characters or MaxFields fields
	CodeSignature        = "ln/invoice-signature"   // the node signature does not verify or recover
	CodeFieldRepeated    = "ln/field-repeated"      // a field read for H appears twice
	CodeFieldLength      = "ln/field-length"        // a field read for H is not 32 bytes
	CodeNoMetadata       = "ln/no-metadata"         // no m field, or not the hash wanted
	CodeNoDescriptionH   = "ln/no-description-hash" // no h field
)

// Bounds of the reader: x402's lnbtc scheme and BOLT11 put no limit on an
// invoice's length, so these are the reference gates' (8 KiB, 64 fields).
const (
	MaxInvoice = 8192
	MaxFields  = 64
)

// Tagged field types: the bech32 value of each field's letter.
const (
	fieldP = 1  // payment hash
	fieldR = 3  // routing hints
	fieldX = 6  // expiry, seconds
	fieldF = 9  // fallback address
	fieldD = 13 // description
	fieldS = 16 // payment secret
	fieldN = 19 // payee public key
	fieldH = 23 // description hash
	fieldC = 24 // min_final_cltv_expiry_delta
	field9 = 5  // features
	fieldM = 27 // payment metadata
)

const (
	charset        = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
	signatureWords = 104 // 64 bytes of r‖s and a recovery id, 520 bits
	defaultExpiry  = 3600
)

// Invoice is a decoded BOLT11 invoice whose node signature verified.
type Invoice struct {
	Currency        string   // bc, tb, tbs or bcrt
	AmountMsat      *big.Int // nil when the invoice names no amount
	Timestamp       int64    // Unix seconds
	Expiry          int64    // seconds after Timestamp; 3600 when the invoice has no x field
	PaymentHash     [32]byte
	PaymentSecret   []byte  // the s field, nil when absent
	DescriptionHash []byte  // the h field's 32 bytes, nil when absent
	Description     *string // the d field, nil when absent
	Metadata        []byte  // the m field, nil when absent
	Payee           [33]byte
	// Tags is every tagged field's type, in invoice order.
	Tags []byte
}

// Has reports whether the invoice holds a field of type t at least once.
func (in *Invoice) Has(t byte) bool { return strings.IndexByte(string(in.Tags), t) >= 0 }

func (in *Invoice) count(t byte) int { return strings.Count(string(in.Tags), string(rune(t))) }

// PayeeHex is the payee's compressed public key as 66 lowercase hex digits,
// the form x402's payTo takes.
func (in *Invoice) PayeeHex() string { return hex.EncodeToString(in.Payee[:]) }

// ExpiresAt is when the invoice stops being payable, Unix seconds.
func (in *Invoice) ExpiresAt() int64 { return in.Timestamp + in.Expiry }

// Metadata32 is the one 32-byte m field as "0x" + hex: what
// x402/exact/lnbtc reads as H. An invoice without m is ln/no-metadata.
func (in *Invoice) Metadata32() (string, error) {
	return in.hash32(fieldM, in.Metadata, CodeNoMetadata)
}

// DescriptionHash32 is the one h field as "0x" + hex.
func (in *Invoice) DescriptionHash32() (string, error) {
	return in.hash32(fieldH, in.DescriptionHash, CodeNoDescriptionH)
}

func (in *Invoice) hash32(t byte, b []byte, absent string) (string, error) {
	switch n := in.count(t); {
	case n == 0:
		return "", rails.Refuse(absent)
	case n > 1:
		return "", rails.Refuse(CodeFieldRepeated)
	}
	if len(b) != 32 {
		return "", rails.Refuse(CodeFieldLength)
	}
	return "0x" + hex.EncodeToString(b), nil
}

// Decode reads a BOLT11 invoice strictly and verifies its node signature:
// one case throughout, a bech32 checksum (BOLT11 uses bech32, not bech32m,
// without bech32's 90-character limit), ln + a currency BOLT11 defines + an
// amount without a leading zero, exactly one payment hash, fixed-length p,
// h, s and n fields, a UTF-8 description, and a signature that recovers to
// the payee (or verifies under the n field when the invoice has one), in
// low-S form. Every failure is a refusal; it never panics.
//
// One payment reads its invoices several times (choose, build, finish,
// the read-back; a session's deposit and return invoice), so the last
// four invoices that verified are remembered, compared by their full
// text: a repeat costs no second signature recovery. The Invoice returned
// is shared with that memory and must not be modified.
func Decode(invoice string) (*Invoice, error) {
	if in := remembered(invoice); in != nil {
		return in, nil
	}
	in, digest, sig, err := parse(invoice)
	if err != nil {
		return nil, err
	}
	if err := in.verify(digest, sig); err != nil {
		return nil, err
	}
	last.Lock()
	last.text[last.next], last.in[last.next] = invoice, in
	last.next = (last.next + 1) % len(last.in)
	last.Unlock()
	return in, nil
}

// last holds the last invoices whose signature verified.
var last struct {
	sync.Mutex
	text [4]string
	in   [4]*Invoice
	next int
}

func remembered(invoice string) *Invoice {
	last.Lock()
	defer last.Unlock()
	for i, t := range last.text {
		if last.in[i] != nil && t == invoice {
			return last.in[i]
		}
	}
	return nil
}

// forgetVerified empties that memory (for benchmarks that count one
// recovery per payment).
func forgetVerified() {
	last.Lock()
	last.text, last.in = [4]string{}, [4]*Invoice{}
	last.Unlock()
	lastNamed.Lock()
	lastNamed.ok = false
	lastNamed.Unlock()
}

var errMalformed = rails.Refuse(CodeInvoiceMalformed)

// charsetRev maps a character to its bech32 value, -1 for none.
var charsetRev = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(charset); i++ {
		t[charset[i]] = int8(i)
	}
	return t
}()

// parse reads everything but the signature, which it returns with the
// digest it signs.
func parse(invoice string) (*Invoice, [32]byte, []byte, error) {
	var digest [32]byte
	if len(invoice) > MaxInvoice {
		return nil, digest, nil, rails.Refuse(CodeInvoiceTooLarge)
	}
	lower := strings.ToLower(invoice)
	if lower != invoice && strings.ToUpper(invoice) != invoice {
		return nil, digest, nil, errMalformed
	}
	sep := strings.LastIndexByte(lower, '1')
	if sep < 3 {
		return nil, digest, nil, errMalformed
	}
	hrp := lower[:sep]
	for i := 0; i < len(hrp); i++ {
		if hrp[i] < 33 || hrp[i] > 126 {
			return nil, digest, nil, errMalformed
		}
	}
	words := make([]byte, 0, len(lower)-sep-1)
	for i := sep + 1; i < len(lower); i++ {
		w := charsetRev[lower[i]]
		if w < 0 {
			return nil, digest, nil, errMalformed
		}
		words = append(words, byte(w))
	}
	if len(words) < 6 || polymod(hrp, words) != 1 {
		return nil, digest, nil, errMalformed
	}
	data := words[:len(words)-6]
	if len(data) < 7+signatureWords {
		return nil, digest, nil, errMalformed
	}
	in := &Invoice{}
	var ok bool
	if in.Currency, in.AmountMsat, ok = currencyAndAmount(hrp); !ok {
		return nil, digest, nil, errMalformed
	}
	body := data[:len(data)-signatureWords]
	in.Timestamp = int64(uintOf(body[:7]))
	in.Expiry = defaultExpiry
	var payee []byte
	seen := map[byte]bool{}
	for i := 7; i < len(body); {
		if i+3 > len(body) {
			return nil, digest, nil, errMalformed
		}
		t, n := body[i], int(body[i+1])*32+int(body[i+2])
		if i+3+n > len(body) {
			return nil, digest, nil, errMalformed
		}
		if len(in.Tags) == MaxFields {
			return nil, digest, nil, rails.Refuse(CodeInvoiceTooLarge)
		}
		in.Tags = append(in.Tags, t)
		v := body[i+3 : i+3+n]
		i += 3 + n
		first := !seen[t]
		seen[t] = true
		switch t {
		case fieldP, fieldH, fieldS:
			if n != 52 {
				return nil, digest, nil, errMalformed
			}
		case fieldN:
			if n != 53 {
				return nil, digest, nil, errMalformed
			}
		}
		if !first {
			if t == fieldP || t == fieldN || t == fieldX || t == fieldD || t == fieldS {
				return nil, digest, nil, errMalformed // two readers could take either one
			}
			continue // a repeated h or m is refused where it is read for H
		}
		switch t {
		case fieldP:
			copy(in.PaymentHash[:], toBytes(v))
		case fieldS:
			in.PaymentSecret = toBytes(v)
		case fieldH:
			in.DescriptionHash = toBytes(v)
		case fieldM:
			in.Metadata = toBytes(v)
		case fieldN:
			payee = toBytes(v)
		case fieldX:
			if n > 10 {
				return nil, digest, nil, errMalformed
			}
			in.Expiry = int64(uintOf(v))
		case fieldD:
			b := toBytes(v)
			if !utf8.Valid(b) {
				return nil, digest, nil, errMalformed
			}
			s := string(b)
			in.Description = &s
		}
	}
	if !seen[fieldP] {
		return nil, digest, nil, errMalformed
	}
	if payee != nil {
		copy(in.Payee[:], payee)
	}
	// The node signs SHA-256 of the human-readable part's bytes and the
	// data part before the signature, as bytes, zero-padded.
	msg := append([]byte(hrp), toBytesPadded(body)...)
	digest = sha256.Sum256(msg)
	return in, digest, toBytes(data[len(data)-signatureWords:]), nil
}

// verify checks the 65-byte r‖s‖recovery-id signature over digest: under
// the n field's key when the invoice has one, else by recovering the key.
func (in *Invoice) verify(digest [32]byte, sig []byte) error {
	if len(sig) != 65 || sig[64] > 3 {
		return rails.Refuse(CodeSignature)
	}
	var r, s secp256k1.ModNScalar
	if r.SetByteSlice(sig[:32]) || s.SetByteSlice(sig[32:64]) || r.IsZero() || s.IsZero() || s.IsOverHalfOrder() {
		return rails.Refuse(CodeSignature) // out of range, or the malleable high-S twin
	}
	// go-ethereum's recovery is libsecp256k1's under cgo, several times
	// faster than the pure-Go one (docs/lightning.md, "Performance").
	key, err := crypto.SigToPub(digest[:], sig)
	if err != nil {
		return rails.Refuse(CodeSignature)
	}
	got := crypto.CompressPubkey(key)
	if in.Has(fieldN) {
		if string(got) != string(in.Payee[:]) {
			return rails.Refuse(CodeSignature)
		}
		return nil
	}
	copy(in.Payee[:], got)
	return nil
}

// currencyAndAmount reads "ln" + currency + [amount multiplier]. The
// currencies are tried longest first, so "tbs" is signet, not "tb" with an
// amount "s…". An amount is digits without a leading zero, then m, u, n or
// p (pico-bitcoin must be a whole millisatoshi).
func currencyAndAmount(hrp string) (string, *big.Int, bool) {
	rest, ok := strings.CutPrefix(hrp, "ln")
	if !ok {
		return "", nil, false
	}
	for _, cur := range []string{"bcrt", "tbs", "tb", "bc"} {
		amount, ok := strings.CutPrefix(rest, cur)
		if !ok {
			continue
		}
		if amount == "" {
			return cur, nil, true
		}
		digits, mult := amount, byte(0)
		if c := amount[len(amount)-1]; c == 'm' || c == 'u' || c == 'n' || c == 'p' {
			digits, mult = amount[:len(amount)-1], c
		}
		if digits == "" || digits[0] == '0' || len(digits) > 30 || strings.Trim(digits, "0123456789") != "" {
			continue
		}
		n, _ := new(big.Int).SetString(digits, 10)
		if mult == 'p' {
			q, m := new(big.Int).QuoRem(n, big.NewInt(10), new(big.Int))
			if m.Sign() != 0 {
				return "", nil, false
			}
			return cur, q, true
		}
		return cur, n.Mul(n, big.NewInt(msatPer(mult))), true
	}
	return "", nil, false
}

// msatPer is millisatoshi per unit of a BOLT11 multiplier (none, m, u, n).
func msatPer(mult byte) int64 {
	switch mult {
	case 'm':
		return 100_000_000
	case 'u':
		return 100_000
	case 'n':
		return 100
	}
	return 100_000_000_000
}

// parsed is the invoice's structure without checking its signature: the
// remembered verified invoice when it is that one.
func parsed(invoice string) (*Invoice, error) {
	if in := remembered(invoice); in != nil {
		return in, nil
	}
	in, _, _, err := parse(invoice)
	return in, err
}

var generator = [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}

// polymod is bech32's checksum over the expanded hrp and the words.
func polymod(hrp string, words []byte) uint32 {
	chk := uint32(1)
	step := func(v byte) {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ uint32(v)
		for i := range 5 {
			if (top>>i)&1 == 1 {
				chk ^= generator[i]
			}
		}
	}
	for i := 0; i < len(hrp); i++ {
		step(hrp[i] >> 5)
	}
	step(0)
	for i := 0; i < len(hrp); i++ {
		step(hrp[i] & 31)
	}
	for _, w := range words {
		step(w)
	}
	return chk
}

// uintOf reads 5-bit words as a big-endian integer (at most 10 words, 50 bits).
func uintOf(words []byte) uint64 {
	var v uint64
	for _, w := range words {
		v = v<<5 | uint64(w)
	}
	return v
}

// toBytes reads 5-bit words as bytes, dropping the bits short of a byte.
func toBytes(words []byte) []byte { return regroup(words, false) }

// toBytesPadded reads 5-bit words as bytes, the last one zero-padded: the
// form the node signature covers.
func toBytesPadded(words []byte) []byte { return regroup(words, true) }

func regroup(words []byte, pad bool) []byte {
	out := make([]byte, 0, (len(words)*5+7)/8)
	var acc uint32
	bits := 0
	for _, w := range words {
		acc = (acc<<5 | uint32(w)) & 0xfff
		bits += 5
		if bits >= 8 {
			bits -= 8
			out = append(out, byte(acc>>bits))
		}
	}
	if pad && bits > 0 {
		out = append(out, byte(acc<<(8-bits)))
	}
	return out
}

// ErrNoKey is returned by Encode without a key.
var ErrNoKey = errors.New("lightning: no node key to sign the invoice")
