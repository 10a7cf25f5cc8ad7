package starknet

// A math/big reference for the field and Poseidon, written from their
// definitions (no Montgomery form, no lazy reduction, no folded
// constants), against which the limb code is compared on random inputs
// and at the edges.

import (
	"crypto/sha256"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"
)

var bigR = new(big.Int).Lsh(big.NewInt(1), 256)

// bigOfFE is the value x stands for (x·2^-256 mod P), read from its limbs
// with math/big alone, so a wrong feMul cannot hide behind felt().
func bigOfFE(x fe) *big.Int {
	v := Felt(x).Big()
	v.Mul(v, new(big.Int).ModInverse(bigR, PBig))
	return v.Mod(v, PBig)
}

// feOfBig is v's Montgomery form, computed with math/big.
func feOfBig(v *big.Int) fe {
	m := new(big.Int).Mul(v, bigR)
	return fe(feltOfBig(m.Mod(m, PBig)))
}

// randomBelow is a random value below limit, now and then one at the
// edges: 0, 1, limit-1, limit-2 and powers of two.
func randomBelow(rng *rand.Rand, limit *big.Int) *big.Int {
	switch rng.IntN(8) {
	case 0:
		return big.NewInt(int64(rng.IntN(2)))
	case 1:
		return new(big.Int).Sub(limit, big.NewInt(int64(1+rng.IntN(2))))
	case 2:
		v := new(big.Int).Lsh(big.NewInt(1), uint(rng.IntN(limit.BitLen())))
		return v.Mod(v, limit)
	}
	var b [40]byte
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	v := new(big.Int).SetBytes(b[:])
	return v.Mod(v, limit)
}

// The multiplication and the squaring agree with math/big for inputs
// below P and for the unreduced ones Poseidon gives them (below 2P: an
// element plus a round constant; up to 4P is allowed), and the results are
// below P.
func TestMulSquareAgreeWithBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	fourP := new(big.Int).Lsh(PBig, 2)
	for i := range 20000 {
		limit := PBig
		if i%2 == 1 {
			limit = fourP
		}
		// a and b are raw limb values (the Montgomery form of a/R mod P).
		a, b := randomBelow(rng, limit), randomBelow(rng, limit)
		x, y := fe(feltOfBig(a)), fe(feltOfBig(b))
		want := new(big.Int).Mul(a, b)
		want.Mul(want, new(big.Int).ModInverse(bigR, PBig))
		want.Mod(want, PBig)
		var z fe
		feMul(&z, &x, &y)
		if Felt(z).Big().Cmp(want) != 0 {
			t.Fatalf("feMul(%x, %x) = %x, want %x", a, b, Felt(z).Big(), want)
		}
		want.Mul(a, a)
		want.Mul(want, new(big.Int).ModInverse(bigR, PBig))
		want.Mod(want, PBig)
		feSquare(&z, &x)
		if Felt(z).Big().Cmp(want) != 0 {
			t.Fatalf("feSquare(%x) = %x, want %x", a, Felt(z).Big(), want)
		}
	}
}

// reduceWide takes any four limbs to their value mod P.
func TestReduceWideAgreesWithBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		v := randomBelow(rng, bigR)
		f := feltOfBig(v)
		var z fe
		reduceWide(&z, f[0], f[1], f[2], f[3])
		if want := new(big.Int).Mod(v, PBig); Felt(z).Big().Cmp(want) != 0 {
			t.Fatalf("reduceWide(%x) = %x, want %x", v, Felt(z).Big(), want)
		}
	}
}

// bigMix is the MDS matrix [[3,1,1],[1,-1,1],[1,1,-2]] over math/big.
func bigMix(s [3]*big.Int) [3]*big.Int {
	m := [3][3]int64{{3, 1, 1}, {1, -1, 1}, {1, 1, -2}}
	var out [3]*big.Int
	for i := range out {
		out[i] = new(big.Int)
		for j := range s {
			out[i].Add(out[i], new(big.Int).Mul(big.NewInt(m[i][j]), s[j]))
		}
		out[i].Mod(out[i], PBig)
	}
	return out
}

func TestMixAgreesWithBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 5000 {
		var in [3]*big.Int
		var s [3]fe
		for j := range in {
			in[j] = randomBelow(rng, PBig)
			s[j] = feOfBig(in[j])
		}
		mix(&s)
		want := bigMix(in)
		for j := range want {
			if bigOfFE(s[j]).Cmp(want[j]) != 0 {
				t.Fatalf("mix(%x)[%d] = %x, want %x", in, j, bigOfFE(s[j]), want[j])
			}
		}
	}
}

