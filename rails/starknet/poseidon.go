package starknet

// Starknet's Poseidon: the Hades permutation over three felts, 8 full and
// 83 partial rounds, S-box x^3, MDS matrix [[3,1,1],[1,-1,1],[1,1,-2]].
// Its round constants are derived as cairo-lang defines them: the i-th is
// SHA-256 of the ASCII text "Hades" followed by i in decimal, read
// big-endian and reduced modulo P
// (https://github.com/starkware-libs/cairo-lang/blob/master/src/starkware/cairo/common/poseidon_utils.py,
// generate_round_constant), so nothing here is a table copied from
// elsewhere; TestPoseidon checks the derivation against published hashes.

import (
	"crypto/sha256"
	"math/big"
	"math/bits"
	"strconv"
)

const (
	fullRounds    = 8
	partialRounds = 83
	nRounds       = fullRounds + partialRounds
)

// roundConstants are the 3·91 constants in Montgomery form.
var roundConstants = func() [3 * nRounds]fe {
	var out [3 * nRounds]fe
	for i := range out {
		d := sha256.Sum256([]byte("Hades" + strconv.Itoa(i)))
		v := new(big.Int).SetBytes(d[:])
		out[i] = toFE(feltOfBig(v.Mod(v, PBig)))
	}
	return out
}()

// cube is x³ for x below 4P (a state element with a round constant
// added and not reduced); the result is below P.
func cube(x *fe) {
	var s fe
	feSquare(&s, x)
	feMul(x, x, &s)
}

// mix applies the MDS matrix: with t = a+b+c, (t+2a, t-2b, t-3c). The
// three are summed in four limbs without reduction (each element is below
// P < 2^252, so t+2a < 5P, and 2P and 3P added before the subtractions
// keep t-2b and t-3c positive and below 6P, all below 2^256), then each
// is reduced once by reduceWide: nine field additions' reductions become
// three.
func mix(s *[3]fe) {
	a, b, c := &s[0], &s[1], &s[2]
	var k uint64
	// t = a + b + c
	t0, k := bits.Add64(a[0], b[0], 0)
	t1, k := bits.Add64(a[1], b[1], k)
	t2, k := bits.Add64(a[2], b[2], k)
	t3, _ := bits.Add64(a[3], b[3], k)
	t0, k = bits.Add64(t0, c[0], 0)
	t1, k = bits.Add64(t1, c[1], k)
	t2, k = bits.Add64(t2, c[2], k)
	t3, _ = bits.Add64(t3, c[3], k)

	// u = t + 2a
	u0, k := bits.Add64(t0, a[0]<<1, 0)
	u1, k := bits.Add64(t1, a[1]<<1|a[0]>>63, k)
	u2, k := bits.Add64(t2, a[2]<<1|a[1]>>63, k)
	u3, _ := bits.Add64(t3, a[3]<<1|a[2]>>63, k)

	// v = t + 2P - 2b
	v0, k := bits.Add64(t0, 2, 0)
	v1, k := bits.Add64(t1, 0, k)
	v2, k := bits.Add64(t2, 0, k)
	v3, _ := bits.Add64(t3, 2*0x0800000000000011, k)
	v0, k = bits.Sub64(v0, b[0]<<1, 0)
	v1, k = bits.Sub64(v1, b[1]<<1|b[0]>>63, k)
	v2, k = bits.Sub64(v2, b[2]<<1|b[1]>>63, k)
	v3, _ = bits.Sub64(v3, b[3]<<1|b[2]>>63, k)

	// w = t + 3P - 3c, 3c = 2c + c
	w0, k := bits.Add64(t0, 3, 0)
	w1, k := bits.Add64(t1, 0, k)
	w2, k := bits.Add64(t2, 0, k)
	w3, _ := bits.Add64(t3, 3*0x0800000000000011, k)
	w0, k = bits.Sub64(w0, c[0]<<1, 0)
	w1, k = bits.Sub64(w1, c[1]<<1|c[0]>>63, k)
	w2, k = bits.Sub64(w2, c[2]<<1|c[1]>>63, k)
	w3, _ = bits.Sub64(w3, c[3]<<1|c[2]>>63, k)
	w0, k = bits.Sub64(w0, c[0], 0)
	w1, k = bits.Sub64(w1, c[1], k)
	w2, k = bits.Sub64(w2, c[2], k)
	w3, _ = bits.Sub64(w3, c[3], k)

	reduceWide(a, u0, u1, u2, u3)
	reduceWide(b, v0, v1, v2, v3)
	reduceWide(c, w0, w1, w2, w3)
}

