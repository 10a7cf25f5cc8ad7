package xrpl

import (
	"encoding/binary"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// A Number field is 12 bytes: a signed 64-bit mantissa and a signed 32-bit
// exponent. ripple-binary-codec reads it to text and writes text back, so
// the canonical encoding is the one that survives that round trip
// (docs/xrpl.md "Numbers"); NumberText and numberBytes are the two halves.
const (
	numberMinExponent  = -32768
	numberMaxExponent  = 32768
	numberZeroExponent = math.MinInt32
)

var (
	bigMinMantissa = big.NewInt(1e18)
	bigMaxMantissa = new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(19), nil), big.NewInt(1))
	bigMaxInt64    = big.NewInt(math.MaxInt64)
	bigTen         = big.NewInt(10)
)

func numberCanonical(v []byte) bool {
	b, ok := numberBytes(NumberText(v))
	return ok && [12]byte(b) == [12]byte(v)
}

// NumberText is a Number's text: "0" for the zero encoding; else the
// mantissa (times ten when below 10^18) in plain decimal when the exponent
// is 0 or from -28 to -8, otherwise as mantissa "e" exponent with trailing
// zeros moved into the exponent.
func NumberText(v []byte) string {
	m := int64(binary.BigEndian.Uint64(v[:8]))
	e := int64(int32(binary.BigEndian.Uint32(v[8:])))
	if m == 0 && e == numberZeroExponent {
		return "0"
	}
	sign := ""
	abs := new(big.Int).SetInt64(m)
	if m < 0 {
		sign = "-"
		abs.Neg(abs)
	}
	if abs.Sign() != 0 && abs.Cmp(bigMinMantissa) < 0 {
		abs.Mul(abs, bigTen)
		e--
	}
	if e != 0 && (e < -28 || e > -8) {
		r := new(big.Int)
		for abs.Sign() != 0 && e < numberMaxExponent {
			q, rem := new(big.Int).QuoRem(abs, bigTen, r)
			if rem.Sign() != 0 {
				break
			}
			abs = q
			e++
		}
		return sign + abs.String() + "e" + strconv.FormatInt(e, 10)
	}
	raw := strings.Repeat("0", 30) + abs.String() + strings.Repeat("0", 26)
	offset := int(e) + 49
	integer := strings.TrimLeft(raw[:offset], "0")
	if integer == "" {
		integer = "0"
	}
	fraction := strings.TrimRight(raw[offset:], "0")
	if fraction != "" {
		return sign + integer + "." + fraction
	}
	return sign + integer
}

// numberBytes writes a Number's text: the mantissa brought into 10^18 …
// 2^63-1 by moving digits into the exponent, rounding half up on the last
// digit dropped; false when the exponent leaves its range.
func numberBytes(text string) ([]byte, bool) {
	neg := strings.HasPrefix(text, "-")
	text = strings.TrimLeft(text, "+-")
	mant, expText, hasExp := strings.Cut(text, "e")
	integer, fraction, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(integer, "0")
	if digits == "" {
		digits = "0"
	}
	exp := int64(0)
	if fraction != "" {
		digits += fraction
		exp -= int64(len(fraction))
	}
	if hasExp {
		x, err := strconv.ParseInt(expText, 10, 32)
		if err != nil {
			return nil, false
		}
		exp += x
	}
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	m, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, false
	}
	out := make([]byte, 12)
	if m.Sign() == 0 {
		z := int32(numberZeroExponent)
		binary.BigEndian.PutUint32(out[8:], uint32(z))
		return out, true
	}
	for m.Cmp(bigMinMantissa) < 0 && exp > numberMinExponent {
		exp--
		m.Mul(m, bigTen)
	}
	last := int64(-1)
	drop := func() {
		exp++
		r := new(big.Int)
		m.QuoRem(m, bigTen, r)
		last = r.Int64()
	}
	for m.Cmp(bigMaxMantissa) > 0 {
		if exp >= numberMaxExponent {
			return nil, false
		}
		drop()
	}
	if exp < numberMinExponent || m.Cmp(bigMinMantissa) < 0 || exp > numberMaxExponent {
		return nil, false
	}
	if m.Cmp(bigMaxInt64) > 0 {
		if exp >= numberMaxExponent {
			return nil, false
		}
		drop()
	}
	if last >= 5 {
		m.Add(m, big.NewInt(1))
		if m.Cmp(bigMaxInt64) > 0 {
			if exp >= numberMaxExponent {
				return nil, false
			}
			drop()
			if last >= 5 {
				m.Add(m, big.NewInt(1))
			}
		}
	}
	mi := m.Int64()
	if neg {
		mi = -mi
	}
	binary.BigEndian.PutUint64(out[:8], uint64(mi))
	binary.BigEndian.PutUint32(out[8:], uint32(int32(exp)))
	return out, true
}
