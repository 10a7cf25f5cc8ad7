package stellar_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/vectors"
)

func vectorString(t testing.TB, file string, path ...string) string {
	t.Helper()
	o, err := vectors.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	var v jsonv.Value = o
	for _, k := range path {
		v, _ = v.(*jsonv.Object).Get(k)
	}
	s, ok := v.(string)
	if !ok {
		t.Fatalf("%s %v is not a string", file, path)
	}
	return s
}

func code(err error) string {
	var r *rails.Refusal
	if errors.As(err, &r) {
		return r.Code
	}
	return ""
}

const seller = "GDFJHLAXAUMHA4OWPOB4P7YO72AQR2HMIUYFOXLXE2DZGM633K7HZDQP"

func TestStrkeys(t *testing.T) {
	key, ok := stellar.DecodeAccount(seller)
	if !ok || stellar.EncodeAccount(key) != seller {
		t.Fatal("seller account does not round-trip")
	}
	for name, bad := range map[string]string{
		"checksum":       seller[:55] + "R",
		"lower case":     strings.ToLower(seller),
		"short":          seller[:55],
		"contract as G":  stellar.EncodeContract(key),
		"stray last bit": seller[:55] + "Q", // same bytes when the unused bits are dropped
	} {
		if _, ok := stellar.DecodeAccount(bad); ok {
			t.Errorf("%s: %s read as an account", name, bad)
		}
	}
	h := atr.Sum([]byte("abc"))
	m, err := stellar.Muxed(seller, h)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stellar.Muxed(m, h); code(err) != stellar.CodeCarrierOccupied {
		t.Fatalf("muxing an M: %v", err)
	}
	if _, err := stellar.Muxed("GABC", h); code(err) != stellar.CodeOptionMalformed {
		t.Fatalf("muxing no account: %v", err)
	}
	mx, ok := stellar.DecodeMuxed(m)
	if !ok || mx.Base() != seller || mx.ID != stellar.MuxedID(h) {
		t.Fatalf("M splits into %+v", mx)
	}
}

func TestStrictBase64(t *testing.T) {
	env := vectorString(t, "x402-exact-stellar.json", "V3", "envelope")
	if _, ok := stellar.DecodeBase64(env); !ok {
		t.Fatal("V3 refused")
	}
	for name, bad := range map[string]string{
		"CR LF":         env[:64] + "\r\n" + env[64:],
		"space":         env[:64] + " " + env[68:],
		"no padding":    strings.TrimRight(env, "="),
		"padding bits":  env[:len(env)-2] + "B=",
		"url alphabet":  strings.ReplaceAll(env, "/", "_"),
		"inner padding": "AA==AAAA",
	} {
		if _, ok := stellar.DecodeBase64(bad); ok {
			t.Errorf("%s accepted", name)
		}
	}
}

