package xrpl

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/vectors"
)

func load(t testing.TB, name string) *jsonv.Object {
	t.Helper()
	o, err := vectors.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func path(t testing.TB, v jsonv.Value, keys ...string) jsonv.Value {
	t.Helper()
	for _, k := range keys {
		o, ok := jsonv.AsObject(v)
		if !ok {
			t.Fatalf("%v: %q not under an object", keys, k)
		}
		if v, ok = o.Get(k); !ok {
			t.Fatalf("%v: no %q", keys, k)
		}
	}
	return v
}

func pathString(t testing.TB, v jsonv.Value, keys ...string) string {
	t.Helper()
	s, ok := jsonv.AsString(path(t, v, keys...))
	if !ok {
		t.Fatalf("%v is not a string", keys)
	}
	return s
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// devKey is the vectors' payer: Ed25519 from entropy 01×16.
func devKey(t testing.TB) *Key {
	t.Helper()
	k, err := KeyFromEntropy(bytes.Repeat([]byte{1}, 16), Ed25519)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestVectorBlobsDecodeAndReencode(t *testing.T) {
	x := load(t, "x402-exact-xrpl.json")
	s := load(t, "mpp-session-hedera-solana-xrpl.json")
	for _, c := range []struct {
		name, blob, hash string
	}{
		{"x402-exact-xrpl/V2", pathString(t, x, "V2", "blob"), pathString(t, x, "V4", "x402Row", "ref", "transaction")},
		{"x402-exact-xrpl/V3", pathString(t, x, "V3", "blob"), pathString(t, x, "V3", "hash")},
		{"x402-exact-xrpl/plant", pathString(t, x, "plant", "blob"), ""},
		{"mpp-session/XS2", pathString(t, s, "XS2", "blob"), pathString(t, s, "XS2", "expectHash")},
		{"mpp-session/XS5", pathString(t, s, "XS5", "blob"), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			blob := mustHex(t, c.blob)
			fs, err := Decode(blob)
			if err != nil {
				t.Fatal(err)
			}
			if got := Encode(fs); !bytes.Equal(got, blob) {
				t.Fatalf("re-encoded\n%X\nwant\n%X", got, blob)
			}
			if c.hash != "" && TxHash(blob) != c.hash {
				t.Fatalf("hash %s, want %s", TxHash(blob), c.hash)
			}
			// The JSON form encodes back to the same bytes.
			back, err := FromJSON(fs.JSON())
			if err != nil {
				t.Fatal(err)
			}
			if got := Encode(back); !bytes.Equal(got, blob) {
				t.Fatalf("JSON round trip\n%X\nwant\n%X", got, blob)
			}
			// A single-signed vector blob verifies under its SigningPubKey.
			pub, _ := fs.Get(FieldSigningPubKey)
			sig, _ := fs.Get(FieldTxnSignature)
			if len(pub.Value) == 33 && !Verify(pub.Value, SigningData(fs), sig.Value) {
				t.Fatal("the vector's signature does not verify")
			}
		})
	}
}

func TestV2JSONAndSigning(t *testing.T) {
	x := load(t, "x402-exact-xrpl.json")
	want := pathString(t, x, "V2", "blob")
	txJSON, _ := jsonv.AsObject(path(t, x, "V2", "expectTxJson"))
	fs, err := FromJSON(txJSON)
	if err != nil {
		t.Fatal(err)
	}
	got := SignFields(fs, devKey(t))
	if strings.ToUpper(hex.EncodeToString(got)) != want {
		t.Fatalf("signed V2\n%X\nwant\n%s", got, want)
	}
	dec, _ := Decode(got)
	j := dec.JSON()
	for _, m := range txJSON.Members() {
		if v, _ := j.Get(m.Key); !jsonv.Equal(v, m.Value) {
			t.Errorf("decoded %s = %v, want %v", m.Key, v, m.Value)
		}
	}
}

func TestDevKeyAddressAndSeed(t *testing.T) {
	k := devKey(t)
	if got := strings.ToUpper(hex.EncodeToString(k.PublicKey())); got != "ED06895BEC3FDE4090F06D840770D888D49E3089B3757C4285E3851BC33964E0F9" {
		t.Fatalf("public key %s", got)
	}
	if a := k.AccountID().Address(); a != "r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC" {
		t.Fatalf("address %s", a)
	}
	seed := EncodeSeed(bytes.Repeat([]byte{1}, 16), Ed25519)
	if !strings.HasPrefix(seed, "sEd") {
		t.Fatalf("Ed25519 seed %s", seed)
	}
	e, alg, err := ParseSeed(seed)
	if err != nil || alg != Ed25519 || !bytes.Equal(e, bytes.Repeat([]byte{1}, 16)) {
		t.Fatalf("ParseSeed(%s) = %x %s %v", seed, e, alg, err)
	}
	// A flipped character fails the checksum.
	bad := seed[:5] + string(alphabet[(strings.IndexByte(alphabet, seed[5])+1)%58]) + seed[6:]
	if _, _, err := ParseSeed(bad); err == nil {
		t.Fatal("a seed with a broken checksum parsed")
	}
}

// TestSecp256k1Derivation pins the family-seed derivation with the seed and
// account XRPL's documentation uses as its example
// (https://xrpl.org/docs/concepts/accounts/cryptographic-keys):
// snoPBrXtMeMyMHUVTgbuqAfg1SUTb derives rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh.
func TestSecp256k1Derivation(t *testing.T) {
	e, alg, err := ParseSeed("snoPBrXtMeMyMHUVTgbuqAfg1SUTb")
	if err != nil || alg != Secp256k1 {
		t.Fatalf("ParseSeed: %v %s", err, alg)
	}
	k, err := KeyFromEntropy(e, alg)
	if err != nil {
		t.Fatal(err)
	}
	if a := k.AccountID().Address(); a != "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh" {
		t.Fatalf("address %s", a)
	}
	msg := []byte("STX\x00something")
	sig := k.Sign(msg)
	if !Verify(k.PublicKey(), msg, sig) || Verify(k.PublicKey(), append(msg, 0), sig) {
		t.Fatal("secp256k1 signature does not verify exactly its message")
	}
}

func TestChannelAndClaim(t *testing.T) {
	s := load(t, "mpp-session-hedera-solana-xrpl.json")
	a, _ := ParseAddress(pathString(t, s, "XS1", "account"))
	d, _ := ParseAddress(pathString(t, s, "XS1", "destination"))
	seq, _ := jsonv.AsSafeInt(path(t, s, "XS1", "sequence"))
	id := ChannelID(a, d, uint32(seq))
	if got := strings.ToUpper(hex.EncodeToString(id[:])); got != pathString(t, s, "XS1", "expect") {
		t.Fatalf("XS1 channel %s", got)
	}
	payer, _ := ParseAddress(pathString(t, s, "XS2", "account"))
	dest, _ := ParseAddress("rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN")
	ch := ChannelID(payer, dest, 7)
	if got := strings.ToUpper(hex.EncodeToString(ch[:])); got != pathString(t, s, "XS2", "expectChannel") {
		t.Fatalf("XS2 channel %s", got)
	}
	claim := ClaimBytes(ch, 100)
	if got := strings.ToUpper(hex.EncodeToString(claim)); got != pathString(t, s, "XS3", "expect") {
		t.Fatalf("XS3 claim %s", got)
	}
	// The reference's pin: the claim signature by the entropy-01×16 key.
	sig := hex.EncodeToString(SignClaim(claim, devKey(t)))
	if !strings.HasPrefix(sig, "c042fda5487bc688") || !strings.HasSuffix(sig, "975a03901") {
		t.Fatalf("claim signature %s", sig)
	}
	if c, n, ok := ReadClaim(claim); !ok || c != ch || n != 100 {
		t.Fatal("ReadClaim")
	}
}

func TestDecoderCaps(t *testing.T) {
	caps := load(t, "decoder-caps.json")
	rows, _ := jsonv.AsArray(path(t, caps, "xrpl", "rows"))
	if len(rows) != 5 {
		t.Fatalf("%d XC rows", len(rows))
	}
	for _, r := range rows {
		name := pathString(t, r, "name")
		t.Run(name, func(t *testing.T) {
			blob := mustHex(t, pathString(t, r, "blob"))
			accept, _ := path(t, r, "accept").(bool)
			fs, err := Decode(blob)
			if accept {
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(Encode(fs), blob) {
					t.Fatal("not re-encoded to its bytes")
				}
				return
			}
			var de *DecodeError
			if !errors.As(err, &de) || !strings.Contains(de.Reason, "nesting deeper") {
				t.Fatalf("want a nesting refusal, got %v", err)
			}
		})
	}
}

func TestStrictEncodingRows(t *testing.T) {
	x := load(t, "x402-exact-xrpl.json")
	rows, _ := jsonv.AsArray(path(t, x, "strictEncoding", "rows"))
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		t.Run(pathString(t, r, "case"), func(t *testing.T) {
			if _, err := Decode(mustHex(t, pathString(t, r, "blob"))); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

// TestHostileBlobs: each non-canonical form the issue names is refused.
func TestHostileBlobs(t *testing.T) {
	x := load(t, "x402-exact-xrpl.json")
	v3 := mustHex(t, pathString(t, x, "V3", "blob"))
	// V3's fields: 12 22 24 201B 5011 61 68 73 74 81 83
	swap := func(b []byte, i, n, j, m int) []byte { // swap two adjacent spans
		out := append([]byte(nil), b[:i]...)
		out = append(out, b[j:j+m]...)
		out = append(out, b[i:i+n]...)
		return append(out, b[j+m:]...)
	}
	amount := bytes.Index(v3, []byte{0x61, 0x40})
	fee := amount + 9
	cases := map[string][]byte{
		"fields out of order (Fee before Amount)": swap(v3, amount, 9, fee, 9),
		"a field repeated":                        append(append([]byte(nil), v3[:3]...), v3...),
		"escaped header for a small type code":    append([]byte{0x01, 0x02}, v3[1:]...),
		"unknown field":                           append([]byte{0x1F}, v3...),
		"length past the end":                     append(append([]byte(nil), v3...), 0x7D, 0x05, 0x01),
		"truncated":                               v3[:len(v3)-1],
		"XRP amount without its positive bit": func() []byte {
			b := append([]byte(nil), v3...)
			b[amount+1] &^= 0x40
			return b
		}(),
		"XRP amount over 10^17 drops": func() []byte {
			b := append([]byte(nil), v3...)
			binary.BigEndian.PutUint64(b[amount+1:], 1<<62|(MaxDrops+1))
			return b
		}(),
		"issued amount unnormalized":     issuedBlob(0x8000000000000000 | 1<<62 | 97<<54 | 5),
		"issued zero with an exponent":   issuedBlob(0x8000000000000000 | 97<<54),
		"MPT amount not led by 0x60":     append([]byte{0x61, 0x70}, make([]byte, 32)...),
		"unclosed array":                 []byte{0x12, 0x00, 0x00, 0xF9, 0xEA, 0xE1},
		"array member not an object":     []byte{0x12, 0x00, 0x00, 0xF9, 0x50, 0x11},
		"top-level end marker":           []byte{0x12, 0x00, 0x00, 0xE1},
		"Vector256 not a multiple of 32": []byte{0x12, 0x00, 0x00, 0x03, 0x13, 0x05, 1, 2, 3, 4, 5},
		"AccountID of 19 bytes":          append([]byte{0x12, 0x00, 0x00, 0x81, 19}, make([]byte, 19)...),
		"unknown TransactionType":        []byte{0x12, 0x00, 0x06},
		"1 MiB of nesting":               bytes.Repeat([]byte{0xEA}, 1<<20),
		"1 MiB of array members":         append([]byte{0xF9}, bytes.Repeat([]byte{0xEA, 0xE1}, 1<<19)...),
	}
	for name, blob := range cases {
		t.Run(name, func(t *testing.T) {
			if fs, err := Decode(blob); err == nil {
				t.Fatalf("accepted: %v", jsonv.String(fs.JSON()))
			}
		})
	}
}

func issuedBlob(value uint64) []byte {
	b := []byte{0x12, 0x00, 0x00, 0x61}
	b = binary.BigEndian.AppendUint64(b, value)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'U', 'S', 'D', 0, 0, 0, 0, 0)
	return append(b, bytes.Repeat([]byte{7}, 20)...)
}

// TestPropertyRoundTrip: every blob the encoder writes from random
// transactions decodes to the same fields and JSON, and re-encodes to its
// bytes.
func TestPropertyRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		tx := randomTx(r)
		fs, err := FromJSON(tx)
		if err != nil {
			t.Fatalf("FromJSON(%s): %v", jsonv.String(tx), err)
		}
		blob := Encode(fs)
		dec, err := Decode(blob)
		if err != nil {
			t.Fatalf("Decode of encoder output %X (%s): %v", blob, jsonv.String(tx), err)
		}
		if !bytes.Equal(Encode(dec), blob) {
			t.Fatalf("re-encode differs for %s", jsonv.String(tx))
		}
		if got, want := jsonv.Canonical(dec.JSON()), jsonv.Canonical(tx); !bytes.Equal(got, want) {
			t.Fatalf("decoded JSON\n%s\nwant\n%s", got, want)
		}
	}
}

func randomTx(r *rand.Rand) *jsonv.Object {
	acct := func() string {
		var id AccountID
		for i := range id {
			id[i] = byte(r.IntN(256))
		}
		return id.Address()
	}
	hexN := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return strings.ToUpper(hex.EncodeToString(b))
	}
	amount := func() jsonv.Value {
		switch r.IntN(3) {
		case 0:
			return jsonv.Obj("currency", []string{"USD", "EUR", "a?!"}[r.IntN(3)], "issuer", acct(),
				"value", []string{"0", "1", "-1.5", "1234567890123456", "0.0000000000000001", "0.5", "99999999999999990000"}[r.IntN(7)])
		case 1:
			return jsonv.Obj("mpt_issuance_id", hexN(24), "value", []string{"0", "1", "9223372036854775807"}[r.IntN(3)])
		}
		return []string{"0", "1", "12", "100000000000000000"}[r.IntN(4)]
	}
	tx := jsonv.Obj("TransactionType", []string{"Payment", "PaymentChannelCreate", "PaymentChannelClaim"}[r.IntN(3)],
		"Flags", r.IntN(1<<31), "Account", acct())
	if r.IntN(2) == 0 {
		tx.Set("Destination", acct())
	}
	tx.Set("Amount", amount())
	if r.IntN(2) == 0 {
		tx.Set("SendMax", amount())
	}
	tx.Set("Fee", "12")
	tx.Set("Sequence", jsonv.Number(r.IntN(1<<31)))
	if r.IntN(2) == 0 {
		tx.Set("InvoiceID", hexN(32))
	}
	if r.IntN(2) == 0 {
		tx.Set("NetworkID", jsonv.Number(1025+r.IntN(1000)))
	}
	if r.IntN(2) == 0 {
		tx.Set("PublicKey", hexN(33))
	}
	if n := r.IntN(4); n > 0 {
		var memos []jsonv.Value
		for i := 0; i < n; i++ {
			m := jsonv.Obj("MemoData", hexN(r.IntN(300)))
			if r.IntN(2) == 0 {
				m.Set("MemoType", hexN(4))
			}
			memos = append(memos, jsonv.Obj("Memo", m))
		}
		tx.Set("Memos", memos)
	}
	if r.IntN(3) == 0 {
		tx.Set("Amendments", []jsonv.Value{hexN(32), hexN(32)})
	}
	return tx
}
