package starknet

// The Stark curve, y^2 = x^3 + x + β over Starknet's field, and its ECDSA
// as Starknet accounts verify it (parameters from
// https://docs.starknet.io/architecture/cryptography/#the_stark_curve).
// A public key is its point's x coordinate; a signature is (r, s) with the
// nonce k from RFC 6979's HMAC-SHA-256 construction, so the same key and
// message give the same signature. The scalar multiplication is not
// constant-time: it serves a local development key (signer.Starknet), not
// a key on shared hardware.

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"hash"
	"math/big"
	"sync"
)

var (
	curveBeta = mustFelt("0x6f21413efbe40de150e596d72f7a8c5609ad26c15c915c1f4cdfcb99cee9e89")
	curveGx   = mustFelt("0x1ef15c18599971b7beced415a40f0c7deacfd9b0d1819e03d723d8bc943cfca")
	curveGy   = mustFelt("0x5668060aa49730b7be4801df46ec62de53ecd11abe43a32873000c36e8dc1f")
	// CurveOrder is the order N of the generator.
	CurveOrder, _ = new(big.Int).SetString("800000000000010ffffffffffffffffb781126dcae7b2321e66a241adc64d2f", 16)
	two251        = new(big.Int).Lsh(big.NewInt(1), 251)
	betaFE        = toFE(curveBeta)
	generator     = affine{toFE(curveGx), toFE(curveGy)}
)

func mustFelt(s string) Felt {
	f, ok := ParseFelt(s)
	if !ok {
		panic("starknet: bad constant " + s)
	}
	return f
}

type affine struct{ x, y fe }

// jac is a point in Jacobian coordinates (X/Z^2, Y/Z^3); Z = 0 is the point
// at infinity.
type jac struct{ x, y, z fe }

func (p *affine) jac() jac { return jac{p.x, p.y, feOne} }

func (p *jac) double() jac {
	if p.z.isZero() {
		return *p
	}
	var xx, yy, yyyy, zz, s, m, t, x3, y3, z3 fe
	feSquare(&xx, &p.x)
	feSquare(&yy, &p.y)
	feSquare(&yyyy, &yy)
	feSquare(&zz, &p.z)
	feMul(&s, &p.x, &yy)
	feAdd(&s, &s, &s)
	feAdd(&s, &s, &s) // 4·X·Y²
	feAdd(&m, &xx, &xx)
	feAdd(&m, &m, &xx)
	feSquare(&t, &zz)
	feAdd(&m, &m, &t) // 3·X² + a·Z⁴, a = 1
	feSquare(&x3, &m)
	feSub(&x3, &x3, &s)
	feSub(&x3, &x3, &s)
	feSub(&t, &s, &x3)
	feMul(&y3, &m, &t)
	feAdd(&t, &yyyy, &yyyy)
	feAdd(&t, &t, &t)
	feAdd(&t, &t, &t) // 8·Y⁴
	feSub(&y3, &y3, &t)
	feMul(&z3, &p.y, &p.z)
	feAdd(&z3, &z3, &z3)
	return jac{x3, y3, z3}
}

func (p *jac) add(q *jac) jac {
	if p.z.isZero() {
		return *q
	}
	if q.z.isZero() {
		return *p
	}
	var z1z1, z2z2, u1, u2, s1, s2, h, r, hh, hhh, v, x3, y3, z3, t fe
	feSquare(&z1z1, &p.z)
	feSquare(&z2z2, &q.z)
	feMul(&u1, &p.x, &z2z2)
	feMul(&u2, &q.x, &z1z1)
	feMul(&s1, &p.y, &q.z)
	feMul(&s1, &s1, &z2z2)
	feMul(&s2, &q.y, &p.z)
	feMul(&s2, &s2, &z1z1)
	feSub(&h, &u2, &u1)
	feSub(&r, &s2, &s1)
	if h.isZero() {
		if r.isZero() {
			return p.double()
		}
		return jac{}
	}
	feSquare(&hh, &h)
	feMul(&hhh, &h, &hh)
	feMul(&v, &u1, &hh)
	feSquare(&x3, &r)
	feSub(&x3, &x3, &hhh)
	feSub(&x3, &x3, &v)
	feSub(&x3, &x3, &v)
	feSub(&t, &v, &x3)
	feMul(&y3, &r, &t)
	feMul(&t, &s1, &hhh)
	feSub(&y3, &y3, &t)
	feMul(&z3, &p.z, &q.z)
	feMul(&z3, &z3, &h)
	return jac{x3, y3, z3}
}