// partialMix is mix after a partial round, over (a, σ = a + b, c) with c
// the S-box's output: the matrix gives a' = σ + c + 2a, b' = σ + c - 2b
// and c' = σ - 2c, so with A = 2a + c, a' = A + σ and σ' = a' + b' = 2A
// (as b = σ - a). Only c' goes through the next S-box, and it is left
// unreduced: σ + 2P - 2c is below 3P, and with the next constant added
// below 4P, which cube takes. Two reductions a round where mix makes
// three, and about half the additions; the last c is reduced after the
// rounds and b recovered as σ - a.
func partialMix(a, sig, c *fe) {
	var k uint64
	// A = 2a + c, below 3P.
	A0, k := bits.Add64(a[0]<<1, c[0], 0)
	A1, k := bits.Add64(a[1]<<1|a[0]>>63, c[1], k)
	A2, k := bits.Add64(a[2]<<1|a[1]>>63, c[2], k)
	A3, _ := bits.Add64(a[3]<<1|a[2]>>63, c[3], k)
	// c' = σ + 2P - 2c, in (0, 3P).
	v0, k := bits.Add64(sig[0], 2, 0)
	v1, k := bits.Add64(sig[1], 0, k)
	v2, k := bits.Add64(sig[2], 0, k)
	v3, _ := bits.Add64(sig[3], 2*0x0800000000000011, k)
	c0, k := bits.Sub64(v0, c[0]<<1, 0)
	c1, k := bits.Sub64(v1, c[1]<<1|c[0]>>63, k)
	c2, k := bits.Sub64(v2, c[2]<<1|c[1]>>63, k)
	c3, _ := bits.Sub64(v3, c[3]<<1|c[2]>>63, k)
	// a' = A + σ, below 4P.
	u0, k := bits.Add64(A0, sig[0], 0)
	u1, k := bits.Add64(A1, sig[1], k)
	u2, k := bits.Add64(A2, sig[2], k)
	u3, _ := bits.Add64(A3, sig[3], k)
	c[0], c[1], c[2], c[3] = c0, c1, c2, c3
	reduceWide(a, u0, u1, u2, u3)
	// σ' = 2A, below 6P.
	reduceWide(sig, A0<<1, A1<<1|A0>>63, A2<<1|A1>>63, A3<<1|A2>>63)
}

// reduceWide is z = t mod P for any t below 2^256: with q = t >> 251,
// t - q·P = (t mod 2^251) - q·(17·2^192 + 1) lies in (-P, P), so P is
// added back under the borrow's mask.
func reduceWide(z *fe, t0, t1, t2, t3 uint64) {
	q := t3 >> 59
	r0, b := bits.Sub64(t0, q, 0)
	r1, b := bits.Sub64(t1, 0, b)
	r2, b := bits.Sub64(t2, 0, b)
	r3, b := bits.Sub64(t3, q*0x0800000000000011, b)
	mask := -b
	var c uint64
	z[0], c = bits.Add64(r0, 1&mask, 0)
	z[1], c = bits.Add64(r1, 0, c)
	z[2], c = bits.Add64(r2, 0, c)
	z[3], _ = bits.Add64(r3, 0x0800000000000011&mask, c)
}

// addLazy is z = x + y without reduction, for sums that stay below 4P
// (an element below P and a constant below P), which feSquare and feMul
// take as they are.
func addLazy(z, x, y *fe) {
	var k uint64
	z[0], k = bits.Add64(x[0], y[0], 0)
	z[1], k = bits.Add64(x[1], y[1], k)
	z[2], k = bits.Add64(x[2], y[2], k)
	z[3], _ = bits.Add64(x[3], y[3], k)
}