// bigPermute is Hades as cairo-lang's poseidon_utils writes it: every
// round adds its three constants (derived here again, not read from
// roundConstants), full rounds cube all three elements, partial rounds the
// last, then the matrix.
func bigPermute(s [3]*big.Int) [3]*big.Int {
	for r := 0; r < nRounds; r++ {
		for j := range s {
			d := sha256.Sum256([]byte("Hades" + strconv.Itoa(3*r+j)))
			c := new(big.Int).SetBytes(d[:])
			s[j] = new(big.Int).Add(s[j], c)
			s[j].Mod(s[j], PBig)
		}
		full := r < fullRounds/2 || r >= fullRounds/2+partialRounds
		for j := range s {
			if full || j == 2 {
				s[j] = new(big.Int).Exp(s[j], big.NewInt(3), PBig)
			}
		}
		s = bigMix(s)
	}
	return s
}

func bigHashMany(values []*big.Int) *big.Int {
	vs := append(append([]*big.Int{}, values...), big.NewInt(1))
	if len(vs)%2 == 1 {
		vs = append(vs, big.NewInt(0))
	}
	s := [3]*big.Int{new(big.Int), new(big.Int), new(big.Int)}
	for i := 0; i < len(vs); i += 2 {
		s[0] = new(big.Int).Mod(new(big.Int).Add(s[0], vs[i]), PBig)
		s[1] = new(big.Int).Mod(new(big.Int).Add(s[1], vs[i+1]), PBig)
		s = bigPermute(s)
	}
	return s[0]
}

// The permutation and the hashes agree with the math/big reference on
// random states, including 0, 1 and P-1.
func TestPoseidonAgreesWithBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 60 {
		var in [3]*big.Int
		var f [3]Felt
		for j := range in {
			in[j] = randomBelow(rng, PBig)
			f[j] = feltOfBig(in[j])
		}
		got := Permute(f[0], f[1], f[2])
		want := bigPermute(in)
		for j := range want {
			if got[j].Big().Cmp(want[j]) != 0 {
				t.Fatalf("permute(%x)[%d] = %s, want %x", in, j, got[j], want[j])
			}
		}
		n := i % 7
		vals := make([]Felt, n)
		bigs := make([]*big.Int, n)
		for j := range vals {
			bigs[j] = randomBelow(rng, PBig)
			vals[j] = feltOfBig(bigs[j])
		}
		if got, want := PoseidonHashMany(vals...), bigHashMany(bigs); got.Big().Cmp(want) != 0 {
			t.Fatalf("hash_many of %d = %s, want %x", n, got, want)
		}
	}
}

// FuzzFieldAgrees: any two 32-byte values, as raw limbs below 4P and as
// felts, multiply, square, reduce, invert and permute as the math/big
// reference does.
func FuzzFieldAgrees(f *testing.F) {
	f.Add(make([]byte, 32), make([]byte, 32))
	f.Add([]byte{1}, []byte{0x08, 0, 0, 0, 0, 0, 0, 0x11})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if len(a) > 32 || len(b) > 32 {
			return
		}
		av, bv := new(big.Int).SetBytes(a), new(big.Int).SetBytes(b)
		fourP := new(big.Int).Lsh(PBig, 2)
		ra, rb := new(big.Int).Mod(av, fourP), new(big.Int).Mod(bv, fourP)
		x, y := fe(feltOfBig(ra)), fe(feltOfBig(rb))
		rInv := new(big.Int).ModInverse(bigR, PBig)
		var z fe
		feMul(&z, &x, &y)
		if want := modP(new(big.Int).Mul(new(big.Int).Mul(ra, rb), rInv)); Felt(z).Big().Cmp(want) != 0 {
			t.Fatalf("feMul(%x, %x) = %x, want %x", ra, rb, Felt(z).Big(), want)
		}
		feSquare(&z, &x)
		if want := modP(new(big.Int).Mul(new(big.Int).Mul(ra, ra), rInv)); Felt(z).Big().Cmp(want) != 0 {
			t.Fatalf("feSquare(%x) = %x, want %x", ra, Felt(z).Big(), want)
		}
		w := feltOfBig(av)
		reduceWide(&z, w[0], w[1], w[2], w[3])
		if want := new(big.Int).Mod(av, PBig); Felt(z).Big().Cmp(want) != 0 {
			t.Fatalf("reduceWide(%x) = %x, want %x", av, Felt(z).Big(), want)
		}
		pa, pb := new(big.Int).Mod(av, PBig), new(big.Int).Mod(bv, PBig)
		e := feOfBig(pa)
		feInv(&z, &e)
		want := new(big.Int)
		if pa.Sign() != 0 {
			want.ModInverse(pa, PBig)
		}
		if bigOfFE(z).Cmp(want) != 0 {
			t.Fatalf("feInv(%x) = %x, want %x", pa, bigOfFE(z), want)
		}
		got := Permute(feltOfBig(pa), feltOfBig(pb), Felt{})
		ref := bigPermute([3]*big.Int{pa, pb, new(big.Int)})
		for j := range ref {
			if got[j].Big().Cmp(ref[j]) != 0 {
				t.Fatalf("permute(%x, %x, 0)[%d] = %s, want %x", pa, pb, j, got[j], ref[j])
			}
		}
	})
}