// affineX is the affine x coordinate alone, all a signature or a public
// key needs (two multiplications fewer than affine).
func (p *jac) affineX() (fe, bool) {
	if p.z.isZero() {
		return fe{}, false
	}
	var zi, zi2, x fe
	feInv(&zi, &p.z)
	feSquare(&zi2, &zi)
	feMul(&x, &p.x, &zi2)
	return x, true
}

func (p *jac) affine() (affine, bool) {
	if p.z.isZero() {
		return affine{}, false
	}
	var zi, zi2, zi3 fe
	feInv(&zi, &p.z)
	feSquare(&zi2, &zi)
	feMul(&zi3, &zi2, &zi)
	var a affine
	feMul(&a.x, &p.x, &zi2)
	feMul(&a.y, &p.y, &zi3)
	return a, true
}

// mul is k·p by 4-bit windows, most significant first.
func mul(p affine, k *big.Int) jac {
	var table [16]jac
	table[1] = p.jac()
	for i := 2; i < 16; i++ {
		table[i] = table[i-1].add(&table[1])
	}
	var b [32]byte
	k.FillBytes(b[:])
	var acc jac
	for _, c := range b {
		for _, nib := range [2]byte{c >> 4, c & 0xf} {
			acc = acc.double()
			acc = acc.double()
			acc = acc.double()
			acc = acc.double()
			if nib != 0 {
				acc = acc.add(&table[nib])
			}
		}
	}
	return acc
}

// addAffine is p + q for an affine q that is not the point at infinity
// (mixed addition: q's Z is 1, which saves four multiplications).
func (p *jac) addAffine(q *affine) jac {
	if p.z.isZero() {
		return q.jac()
	}
	var z1z1, u2, s2, h, r, hh, hhh, v, x3, y3, z3, t fe
	feSquare(&z1z1, &p.z)
	feMul(&u2, &q.x, &z1z1)
	feMul(&s2, &q.y, &p.z)
	feMul(&s2, &s2, &z1z1)
	feSub(&h, &u2, &p.x)
	feSub(&r, &s2, &p.y)
	if h.isZero() {
		if r.isZero() {
			return p.double()
		}
		return jac{}
	}
	feSquare(&hh, &h)
	feMul(&hhh, &h, &hh)
	feMul(&v, &p.x, &hh)
	feSquare(&x3, &r)
	feSub(&x3, &x3, &hhh)
	feSub(&x3, &x3, &v)
	feSub(&x3, &x3, &v)
	feSub(&t, &v, &x3)
	feMul(&y3, &r, &t)
	feMul(&t, &p.y, &hhh)
	feSub(&y3, &y3, &t)
	feMul(&z3, &p.z, &h)
	return jac{x3, y3, z3}
}

// baseTable[i][j-1] is j·32^i·G in affine form, j = 1..16, for the
// generator's fixed-base multiplication: k is written in 52 signed
// base-32 digits in [-15, 16] and k·G is one mixed addition for each
// nonzero digit (a negative one adds the point with y negated) and no
// doubling, which is what signing (k·G for the nonce) and the key's
// public key cost instead of 252 doublings and 63 additions. Signed
// digits take 52 windows of 16 points where unsigned 4-bit ones took 64
// of 15: about 50 additions instead of 60, and 832 points to build
// instead of 960. It is built on first use (about 850 additions and one
// batched inversion), not at start, so a program that never signs does
// not pay for it.
const (
	baseWindows = 52 // 52·5 = 260 bits: any k below 2^256 and its last carry
	baseHalf    = 16
)

var (
	baseTable     [baseWindows][baseHalf]affine
	baseTableOnce sync.Once
)

