package starknet

// A math/big reference for the Stark curve and its ECDSA, written from the
// textbook affine formulas and RFC 6979 section 3.2 (no Jacobian
// coordinates, no table, no lazy DRBG step, math/big's ModInverse), against
// which the limb code's point operations, scalar multiplications,
// inversions and signatures are compared.

import (
	"crypto/hmac"
	"crypto/sha256"
	"math/big"
	"math/rand/v2"
	"testing"
)

type bigPoint struct {
	x, y *big.Int
	inf  bool
}

func modP(v *big.Int) *big.Int { return v.Mod(v, PBig) }

func bigAdd(p, q bigPoint) bigPoint {
	if p.inf {
		return q
	}
	if q.inf {
		return p
	}
	var l *big.Int
	if p.x.Cmp(q.x) == 0 {
		if modP(new(big.Int).Add(p.y, q.y)).Sign() == 0 {
			return bigPoint{inf: true}
		}
		// λ = (3x² + a)/(2y), a = 1.
		num := modP(new(big.Int).Add(new(big.Int).Mul(big.NewInt(3), new(big.Int).Mul(p.x, p.x)), big.NewInt(1)))
		den := new(big.Int).ModInverse(modP(new(big.Int).Lsh(p.y, 1)), PBig)
		l = modP(num.Mul(num, den))
	} else {
		num := modP(new(big.Int).Sub(q.y, p.y))
		den := new(big.Int).ModInverse(modP(new(big.Int).Sub(q.x, p.x)), PBig)
		l = modP(num.Mul(num, den))
	}
	x := modP(new(big.Int).Sub(new(big.Int).Sub(new(big.Int).Mul(l, l), p.x), q.x))
	y := modP(new(big.Int).Sub(new(big.Int).Mul(l, new(big.Int).Sub(p.x, x)), p.y))
	return bigPoint{x: x, y: y}
}

func bigScalarMul(p bigPoint, k *big.Int) bigPoint {
	acc := bigPoint{inf: true}
	for i := k.BitLen() - 1; i >= 0; i-- {
		acc = bigAdd(acc, acc)
		if k.Bit(i) == 1 {
			acc = bigAdd(acc, p)
		}
	}
	return acc
}

var bigG = bigPoint{x: curveGx.Big(), y: curveGy.Big()}

// bigOfJac is p's affine point, its Z inverted with math/big.
func bigOfJac(p jac) bigPoint {
	z := bigOfFE(p.z)
	if z.Sign() == 0 {
		return bigPoint{inf: true}
	}
	zi := new(big.Int).ModInverse(z, PBig)
	zi2 := modP(new(big.Int).Mul(zi, zi))
	return bigPoint{x: modP(new(big.Int).Mul(bigOfFE(p.x), zi2)), y: modP(new(big.Int).Mul(bigOfFE(p.y), zi2.Mul(zi2, zi)))}
}

// jacOf writes the affine point in Jacobian coordinates with a random Z,
// so that the formulas are not only tried at Z = 1.
func jacOf(rng *rand.Rand, p bigPoint) jac {
	if p.inf {
		return jac{}
	}
	z := randomBelow(rng, PBig)
	if z.Sign() == 0 {
		z.SetInt64(1)
	}
	z2 := modP(new(big.Int).Mul(z, z))
	return jac{x: feOfBig(modP(new(big.Int).Mul(p.x, z2))), y: feOfBig(modP(new(big.Int).Mul(p.y, z2.Mul(z2, z)))), z: feOfBig(z)}
}

func samePoint(p, q bigPoint) bool {
	if p.inf || q.inf {
		return p.inf == q.inf
	}
	return p.x.Cmp(q.x) == 0 && p.y.Cmp(q.y) == 0
}

// randomPoint is m·G for a random m (an edge now and then: 1, N-1).
func randomPoint(rng *rand.Rand) (bigPoint, *big.Int) {
	m := randomBelow(rng, CurveOrder)
	if m.Sign() == 0 {
		m.SetInt64(1)
	}
	return bigScalarMul(bigG, m), m
}

func TestPointOpsAgreeWithBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 40 {
		p, _ := randomPoint(rng)
		q, _ := randomPoint(rng)
		jp, jq := jacOf(rng, p), jacOf(rng, q)
		qa := affine{feOfBig(q.x), feOfBig(q.y)}
		pa := affine{feOfBig(p.x), feOfBig(p.y)}
		inf := jac{}
		for _, c := range []struct {
			name string
			got  jac
			want bigPoint
		}{
			{"p+q", jp.add(&jq), bigAdd(p, q)},
			{"2p", jp.double(), bigAdd(p, p)},
			{"p+p by add", jp.add(&jp), bigAdd(p, p)},
			{"p+(-p)", jp.add(&jac{jp.x, func() fe { var n fe; feNeg(&n, &jp.y); return n }(), jp.z}), bigPoint{inf: true}},
			{"p+q mixed", jp.addAffine(&qa), bigAdd(p, q)},
			{"p+p mixed", jp.addAffine(&pa), bigAdd(p, p)},
			{"p+(-p) mixed", jp.addAffine(&affine{pa.x, func() fe { var n fe; feNeg(&n, &pa.y); return n }()}), bigPoint{inf: true}},
			{"inf+q", inf.add(&jq), q},
			{"p+inf", jp.add(&inf), p},
			{"inf+q mixed", inf.addAffine(&qa), q},
			{"2·inf", inf.double(), bigPoint{inf: true}},
		} {
			if got := bigOfJac(c.got); !samePoint(got, c.want) {
				t.Fatalf("point %d, %s: got (%x, %x, inf %v), want (%x, %x, inf %v)", i, c.name, got.x, got.y, got.inf, c.want.x, c.want.y, c.want.inf)
			}
		}
	}
}

// k·G by the table and k·P by the window agree with double-and-add over
// math/big, for random k and the edges 1, 15, 16, 2^252-1, N-1, windows
// of 16, 17 and 31 and 2^256-1.
func TestScalarMulAgreesWithBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	ks := []*big.Int{big.NewInt(1), big.NewInt(15), big.NewInt(16), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 252), big.NewInt(1)), new(big.Int).Sub(CurveOrder, big.NewInt(1))}
	// Every base-32 window 16 (the largest positive digit), 17 (the
	// smallest that carries) and 31 (a carry that makes 32), and 2^256-1.
	for _, d := range []int64{16, 17, 31} {
		k := new(big.Int)
		for i := 0; i < 50; i++ {
			k.Lsh(k, 5).Or(k, big.NewInt(d))
		}
		ks = append(ks, k)
	}
	ks = append(ks, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)))
	for range 30 {
		ks = append(ks, randomBelow(rng, CurveOrder))
	}
	p, _ := randomPoint(rng)
	pa := affine{feOfBig(p.x), feOfBig(p.y)}
	for _, k := range ks {
		if got, want := bigOfJac(mulBase(k)), bigScalarMul(bigG, k); !samePoint(got, want) {
			t.Fatalf("mulBase(%x): (%x, %x), want (%x, %x)", k, got.x, got.y, want.x, want.y)
		}
		if got, want := bigOfJac(mul(pa, k)), bigScalarMul(p, k); !samePoint(got, want) {
			t.Fatalf("mul(P, %x): (%x, %x), want (%x, %x)", k, got.x, got.y, want.x, want.y)
		}
	}
	if got := mulBase(new(big.Int)); !got.z.isZero() {
		t.Fatal("0·G is not the point at infinity")
	}
}

// feInv gives the inverse in Montgomery form, zero for zero.
func TestInverseAgreesWithBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for range 3000 {
		a := randomBelow(rng, PBig)
		var z fe
		x := feOfBig(a)
		feInv(&z, &x)
		want := new(big.Int)
		if a.Sign() != 0 {
			want.ModInverse(a, PBig)
		}
		if bigOfFE(z).Cmp(want) != 0 {
			t.Fatalf("feInv(%x) = %x, want %x", a, bigOfFE(z), want)
		}
	}
}