func TestDecodeEnvelopeHostile(t *testing.T) {
	env := vectorString(t, "x402-exact-stellar.json", "V3", "envelope")
	raw, _ := base64.StdEncoding.DecodeString(env)
	unknownArm := append([]byte(nil), raw...)
	unknownArm[3] = 7 // an envelope type XDR does not define
	for name, c := range map[string]struct{ in, code string }{
		"several MiB":       {strings.Repeat("AAAA", 1<<20), stellar.CodeTxTooLarge},
		"empty":             {"", stellar.CodeTxMalformed},
		"unknown arm":       {base64.StdEncoding.EncodeToString(unknownArm), stellar.CodeTxMalformed},
		"truncated":         {base64.StdEncoding.EncodeToString(raw[:len(raw)-4]), stellar.CodeTxMalformed},
		"trailing bytes":    {base64.StdEncoding.EncodeToString(append(raw, 0, 0, 0, 0)), stellar.CodeTxMalformed},
		"a 2^31 array":      {base64.StdEncoding.EncodeToString(append(raw[:60:60], 0x7f, 0xff, 0xff, 0xff)), stellar.CodeTxMalformed},
		"not base64 at all": {"{\"transaction\":1}", stellar.CodeTxMalformed},
	} {
		if _, err := stellar.DecodeEnvelope(c.in); code(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
	if _, err := stellar.ReadSignedTransfer(env, "stellar:futurenet"); code(err) != stellar.CodeNetworkMalformed {
		t.Fatalf("futurenet: %v", err)
	}
}

// nested is a vector nesting depth vectors around a void.
func nested(depth int) xdr.ScVal {
	v := xdr.ScVal{Type: xdr.ScValTypeScvVoid}
	for range depth {
		vec := &xdr.ScVec{v}
		v = xdr.ScVal{Type: xdr.ScValTypeScvVec, Vec: &vec}
	}
	return v
}

func TestCapsCountMapsAndInstances(t *testing.T) {
	if !stellar.ScValWithinCaps(ptr(nested(64))) || stellar.ScValWithinCaps(ptr(nested(65))) {
		t.Fatal("vector depth cap is not 64")
	}
	// A map at the 65th level, inside a contract instance's storage.
	inner := nested(63)
	m := &xdr.ScMap{{Key: xdr.ScVal{Type: xdr.ScValTypeScvVoid}, Val: inner}}
	storage := xdr.ScMap{{Key: xdr.ScVal{Type: xdr.ScValTypeScvVoid}, Val: xdr.ScVal{Type: xdr.ScValTypeScvMap, Map: &m}}}
	inst := xdr.ScVal{Type: xdr.ScValTypeScvContractInstance, Instance: &xdr.ScContractInstance{
		Executable: xdr.ContractExecutable{Type: xdr.ContractExecutableTypeContractExecutableStellarAsset}, Storage: &storage}}
	if stellar.ScValWithinCaps(&inst) {
		t.Fatal("an instance's storage does not count as a map")
	}
	entries := make(xdr.ScMap, 769) // 769 entries of two voids: 769 > half of 1536 but entries count once
	for i := range entries {
		entries[i] = xdr.ScMapEntry{Key: xdr.ScVal{Type: xdr.ScValTypeScvVoid}, Val: xdr.ScVal{Type: xdr.ScValTypeScvVoid}}
	}
	mp := &entries
	if !stellar.ScValWithinCaps(&xdr.ScVal{Type: xdr.ScValTypeScvMap, Map: &mp}) {
		t.Fatal("769 map entries refused")
	}
}

func ptr[T any](v T) *T { return &v }

// FuzzDecodeEnvelope: no input panics the envelope reader; what it accepts
// is canonical (encodes back to the same text) and within the caps.
func FuzzDecodeEnvelope(f *testing.F) {
	f.Add(vectorString(f, "x402-exact-stellar.json", "V2", "simulatedXdr"))
	f.Add(vectorString(f, "x402-exact-stellar.json", "V3", "envelope"))
	f.Add(vectorString(f, "x402-exact-stellar.json", "V3v2", "envelope"))
	f.Add("AAAAAA==")
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			env, err := stellar.DecodeEnvelope(s)
			if err != nil {
				if code(err) == "" {
					t.Fatalf("not a refusal: %v", err)
				}
				return
			}
			back, err := xdr.MarshalBase64(env)
			if err != nil || back != s {
				t.Fatalf("accepted a non-canonical envelope")
			}
			_, _ = stellar.ReadSignedTransfer(s, stellar.Testnet)
		})
	})
}

// FuzzSigningFor: no simulated envelope or expiration panics the preimage
// builder; a built preimage reads back as the transfer with that
// expiration, and its completion reads back as the same transfer.
func FuzzSigningFor(f *testing.F) {
	f.Add(vectorString(f, "x402-exact-stellar.json", "V2", "simulatedXdr"), int64(1000), false)
	f.Add(vectorString(f, "x402-exact-stellar.json", "V3v2", "simulatedXdr"), int64(1<<32), true)
	f.Fuzz(func(t *testing.T, sim string, expiration int64, zero bool) {
		cost.Bound(t, len(sim), func() {
			s, err := stellar.SigningFor(sim, stellar.Testnet, expiration, zero)
			if err != nil {
				if code(err) == "" {
					t.Fatalf("not a refusal: %v", err)
				}
				return
			}
			a, err := stellar.ReadPreimage(s.Preimage)
			if err != nil {
				t.Fatalf("built preimage unreadable: %v", err)
			}
			if int64(a.Expiration) != expiration || a.To != s.To || a.Amount.Cmp(s.Amount) != 0 {
				t.Fatalf("preimage says %+v", a)
			}
			// From is the operation's payer. The preimage names the signed
			// invocation's, which is the same payer only when the operation
			// calls exactly what is signed; when it does not, both Builds
			// refuse before any signer call (Signing.matches).
			if s.Agrees && a.From != s.From {
				t.Fatalf("preimage pays from %s, the operation from %s", a.From, s.From)
			}
			if !s.Agrees && s.Matches(s.To, s.Asset, s.Amount, s.From) == nil {
				t.Fatal("an operation that does not call what is signed was accepted")
			}
			env, err := s.Complete(make([]byte, 64))
			if err != nil {
				t.Fatal(err)
			}
			back, err := stellar.ReadSignedTransfer(env, stellar.Testnet)
			if err != nil || back.To != s.To || back.From != s.From || back.Agrees != s.Agrees {
				t.Fatalf("completed envelope reads %+v (%v)", back, err)
			}
		})
	})
}