func buildBaseTable() {
	var js [baseWindows * baseHalf]jac
	step := generator.jac() // 32^i·G
	for i := 0; i < baseWindows; i++ {
		js[baseHalf*i] = step
		for j := 1; j < baseHalf; j++ {
			js[baseHalf*i+j] = js[baseHalf*i+j-1].add(&step)
		}
		step = js[baseHalf*i+baseHalf-1].double() // 32·32^i·G
	}
	// Montgomery's batch inversion: one inversion for all the Z's. None
	// is zero: each point is m·G for m = j·2^(5i), never a multiple of
	// the odd prime N.
	var prefix [baseWindows * baseHalf]fe
	acc := feOne
	for i := range js {
		prefix[i] = acc
		feMul(&acc, &acc, &js[i].z)
	}
	var inv fe
	feInv(&inv, &acc)
	for i := len(js) - 1; i >= 0; i-- {
		var zi, zi2, zi3 fe
		feMul(&zi, &inv, &prefix[i])
		feMul(&inv, &inv, &js[i].z)
		feSquare(&zi2, &zi)
		feMul(&zi3, &zi2, &zi)
		a := &baseTable[i/baseHalf][i%baseHalf]
		feMul(&a.x, &js[i].x, &zi2)
		feMul(&a.y, &js[i].y, &zi3)
	}
}

// mulBase is k·G for 0 <= k < 2^256 from baseTable.
func mulBase(k *big.Int) jac {
	baseTableOnce.Do(buildBaseTable)
	f := feltOfBig(k)
	var acc jac
	carry := uint64(0)
	for i := 0; i < baseWindows; i++ {
		// The five bits at 5i, across a limb boundary where they fall
		// on one, plus the carry from the window below.
		pos := 5 * i
		var w uint64
		if limb, off := pos/64, uint(pos%64); limb < 4 {
			w = f[limb] >> off
			if off > 59 && limb < 3 {
				w |= f[limb+1] << (64 - off)
			}
		}
		w = w&31 + carry // 0..32
		// A digit above 16 is taken as w - 32 (-15..0) with 1 carried up.
		carry = 0
		switch {
		case w > baseHalf:
			carry = 1
			if w < 32 {
				q := baseTable[i][32-w-1]
				feNeg(&q.y, &q.y)
				acc = acc.addAffine(&q)
			}
		case w != 0:
			acc = acc.addAffine(&baseTable[i][w-1])
		}
	}
	return acc
}

// onCurve reports y² = x³ + x + β.
func onCurve(p affine) bool {
	var l, r fe
	feSquare(&l, &p.y)
	feSquare(&r, &p.x)
	feMul(&r, &r, &p.x)
	feAdd(&r, &r, &p.x)
	feAdd(&r, &r, &betaFE)
	return l == r
}

// PublicKey is the x coordinate of priv·G, or false for a key that is not
// in [1, N).
func PublicKey(priv *big.Int) (Felt, bool) {
	if priv.Sign() <= 0 || priv.Cmp(CurveOrder) >= 0 {
		return Felt{}, false
	}
	j := mulBase(priv)
	x, ok := j.affineX()
	if !ok {
		return Felt{}, false
	}
	return x.felt(), true
}

var errSign = errors.New("starknet: the message hash is not below 2^251, or the key is not in [1, N)")

// Sign signs a message hash below 2^251 with priv, its nonce k from RFC
// 6979 (HMAC-SHA-256, qlen 252): r = (k·G).x, s = (z + r·priv)/k mod N,
// both taken only when r and s^-1 are in [1, 2^251), as Starknet's
// verifier requires.
func Sign(priv *big.Int, z Felt) (r, s Felt, err error) {
	zb := z.Big()
	if zb.Cmp(two251) >= 0 || priv.Sign() <= 0 || priv.Cmp(CurveOrder) >= 0 {
		return Felt{}, Felt{}, errSign
	}
	d := newDRBG(priv, zb)
	for {
		k := d.next()
		j := mulBase(k)
		x, ok := j.affineX()
		if !ok {
			continue
		}
		rb := x.felt().Big()
		rb.Mod(rb, CurveOrder)
		if rb.Sign() == 0 || rb.Cmp(two251) >= 0 {
			continue
		}
		t := new(big.Int).Mul(rb, priv)
		t.Add(t, zb)
		t.Mod(t, CurveOrder)
		if t.Sign() == 0 {
			continue
		}
		// w = k/t must be below 2^251 and s = t/k is its inverse: one
		// inversion serves both, u = (k·t)^-1, w = k²·u, s = t²·u (k·t is
		// not 0 mod the prime N, both being in [1, N)).
		u := new(big.Int).Mul(k, t)
		u.ModInverse(u.Mod(u, CurveOrder), CurveOrder)
		w := new(big.Int).Mul(k, k)
		w.Mod(w, CurveOrder)
		w.Mul(w, u)
		w.Mod(w, CurveOrder)
		if w.Sign() == 0 || w.Cmp(two251) >= 0 {
			continue
		}
		sb := t.Mul(t, t)
		sb.Mod(sb, CurveOrder)
		sb.Mul(sb, u)
		sb.Mod(sb, CurveOrder)
		return feltOfBig(rb), feltOfBig(sb), nil
	}
}

