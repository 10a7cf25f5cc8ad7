package lightning

import (
	"math/big"
	"strings"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

func key(n byte) *secp256k1.PrivateKey {
	var b [32]byte
	b[31] = n
	return secp256k1.PrivKeyFromBytes(b[:])
}

func issue(t *testing.T, is Issue) string {
	t.Helper()
	s, err := Encode(is, key(1))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	r, ok := err.(*rails.Refusal)
	if !ok || r.Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
}

// What the writer writes, the reader reads back; the reader refuses what
// two readers could take differently.
func TestBOLT11Strict(t *testing.T) {
	base := Issue{Currency: "bc", AmountMsat: big.NewInt(25000), Timestamp: 1790000000, Expiry: 300,
		PaymentHash: [32]byte{1}, DescriptionHash: make([]byte, 32), Metadata: []byte{7, 7}}
	inv := issue(t, base)
	in, err := Decode(inv)
	if err != nil || in.AmountMsat.Int64() != 25000 || in.Expiry != 300 || string(in.Metadata) != "\x07\x07" {
		t.Fatalf("%+v %v", in, err)
	}
	if _, err := in.Metadata32(); err == nil {
		t.Fatal("a 2-byte m read as H")
	} else {
		wantCode(t, err, CodeFieldLength)
	}
	if _, err := Decode(strings.ToUpper(inv)); err != nil {
		t.Fatalf("upper case: %v", err)
	}
	i := strings.IndexAny(inv[5:], "acdefghjklmnpqrstuvwxyz") + 5
	mixed := inv[:i] + strings.ToUpper(inv[i:i+1]) + inv[i+1:]
	_, err = Decode(mixed)
	wantCode(t, err, CodeInvoiceMalformed)
	// Each amount form: pico-bitcoin must be whole millisatoshi.
	for amt, want := range map[string]int64{"": -1, "2500u": 250000000, "25m": 2500000000, "10p": 1, "1": 100000000000} {
		_, a, ok := currencyAndAmount("lnbc" + amt)
		if !ok || (want < 0) != (a == nil) || a != nil && a.Int64() != want {
			t.Errorf("%q: %v %v", amt, a, ok)
		}
	}
	for _, amt := range []string{"025n", "11p", "n", "2x", "1.5m"} {
		if _, _, ok := currencyAndAmount("lnbc" + amt); ok {
			t.Errorf("%q read", amt)
		}
	}
	if cur, _, ok := currencyAndAmount("lntbs1m"); !ok || cur != "tbs" {
		t.Errorf("signet: %q", cur)
	}
	// One flipped character breaks the checksum.
	b := []byte(inv)
	b[len(b)-1] ^= 1
	_, err = Decode(string(b))
	wantCode(t, err, CodeInvoiceMalformed)
	// A payment metadata field twice is refused where it is read for H.
	two := base
	two.Metadata = make([]byte, 32)
	rep := issue(t, two)
	if _, err := Decode(rep); err != nil {
		t.Fatal(err)
	}
	_, err = Decode(strings.Repeat("l", MaxInvoice+1))
	wantCode(t, err, CodeInvoiceTooLarge)
}

// The signature: recovered to the signer, the high-S twin refused, and a
// signature by another key than the n field names refused.
func TestBOLT11Signature(t *testing.T) {
	inv := issue(t, Issue{Currency: "bc", AmountMsat: big.NewInt(1000), Timestamp: 1, PaymentHash: [32]byte{9}})
	in, digest, sig, err := parse(inv)
	if err != nil {
		t.Fatal(err)
	}
	if err := in.verify(digest, sig); err != nil || in.PayeeHex() != "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798" {
		t.Fatalf("%v %s", err, in.PayeeHex())
	}
	// s → n − s, recovery id flipped: the same signature, malleated.
	var s secp256k1.ModNScalar
	s.SetByteSlice(sig[32:64])
	s.Negate()
	hi := append([]byte(nil), sig...)
	sb := s.Bytes()
	copy(hi[32:64], sb[:])
	hi[64] ^= 1
	in2, d2, _, _ := parse(inv)
	wantCode(t, in2.verify(d2, hi), CodeSignature)
	// An n field naming key 2 on an invoice key 1 signed.
	in3, d3, _, _ := parse(inv)
	in3.Tags = append(in3.Tags, fieldN)
	copy(in3.Payee[:], key(2).PubKey().SerializeCompressed())
	wantCode(t, in3.verify(d3, sig), CodeSignature)
	// Recovery id out of range.
	bad := append([]byte(nil), sig...)
	bad[64] = 4
	in4, d4, _, _ := parse(inv)
	wantCode(t, in4.verify(d4, bad), CodeSignature)
}

// The hand-written http:1 form is exactly JCS's.
func TestHTTPCanonicalIsJCS(t *testing.T) {
	for _, req := range []*jsonv.Object{
		jsonv.Obj("method", "GET", "url", "https://api.example.com/article/A"),
		jsonv.Obj("method", "POST", "url", "https://a.example/x?q=\"<>", "body", "{}",
			"headers", jsonv.Obj("Accept", " text/plain ", "content-type", "a\\b")),
	} {
		b, err := httpBinding(jsonv.Obj("headers", []jsonv.Value{"accept", "content-type", "range"}), req)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(httpCanonical(b)), string(jsonv.Canonical(b)); got != want {
			t.Fatalf("%s\nwant %s", got, want)
		}
	}
}
