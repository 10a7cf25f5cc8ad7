package starknet

// Starknet's field: the integers modulo P = 2^251 + 17·2^192 + 1, the
// field of every felt and of the Stark curve's coordinates
// (https://docs.starknet.io/architecture/cryptography/). Felt is a value as
// it is written; fe is the same value in Montgomery form (R = 2^256) over
// four 64-bit limbs, the form Poseidon and the curve compute in, so that a
// multiplication is a few dozen word operations instead of math/big's
// allocations.

import (
	"encoding/hex"
	"math/big"
	"math/bits"
	"strings"
)

// Felt is a field element's value, four little-endian 64-bit limbs, below P.
type Felt [4]uint64

// pLimbs is P.
var pLimbs = [4]uint64{1, 0, 0, 0x0800000000000011}

// PBig is P as a big.Int, for the few places that reduce a wider value.
var PBig = func() *big.Int {
	p := new(big.Int).Lsh(big.NewInt(1), 251)
	p.Add(p, new(big.Int).Lsh(big.NewInt(17), 192))
	return p.Add(p, big.NewInt(1))
}()

// fe is a field element in Montgomery form: x·2^256 mod P.
type fe [4]uint64

// r2 is 2^512 mod P, which moves a value into Montgomery form.
var r2 = func() fe {
	v := new(big.Int).Lsh(big.NewInt(1), 512)
	return fe(feltOfBig(v.Mod(v, PBig)))
}()

var feOne = toFE(Felt{1})

