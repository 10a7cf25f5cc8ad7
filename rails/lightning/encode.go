package lightning

import (
	"crypto/sha256"
	"errors"
	"math/big"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
)

// Issue is what a seller's node writes into an invoice. Encode writes the
// fields in this order: p, s, h, m, x, 9.
type Issue struct {
	Currency        string   // bc, tb, tbs or bcrt
	AmountMsat      *big.Int // nil for an invoice without an amount
	Timestamp       int64
	Expiry          int64 // 0 writes no x field (BOLT11's default, 3600 s)
	PaymentHash     [32]byte
	PaymentSecret   []byte // 32 bytes, or nil
	DescriptionHash []byte // 32 bytes, or nil
	Metadata        []byte // nil for no m field
	Features        []int  // feature bits set, e.g. 8 and 14
}

// Encode writes and signs an invoice with the node's key: the seller's
// side, used by termsgate's demo sellers and tests.
func Encode(is Issue, key *secp256k1.PrivateKey) (string, error) {
	if key == nil {
		return "", ErrNoKey
	}
	hrp := "ln" + is.Currency
	switch is.Currency {
	case "bc", "tb", "tbs", "bcrt":
	default:
		return "", errors.New("lightning: unknown currency " + is.Currency)
	}
	if is.AmountMsat != nil {
		a, err := amountText(is.AmountMsat)
		if err != nil {
			return "", err
		}
		hrp += a
	}
	if is.Timestamp < 0 || is.Timestamp >= 1<<35 || is.Expiry < 0 {
		return "", errors.New("lightning: timestamp or expiry out of range")
	}
	data := intWords(uint64(is.Timestamp), 7)
	field := func(t byte, words []byte) {
		data = append(data, t, byte(len(words)>>5), byte(len(words)&31))
		data = append(data, words...)
	}
	field(fieldP, fromBytes(is.PaymentHash[:]))
	if is.PaymentSecret != nil {
		field(fieldS, fromBytes(is.PaymentSecret))
	}
	if is.DescriptionHash != nil {
		field(fieldH, fromBytes(is.DescriptionHash))
	}
	if is.Metadata != nil {
		field(fieldM, fromBytes(is.Metadata))
	}
	if is.Expiry > 0 {
		field(fieldX, intWords(uint64(is.Expiry), 0))
	}
	if len(is.Features) > 0 {
		field(field9, featureWords(is.Features))
	}
	digest := sha256.Sum256(append([]byte(hrp), toBytesPadded(data)...))
	c := ecdsa.SignCompact(key, digest[:], true) // [27+4+id] r s
	sig := append(append([]byte(nil), c[1:]...), c[0]-31)
	data = append(data, fromBytes(sig)...)
	var b strings.Builder
	b.WriteString(hrp)
	b.WriteByte('1')
	for _, w := range data {
		b.WriteByte(charset[w])
	}
	for _, w := range checksum(hrp, data) {
		b.WriteByte(charset[w])
	}
	return b.String(), nil
}

// amountText is the shortest BOLT11 amount for msat millisatoshi.
func amountText(msat *big.Int) (string, error) {
	if msat.Sign() <= 0 {
		return "", errors.New("lightning: an invoice amount must be positive")
	}
	for _, u := range []struct {
		per  int64
		mult string
	}{{100_000_000_000, ""}, {100_000_000, "m"}, {100_000, "u"}, {100, "n"}} {
		q, r := new(big.Int).QuoRem(msat, big.NewInt(u.per), new(big.Int))
		if r.Sign() == 0 {
			return q.String() + u.mult, nil
		}
	}
	return new(big.Int).Mul(msat, big.NewInt(10)).String() + "p", nil
}

// intWords writes v big-endian in 5-bit words, at least min of them (0:
// as few as v needs, at least one).
func intWords(v uint64, min int) []byte {
	var w []byte
	for v > 0 {
		w = append([]byte{byte(v & 31)}, w...)
		v >>= 5
	}
	for len(w) < min || len(w) == 0 {
		w = append([]byte{0}, w...)
	}
	return w
}

// fromBytes regroups bytes into 5-bit words, the last zero-padded.
func fromBytes(b []byte) []byte {
	out := make([]byte, 0, (len(b)*8+4)/5)
	var acc uint32
	bits := 0
	for _, x := range b {
		acc = (acc<<8 | uint32(x)) & 0xfff
		bits += 8
		for bits >= 5 {
			bits -= 5
			out = append(out, byte(acc>>bits)&31)
		}
	}
	if bits > 0 {
		out = append(out, byte(acc<<(5-bits))&31)
	}
	return out
}

// featureWords is the feature bit vector, bit 0 last.
func featureWords(bits []int) []byte {
	top := 0
	for _, b := range bits {
		top = max(top, b)
	}
	w := make([]byte, top/5+1)
	for _, b := range bits {
		w[len(w)-1-b/5] |= 1 << (b % 5)
	}
	return w
}

func checksum(hrp string, data []byte) []byte {
	v := polymod(hrp, append(append([]byte(nil), data...), 0, 0, 0, 0, 0, 0)) ^ 1
	out := make([]byte, 6)
	for i := range out {
		out[i] = byte(v>>(5*(5-i))) & 31
	}
	return out
}