// Verify checks (r, s) over z for the public key pub (an x coordinate):
// r and z below 2^251, s in [1, N) with s^-1 below 2^251, and
// (z·w)·G + (r·w)·Q having x coordinate r for Q = (pub, ±y).
func Verify(pub, z, r, s Felt) bool {
	rb, sb, zb := r.Big(), s.Big(), z.Big()
	if rb.Sign() == 0 || rb.Cmp(two251) >= 0 || zb.Cmp(two251) >= 0 || sb.Sign() == 0 || sb.Cmp(CurveOrder) >= 0 {
		return false
	}
	w := new(big.Int).ModInverse(sb, CurveOrder)
	if w == nil || w.Cmp(two251) >= 0 {
		return false
	}
	q, ok := pointOfX(pub)
	if !ok {
		return false
	}
	u1 := new(big.Int).Mul(zb, w)
	u1.Mod(u1, CurveOrder)
	u2 := new(big.Int).Mul(rb, w)
	u2.Mod(u2, CurveOrder)
	a := mulBase(u1)
	for _, neg := range []bool{false, true} {
		qq := q
		if neg {
			feNeg(&qq.y, &q.y)
		}
		b := mul(qq, u2)
		sum := a.add(&b)
		if p, ok := sum.affine(); ok && p.x.felt() == r {
			return true
		}
	}
	return false
}

// pointOfX is a curve point with x coordinate x, or false.
func pointOfX(x Felt) (affine, bool) {
	if !x.InField() {
		return affine{}, false
	}
	xb := x.Big()
	rhs := new(big.Int).Mul(xb, xb)
	rhs.Mul(rhs, xb)
	rhs.Add(rhs, xb)
	rhs.Add(rhs, curveBeta.Big())
	rhs.Mod(rhs, PBig)
	y := new(big.Int).ModSqrt(rhs, PBig)
	if y == nil {
		return affine{}, false
	}
	return affine{toFE(x), toFE(feltOfBig(y))}, true
}

// drbg is RFC 6979 section 3.2's HMAC-SHA-256 generator for qlen = 252.
// Step h.3's update after a candidate (K = HMAC_K(V || 0), V = HMAC_K(V))
// is made when the next candidate is asked for, not before: the sequence
// is the same, and a signature whose first candidate serves (nearly all)
// saves two HMACs.
type drbg struct {
	k, v    [32]byte
	pending bool
	h       hash.Hash // HMAC under k, made again when k changes
}

func newDRBG(priv, z *big.Int) *drbg {
	h1 := new(big.Int).Mod(z, CurveOrder)
	d := &drbg{}
	for i := range d.v {
		d.v[i] = 1
	}
	var seed [64]byte
	priv.FillBytes(seed[:32])
	h1.FillBytes(seed[32:])
	d.rekey(d.mac(d.v[:], []byte{0}, seed[:]))
	d.v = d.mac(d.v[:])
	d.rekey(d.mac(d.v[:], []byte{1}, seed[:]))
	d.v = d.mac(d.v[:])
	return d
}

// rekey sets K. The HMAC is kept between keys' uses: after its first
// Reset it restores its padded key's hash state instead of hashing the
// key again.
func (d *drbg) rekey(k [32]byte) {
	d.k = k
	d.h = hmac.New(sha256.New, d.k[:])
}

func (d *drbg) mac(parts ...[]byte) [32]byte {
	if d.h == nil {
		d.rekey(d.k)
	}
	d.h.Reset()
	for _, p := range parts {
		d.h.Write(p)
	}
	var out [32]byte
	d.h.Sum(out[:0])
	return out
}

// next is the next candidate k in [1, N).
func (d *drbg) next() *big.Int {
	for {
		if d.pending {
			d.rekey(d.mac(d.v[:], []byte{0}))
			d.v = d.mac(d.v[:])
		}
		d.pending = true
		d.v = d.mac(d.v[:])
		k := new(big.Int).SetBytes(d.v[:])
		k.Rsh(k, 4) // bits2int: the leftmost 252 bits
		if k.Sign() > 0 && k.Cmp(CurveOrder) < 0 {
			return k
		}
	}
}