// less reports a < b.
func less(a, b [4]uint64) bool {
	for i := 3; i >= 0; i-- {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// feAdd is z = x + y. P is subtracted always and the borrow picks the
// result, written out here rather than called: a call and a branch on the
// value cost as much as the addition, and Poseidon's rounds are mostly
// additions.
func feAdd(z, x, y *fe) {
	s0, c := bits.Add64(x[0], y[0], 0)
	s1, c := bits.Add64(x[1], y[1], c)
	s2, c := bits.Add64(x[2], y[2], c)
	s3, _ := bits.Add64(x[3], y[3], c) // both below 2^252: no carry out
	r0, b := bits.Sub64(s0, 1, 0)
	r1, b := bits.Sub64(s1, 0, b)
	r2, b := bits.Sub64(s2, 0, b)
	r3, b := bits.Sub64(s3, 0x0800000000000011, b)
	keep := -b // all ones when the sum is below P
	z[0] = r0 ^ ((r0 ^ s0) & keep)
	z[1] = r1 ^ ((r1 ^ s1) & keep)
	z[2] = r2 ^ ((r2 ^ s2) & keep)
	z[3] = r3 ^ ((r3 ^ s3) & keep)
}

// feSub is z = x - y: P is added back under the borrow's mask, not on a
// branch.
func feSub(z, x, y *fe) {
	var c uint64
	d0, b := bits.Sub64(x[0], y[0], 0)
	d1, b := bits.Sub64(x[1], y[1], b)
	d2, b := bits.Sub64(x[2], y[2], b)
	d3, b := bits.Sub64(x[3], y[3], b)
	mask := -b
	z[0], c = bits.Add64(d0, 1&mask, 0)
	z[1], c = bits.Add64(d1, 0, c)
	z[2], c = bits.Add64(d2, 0, c)
	z[3], _ = bits.Add64(d3, 0x0800000000000011&mask, c)
}

func feNeg(z, x *fe) {
	var zero fe
	feSub(z, &zero, x)
}

// feMul is Montgomery multiplication, coarsely integrated operand scanning:
// z = x·y·2^-256 mod P, for x and y below 4P (Poseidon adds a round
// constant without reducing; the result is below P all the same, as
// x·y/2^256 + P < 2P then). P ≡ 1 mod 2^64, so -P^-1 mod 2^64 is 2^64-1
// and each round's multiplier is the negated low limb; P's middle limbs
// are zero, so adding m·P touches only the low and high limbs. Each row's
// sums are written as unbroken carry chains (low halves, then high
// halves), which the compiler turns into ADC sequences; between rows the
// accumulator is below 2^255, so no fifth limb outlives a row.
func feMul(z, x, y *fe) {
	x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
	var t0, t1, t2, t3, t4, c uint64

	// Row 0: t = x·y0.
	y0 := y[0]
	h0, l0 := bits.Mul64(x0, y0)
	h1, l1 := bits.Mul64(x1, y0)
	h2, l2 := bits.Mul64(x2, y0)
	h3, l3 := bits.Mul64(x3, y0)
	t0 = l0
	t1, c = bits.Add64(l1, h0, 0)
	t2, c = bits.Add64(l2, h1, c)
	t3, c = bits.Add64(l3, h2, c)
	t4 = h3 + c
	t0, t1, t2, t3 = montRound(t0, t1, t2, t3, t4)

	for _, yi := range y[1:] {
		h0, l0 = bits.Mul64(x0, yi)
		h1, l1 = bits.Mul64(x1, yi)
		h2, l2 = bits.Mul64(x2, yi)
		h3, l3 = bits.Mul64(x3, yi)
		t0, c = bits.Add64(t0, l0, 0)
		t1, c = bits.Add64(t1, l1, c)
		t2, c = bits.Add64(t2, l2, c)
		t3, c = bits.Add64(t3, l3, c)
		t4 = h3 + c
		t1, c = bits.Add64(t1, h0, 0)
		t2, c = bits.Add64(t2, h1, c)
		t3, c = bits.Add64(t3, h2, c)
		t4 += c
		t0, t1, t2, t3 = montRound(t0, t1, t2, t3, t4)
	}
	feReduceOnce(z, t0, t1, t2, t3)
}

// montRound adds m·P to the five limbs t, m = -t0 so that the low limb
// becomes zero, and shifts that limb out. m·1 + t0 is 0 mod 2^64 with a
// carry of 1 unless t0 is 0.
func montRound(t0, t1, t2, t3, t4 uint64) (uint64, uint64, uint64, uint64) {
	m := -t0
	_, c := bits.Add64(t0, m, 0)
	r0, c := bits.Add64(t1, 0, c)
	r1, c := bits.Add64(t2, 0, c)
	hi, lo := bits.Mul64(m, 0x0800000000000011)
	r2, c := bits.Add64(t3, lo, c)
	r3 := t4 + hi + c
	return r0, r1, r2, r3
}

// feReduceOnce is z = t or t - P, whichever is below P, for t below 2P.
func feReduceOnce(z *fe, t0, t1, t2, t3 uint64) {
	r0, b := bits.Sub64(t0, 1, 0)
	r1, b := bits.Sub64(t1, 0, b)
	r2, b := bits.Sub64(t2, 0, b)
	r3, b := bits.Sub64(t3, 0x0800000000000011, b)
	keep := -b // all ones when t is below P
	z[0] = r0 ^ ((r0 ^ t0) & keep)
	z[1] = r1 ^ ((r1 ^ t1) & keep)
	z[2] = r2 ^ ((r2 ^ t2) & keep)
	z[3] = r3 ^ ((r3 ^ t3) & keep)
}

// feSquare is z = x²·2^-256 mod P for x below 4P: the six cross products
// once, doubled, the four squares added, then the four reduction rounds
// over the eight limbs (separated operand scanning), ten multiplications
// for the product where feMul takes sixteen.
func feSquare(z, x *fe) {
	x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
	var c, c2 uint64
	// Cross products x_i·x_j, i < j, into limbs 1..6.
	h01, t1 := bits.Mul64(x0, x1)
	h02, l02 := bits.Mul64(x0, x2)
	h03, l03 := bits.Mul64(x0, x3)
	t2, c := bits.Add64(h01, l02, 0)
	t3, c := bits.Add64(h02, l03, c)
	t4 := h03 + c
	h12, l12 := bits.Mul64(x1, x2)
	h13, l13 := bits.Mul64(x1, x3)
	t3, c = bits.Add64(t3, l12, 0)
	t4, c = bits.Add64(t4, h12, c)
	t5 := h13 + c
	t4, c = bits.Add64(t4, l13, 0)
	h23, l23 := bits.Mul64(x2, x3)
	t5, c = bits.Add64(t5, l23, c)
	t6 := h23 + c
	// Doubled: x < 2^254, so the cross sum is below 2^507 and its double
	// fits the eight limbs.
	t7 := t6 >> 63
	t6 = t6<<1 | t5>>63
	t5 = t5<<1 | t4>>63
	t4 = t4<<1 | t3>>63
	t3 = t3<<1 | t2>>63
	t2 = t2<<1 | t1>>63
	t1 <<= 1
	// The squares on the diagonal.
	s0h, t0 := bits.Mul64(x0, x0)
	s1h, s1l := bits.Mul64(x1, x1)
	s2h, s2l := bits.Mul64(x2, x2)
	s3h, s3l := bits.Mul64(x3, x3)
	t1, c = bits.Add64(t1, s0h, 0)
	t2, c = bits.Add64(t2, s1l, c)
	t3, c = bits.Add64(t3, s1h, c)
	t4, c = bits.Add64(t4, s2l, c)
	t5, c = bits.Add64(t5, s2h, c)
	t6, c = bits.Add64(t6, s3l, c)
	t7, _ = bits.Add64(t7, s3h, c)
	// Four reduction rounds; each round's carry out of its top limb goes
	// into the next round's top limb, with that round's high product
	// (below 2^60, so the sum does not wrap).
	var hi, lo, m uint64
	m = -t0
	_, c = bits.Add64(t0, m, 0)
	t1, c = bits.Add64(t1, 0, c)
	t2, c = bits.Add64(t2, 0, c)
	hi, lo = bits.Mul64(m, 0x0800000000000011)
	t3, c = bits.Add64(t3, lo, c)
	t4, c2 = bits.Add64(t4, hi, c)

	m = -t1
	_, c = bits.Add64(t1, m, 0)
	t2, c = bits.Add64(t2, 0, c)
	t3, c = bits.Add64(t3, 0, c)
	hi, lo = bits.Mul64(m, 0x0800000000000011)
	t4, c = bits.Add64(t4, lo, c)
	t5, c2 = bits.Add64(t5, hi+c2, c)

	m = -t2
	_, c = bits.Add64(t2, m, 0)
	t3, c = bits.Add64(t3, 0, c)
	t4, c = bits.Add64(t4, 0, c)
	hi, lo = bits.Mul64(m, 0x0800000000000011)
	t5, c = bits.Add64(t5, lo, c)
	t6, c2 = bits.Add64(t6, hi+c2, c)

	m = -t3
	_, c = bits.Add64(t3, m, 0)
	t4, c = bits.Add64(t4, 0, c)
	t5, c = bits.Add64(t5, 0, c)
	hi, lo = bits.Mul64(m, 0x0800000000000011)
	t6, c = bits.Add64(t6, lo, c)
	t7, _ = bits.Add64(t7, hi+c2, c)
	feReduceOnce(z, t4, t5, t6, t7)
}

// feInv is x^-1, zero for zero. math/big's extended Euclid over the
// plain value takes a few microseconds where x^(P-2) takes some 450
// Montgomery multiplications; it is not constant-time, which the curve's
// note allows.
func feInv(z, x *fe) {
	if x.isZero() {
		*z = fe{}
		return
	}
	v := x.felt().Big()
	v.ModInverse(v, PBig)
	*z = toFE(feltOfBig(v))
}

func toFE(f Felt) fe {
	x := fe(f)
	var z fe
	feMul(&z, &x, &r2)
	return z
}

func (x *fe) felt() Felt {
	one := fe{1}
	var z fe
	feMul(&z, x, &one)
	return Felt(z)
}

func (x *fe) isZero() bool { return x[0]|x[1]|x[2]|x[3] == 0 }

// feltOfBig reads v, which must be below 2^256.
func feltOfBig(v *big.Int) Felt {
	var b [32]byte
	v.FillBytes(b[:])
	return FeltOfBytes(b)
}

// FeltOfBytes reads 32 big-endian bytes; the value may be P or more, which
// the callers reduce or refuse.
func FeltOfBytes(b [32]byte) Felt {
	var f Felt
	for i := 0; i < 4; i++ {
		for j := 0; j < 8; j++ {
			f[3-i] = f[3-i]<<8 | uint64(b[8*i+j])
		}
	}
	return f
}

// Bytes is f as 32 big-endian bytes.
func (f Felt) Bytes() [32]byte {
	var b [32]byte
	for i := 0; i < 4; i++ {
		w := f[3-i]
		for j := 7; j >= 0; j-- {
			b[8*i+j] = byte(w)
			w >>= 8
		}
	}
	return b
}

// Big is f as a big.Int.
func (f Felt) Big() *big.Int {
	b := f.Bytes()
	return new(big.Int).SetBytes(b[:])
}

// IsZero reports f = 0.
func (f Felt) IsZero() bool { return f == Felt{} }

// InField reports f < P.
func (f Felt) InField() bool { return less(f, pLimbs) }

const hexDigits = "0123456789abcdef"

// String is f as Starknet writes a felt: 0x and lowercase hex without
// leading zeros, 0x0 for zero.
func (f Felt) String() string {
	var buf [66]byte
	buf[0], buf[1] = '0', 'x'
	n := 2
	started := false
	for i := 3; i >= 0; i-- {
		for s := 60; s >= 0; s -= 4 {
			d := (f[i] >> uint(s)) & 0xf
			if d == 0 && !started {
				continue
			}
			started = true
			buf[n] = hexDigits[d]
			n++
		}
	}
	if !started {
		buf[n] = '0'
		n++
	}
	return string(buf[:n])
}

// Padded is f as 0x and 64 lowercase hex digits.
func (f Felt) Padded() string {
	b := f.Bytes()
	return "0x" + hex.EncodeToString(b[:])
}

// ParseFelt reads a felt as x402's Starknet scheme writes one: 0x (or 0X)
// and 1 to 64 hex digits of either case, below P.
func ParseFelt(s string) (Felt, bool) {
	if len(s) < 3 || len(s) > 66 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return Felt{}, false
	}
	// Each digit is placed by its position from the right, not shifted in
	// through all four limbs: the typed data and payment hold some sixty
	// felts a payment, read more than once.
	var f Felt
	for i, n := len(s)-1, uint(0); i >= 2; i, n = i-1, n+1 {
		c := s[i]
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return Felt{}, false
		}
		f[n>>4] |= d << (4 * (n & 15))
	}
	return f, f.InField()
}

// ParseDecimalFelt reads a decimal felt without leading zeros, below P.
func ParseDecimalFelt(s string) (Felt, bool) {
	if s == "" || len(s) > 78 || len(s) > 1 && s[0] == '0' {
		return Felt{}, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return Felt{}, false
		}
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.Cmp(PBig) >= 0 {
		return Felt{}, false
	}
	return feltOfBig(v), true
}

// FeltOfUint64 is n as a felt.
func FeltOfUint64(n uint64) Felt { return Felt{n} }

// ShortString encodes s, 1 to 31 ASCII characters, as Cairo's short
// string: its bytes as a big-endian number.
func ShortString(s string) (Felt, bool) {
	if s == "" || len(s) > 31 {
		return Felt{}, false
	}
	var b [32]byte
	for i := 0; i < len(s); i++ {
		if s[i] > 0x7f {
			return Felt{}, false
		}
	}
	copy(b[32-len(s):], s)
	return FeltOfBytes(b), true
}

// DecodeShortString is the ASCII text of a short-string felt, or false.
func DecodeShortString(f Felt) (string, bool) {
	b := f.Bytes()
	s := strings.TrimLeft(string(b[:]), "\x00")
	if s == "" || len(s) > 31 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return "", false
		}
	}
	return s, true
}