func TestExactSummarizeAndInspect(t *testing.T) {
	f, err := vectors.Load("x402-exact-stellar.json")
	if err != nil {
		t.Fatal(err)
	}
	v3, _ := f.GetObject("V3")
	accepted, _ := v3.GetObject("accepted")
	ext, _ := v3.Get("extensions")
	required := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{accepted}, "extensions", ext)
	h := atr.Sum([]byte("abc"))
	p := stellar.Exact{}
	choice := jsonv.Obj("required", required, "accepted", accepted, "payer", "GBXHUHG5FGYLPD6RHL2MKWMP572O6KUXCZXDZJXS4T57ZTMAKBN7DWXN",
		"simulatedXdr", vectorString(t, "x402-exact-stellar.json", "V2", "simulatedXdr"), "currentLedger", 988, "now", 1790000000)
	u, err := p.Build(choice, nil, h)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	g, err := p.Summarize(req)
	if err != nil {
		t.Fatal(err)
	}
	payTo, _ := accepted.GetString("payTo")
	asset, _ := accepted.GetString("asset")
	if g.Network != stellar.Testnet || g.Asset != asset || g.Amount.String() != "10000000" || g.Payee != payTo ||
		g.Payer != "GBXHUHG5FGYLPD6RHL2MKWMP572O6KUXCZXDZJXS4T57ZTMAKBN7DWXN" {
		t.Fatalf("grant %+v", g)
	}
	// maxTimeoutSeconds 60: twelve ledgers of 5 s from the choice's now.
	if g.PayableUntil.Unix() != 1790000060 {
		t.Fatalf("payable until %s", g.PayableUntil)
	}
	for _, bad := range []*jsonv.Object{
		jsonv.Obj("kind", "eip712"),
		jsonv.Obj("kind", stellar.KindAuth, "preimage", "0x00"),
		jsonv.Obj("kind", stellar.KindAuth),
		jsonv.Obj("kind", stellar.KindAuth, "preimage", str(req, "preimage"), "validUntil", -1),
		jsonv.Obj("kind", stellar.KindAuth, "preimage", str(req, "preimage"), "validUntil", "soon"),
	} {
		if _, err := p.Summarize(bad); err == nil {
			t.Fatalf("summarized %s", jsonv.String(bad))
		}
	}
	pay := jsonv.Obj("x402Version", 2, "accepted", accepted, "payload", jsonv.Obj("transaction", vectorString(t, "x402-exact-stellar.json", "V3", "envelope")), "extensions", ext)
	o, err := p.Inspect(pay)
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := o.Details.GetString("muxedId"); id != "13436514500253700074" {
		t.Fatalf("inspect %s", jsonv.String(o.JSON()))
	}
	if d, _ := o.Details.GetString("authDigest"); d != "0x26a00b3f3ce20604108b34ee3d49eae2195622b5b372b83a37db4e3e90f9f2a9" {
		t.Fatalf("inspect %s", jsonv.String(o.JSON()))
	}
	if o.Grant.Network != "stellar:testnet" || o.Grant.Payer == "" || o.Grant.Amount == nil {
		t.Fatalf("inspect %s", jsonv.String(o.JSON()))
	}
}

// A muxed address's last character holds one bit beyond the data: a
// spelling with it set decodes to the same bytes and is refused.
func TestMuxedStrayBit(t *testing.T) {
	m, _ := stellar.Muxed(seller, atr.Sum([]byte("abc")))
	last := strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", m[len(m)-1])
	odd := m[:len(m)-1] + string("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"[last|1])
	if last&1 != 0 || odd == m {
		t.Fatalf("the canonical spelling %s already has the bit set", m)
	}
	if _, ok := stellar.DecodeMuxed(odd); ok {
		t.Fatalf("%s read as a muxed address", odd)
	}
	if _, ok := stellar.DecodeMuxed(m); !ok {
		t.Fatal("canonical M refused")
	}
}

func str(o *jsonv.Object, k string) string { v, _ := o.GetString(k); return v }