// partialConstants folds the partial rounds' constants so that each
// partial round adds one constant, to the element its S-box takes, instead
// of three: the constants added to the other two elements pass through the
// S-box untouched and the linear mix after it, so they are carried forward
// as a vector that is mixed along and added into the next round, and what
// is left after the last partial round joins the constants of the first
// full round after them. It is the same permutation (TestPoseidon), with
// 166 fewer field additions.
var partialConstants, carriedConstants = func() (pc [partialRounds]fe, last [3]fe) {
	var carry [3]fe
	k := 3 * fullRounds / 2
	for i := 0; i < partialRounds; i++ {
		var d [3]fe
		for j := range d {
			feAdd(&d[j], &carry[j], &roundConstants[k+3*i+j])
		}
		pc[i] = d[2]
		carry = [3]fe{d[0], d[1], {}}
		mix(&carry)
	}
	k += 3 * partialRounds
	for j := range last {
		feAdd(&last[j], &carry[j], &roundConstants[k+j])
	}
	return pc, last
}()

func fullRound(s *[3]fe, c *[3]fe) {
	addLazy(&s[0], &s[0], &c[0])
	addLazy(&s[1], &s[1], &c[1])
	addLazy(&s[2], &s[2], &c[2])
	cube(&s[0])
	cube(&s[1])
	cube(&s[2])
	mix(s)
}

// permute is Hades over s.
func permute(s *[3]fe) {
	for i := 0; i < fullRounds/2; i++ {
		fullRound(s, (*[3]fe)(roundConstants[3*i:]))
	}
	// The partial rounds keep (a, σ = a + b, c): see partialMix.
	var sig fe
	feAdd(&sig, &s[0], &s[1])
	for i := range partialConstants {
		addLazy(&s[2], &s[2], &partialConstants[i])
		cube(&s[2])
		partialMix(&s[0], &sig, &s[2])
	}
	c := s[2]
	reduceWide(&s[2], c[0], c[1], c[2], c[3])
	feSub(&s[1], &sig, &s[0])
	k := 3 * (fullRounds/2 + partialRounds)
	fullRound(s, &carriedConstants)
	for i := 1; i < fullRounds/2; i++ {
		fullRound(s, (*[3]fe)(roundConstants[k+3*i:]))
	}
}

// Permute is the Hades permutation over three felts, for tests.
func Permute(a, b, c Felt) [3]Felt {
	s := [3]fe{toFE(a), toFE(b), toFE(c)}
	permute(&s)
	return [3]Felt{s[0].felt(), s[1].felt(), s[2].felt()}
}

// PoseidonHash is Starknet's poseidon_hash(x, y): the permutation of (x,
// y, 2), its first element.
func PoseidonHash(x, y Felt) Felt {
	s := [3]fe{toFE(x), toFE(y), toFE(Felt{2})}
	permute(&s)
	return s[0].felt()
}

// PoseidonHashMany is Starknet's poseidon_hash_many: the values followed by
// 1, padded with 0 to an even length, absorbed two at a time.
func PoseidonHashMany(values ...Felt) Felt {
	var s [3]fe
	return hashManyFrom(&s, values)
}

// absorbed is the state after the first two values of a hash_many, for a
// pair that begins many hashes (hashManyFrom goes on from it).
func absorbed(a, b Felt) [3]fe {
	s := [3]fe{toFE(a), toFE(b), {}}
	permute(&s)
	return s
}

// hashManyFrom is hash_many's absorption of values from the state s, the
// state after an even number of values before them.
func hashManyFrom(s *[3]fe, values []Felt) Felt {
	var one = toFE(Felt{1})
	i := 0
	for ; i+1 < len(values); i += 2 {
		a, b := toFE(values[i]), toFE(values[i+1])
		feAdd(&s[0], &s[0], &a)
		feAdd(&s[1], &s[1], &b)
		permute(s)
	}
	if i < len(values) {
		a := toFE(values[i])
		feAdd(&s[0], &s[0], &a)
		feAdd(&s[1], &s[1], &one)
	} else {
		feAdd(&s[0], &s[0], &one)
	}
	permute(s)
	return s[0].felt()
}
