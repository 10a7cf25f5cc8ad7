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

func cube(x *fe) {
	var s fe
	feSquare(&s, x)
	feMul(x, x, &s)
}

// mix applies the MDS matrix: with t = a+b+c, (t+2a, t-2b, t-3c).
func mix(s *[3]fe) {
	var t, u fe
	feAdd(&t, &s[0], &s[1])
	feAdd(&t, &t, &s[2])
	feAdd(&u, &s[0], &s[0])
	feAdd(&s[0], &t, &u)
	feAdd(&u, &s[1], &s[1])
	feSub(&s[1], &t, &u)
	feAdd(&u, &s[2], &s[2])
	feAdd(&u, &u, &s[2])
	feSub(&s[2], &t, &u)
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
	feAdd(&s[0], &s[0], &c[0])
	feAdd(&s[1], &s[1], &c[1])
	feAdd(&s[2], &s[2], &c[2])
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
	for i := range partialConstants {
		feAdd(&s[2], &s[2], &partialConstants[i])
		cube(&s[2])
		mix(s)
	}
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
	var one = toFE(Felt{1})
	i := 0
	for ; i+1 < len(values); i += 2 {
		a, b := toFE(values[i]), toFE(values[i+1])
		feAdd(&s[0], &s[0], &a)
		feAdd(&s[1], &s[1], &b)
		permute(&s)
	}
	if i < len(values) {
		a := toFE(values[i])
		feAdd(&s[0], &s[0], &a)
		feAdd(&s[1], &s[1], &one)
	} else {
		feAdd(&s[0], &s[0], &one)
	}
	permute(&s)
	return s[0].felt()
}