// A message hash on a known chain, which starts from the chain's stored
// state, is hash_many of its four values from scratch (and the math/big
// reference's); on another chain it is computed in full.
func TestMessageHashPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	other, _ := ShortString("SN_OTHER")
	chains := []Felt{other}
	for _, n := range Networks {
		c, _ := ChainID(n)
		chains = append(chains, c)
	}
	for _, chain := range chains {
		o := &OutsideExecution{Caller: feltOfBig(randomBelow(rng, PBig)), Nonce: feltOfBig(randomBelow(rng, PBig)),
			ExecuteAfter: Felt{1}, ExecuteBefore: Felt{uint64(rng.Uint32())},
			Calls: []Call{{To: feltOfBig(randomBelow(rng, PBig)), Selector: SelectorTransfer, Calldata: []Felt{{7}, {8}, {}}}}}
		account := feltOfBig(randomBelow(rng, PBig))
		d := domainHash(chain)
		want := bigHashMany([]*big.Int{starknetMessage.Big(), d.Big(), account.Big(), o.StructHash().Big()})
		if got := o.MessageHash(chain, account); got.Big().Cmp(want) != 0 || DomainHash(chain) != d {
			t.Fatalf("chain %s: message hash %s, want %x", chain, got, want)
		}
	}
}

// ParseFelt reads what math/big reads, for hex of every length from 1 to
// 64 digits in either case, and refuses values of P or more.
func TestParseFeltAgreesWithBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const digits = "0123456789abcdefABCDEF"
	for n := 1; n <= 64; n++ {
		for range 50 {
			b := []byte("0x")
			for range n {
				b = append(b, digits[rng.IntN(len(digits))])
			}
			want, _ := new(big.Int).SetString(string(b[2:]), 16)
			f, ok := ParseFelt(string(b))
			if inField := want.Cmp(PBig) < 0; ok != inField || ok && f.Big().Cmp(want) != 0 {
				t.Fatalf("ParseFelt(%s) = %s %v, want %x (in the field: %v)", b, f, ok, want, inField)
			}
		}
	}
}

// Past the memo's bound, with callers and tokens new and repeated, every
// struct hash is the one hash_many computes from scratch (and the math/big
// reference's), and the memo never holds more than its bound.
func TestPrefixMemoAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	var callers, tokens []Felt
	for range 3 * prefixMemoMax {
		callers = append(callers, feltOfBig(randomBelow(rng, PBig)))
		tokens = append(tokens, feltOfBig(randomBelow(rng, PBig)))
	}
	for i := range 4 * prefixMemoMax {
		j := rng.IntN(len(callers))
		if i%3 == 0 {
			j = i % 4 // a few that come back
		}
		c := Call{To: tokens[j], Selector: SelectorTransfer, Calldata: []Felt{{uint64(i)}, {9}, {}}}
		o := &OutsideExecution{Caller: callers[j], Nonce: Felt{uint64(i)}, ExecuteAfter: Felt{1}, ExecuteBefore: Felt{500}, Calls: []Call{c}}
		callHash := PoseidonHashMany(TypeHashCall, c.To, c.Selector, PoseidonHashMany(c.Calldata...))
		want := PoseidonHashMany(TypeHashOutsideExecution, o.Caller, o.Nonce, o.ExecuteAfter, o.ExecuteBefore, PoseidonHashMany(callHash))
		if got := o.StructHash(); got != want {
			t.Fatalf("payment %d: struct hash %s, from scratch %s", i, got, want)
		}
		if i%50 == 0 {
			ref := bigHashMany([]*big.Int{TypeHashOutsideExecution.Big(), o.Caller.Big(), o.Nonce.Big(), big.NewInt(1), big.NewInt(500), bigHashMany([]*big.Int{callHash.Big()})})
			if want.Big().Cmp(ref) != 0 {
				t.Fatalf("payment %d: from scratch %s, the reference %x", i, want, ref)
			}
		}
		prefixMemo.Lock()
		n := len(prefixMemo.m)
		prefixMemo.Unlock()
		if n > prefixMemoMax {
			t.Fatalf("the memo holds %d states", n)
		}
	}
}