// bigSign is the signature as Sign documents it, over math/big: RFC 6979
// section 3.2 with HMAC-SHA-256, qlen 252, int2octets of the key and of
// z mod N as the seed, bits2int of V its leftmost 252 bits, every step
// h.3 taken eagerly; r = (k·G).x mod N and s = (z + r·priv)/k, a
// candidate refused unless r and w = s^-1 are in [1, 2^251).
func bigSign(priv, z *big.Int) (r, s *big.Int) {
	mac := func(key []byte, parts ...[]byte) []byte {
		m := hmac.New(sha256.New, key)
		for _, p := range parts {
			m.Write(p)
		}
		return m.Sum(nil)
	}
	octets := func(x *big.Int) []byte { b := make([]byte, 32); x.FillBytes(b); return b }
	v := make([]byte, 32)
	for i := range v {
		v[i] = 1
	}
	k := make([]byte, 32)
	seed := append(octets(priv), octets(new(big.Int).Mod(z, CurveOrder))...)
	k = mac(k, v, []byte{0}, seed)
	v = mac(k, v)
	k = mac(k, v, []byte{1}, seed)
	v = mac(k, v)
	two251 := new(big.Int).Lsh(big.NewInt(1), 251)
	for {
		v = mac(k, v)
		cand := new(big.Int).Rsh(new(big.Int).SetBytes(v), 4)
		k = mac(k, v, []byte{0})
		v = mac(k, v)
		if cand.Sign() == 0 || cand.Cmp(CurveOrder) >= 0 {
			continue
		}
		pt := bigScalarMul(bigG, cand)
		r = new(big.Int).Mod(pt.x, CurveOrder)
		if r.Sign() == 0 || r.Cmp(two251) >= 0 {
			continue
		}
		t := new(big.Int).Mod(new(big.Int).Add(z, new(big.Int).Mul(r, priv)), CurveOrder)
		if t.Sign() == 0 {
			continue
		}
		w := new(big.Int).Mod(new(big.Int).Mul(cand, new(big.Int).ModInverse(t, CurveOrder)), CurveOrder)
		if w.Sign() == 0 || w.Cmp(two251) >= 0 {
			continue
		}
		return r, new(big.Int).ModInverse(w, CurveOrder)
	}
}

func checkSignAgrees(t *testing.T, priv *big.Int, z Felt) {
	t.Helper()
	r, s, err := Sign(priv, z)
	if err != nil {
		t.Fatalf("Sign(%x, %s): %v", priv, z, err)
	}
	wr, ws := bigSign(priv, z.Big())
	if r.Big().Cmp(wr) != 0 || s.Big().Cmp(ws) != 0 {
		t.Fatalf("Sign(%x, %s) = (%s, %s), the reference (%x, %x)", priv, z, r, s, wr, ws)
	}
	pub, ok := PublicKey(priv)
	if want := bigScalarMul(bigG, priv); !ok || pub.Big().Cmp(want.x) != 0 {
		t.Fatalf("PublicKey(%x) = %s, want %x", priv, pub, want.x)
	}
	if !Verify(pub, z, r, s) {
		t.Fatalf("Sign(%x, %s) does not verify", priv, z)
	}
}

// Signatures are the reference's, byte for byte, for random keys and
// messages and at the edges: key 1 and N-1, message 0 and 2^251-1.
func TestSignAgreesWithBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	nm1 := new(big.Int).Sub(CurveOrder, big.NewInt(1))
	zmax := feltOfBig(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 251), big.NewInt(1)))
	for _, priv := range []*big.Int{big.NewInt(1), nm1} {
		for _, z := range []Felt{{}, {1}, zmax} {
			checkSignAgrees(t, priv, z)
		}
	}
	n := 60
	if testing.Short() {
		n = 10
	}
	two251 := new(big.Int).Lsh(big.NewInt(1), 251)
	for range n {
		priv := randomBelow(rng, CurveOrder)
		if priv.Sign() == 0 {
			priv.SetInt64(1)
		}
		checkSignAgrees(t, priv, feltOfBig(randomBelow(rng, two251)))
	}
}

// FuzzSignAgrees: any key and message bytes, brought into range, sign as
// the math/big reference signs and verify; out of range they are refused.
func FuzzSignAgrees(f *testing.F) {
	f.Add([]byte{0x71, 0xd7, 0xbb, 0x07, 0xb9, 0xa6, 0x4f, 0x6f, 0x78, 0xac, 0x4c, 0x81, 0x6a, 0xff, 0x4d, 0xa9}, []byte{1})
	f.Add([]byte{1}, []byte{})
	f.Fuzz(func(t *testing.T, key, msg []byte) {
		if len(key) > 32 || len(msg) > 32 {
			return
		}
		priv := new(big.Int).SetBytes(key)
		z := new(big.Int).SetBytes(msg)
		inRange := priv.Sign() > 0 && priv.Cmp(CurveOrder) < 0 && z.BitLen() <= 251
		if !inRange {
			if _, _, err := Sign(priv, feltOfBig(z)); err == nil {
				t.Fatalf("Sign(%x, %x) signed out of range", priv, z)
			}
			return
		}
		checkSignAgrees(t, priv, feltOfBig(z))
	})
}
