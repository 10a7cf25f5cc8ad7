package evm

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// TestCheckedAddressAgrees pins CheckedAddress (its case test without
// copies, its memo) to the definition: one case, or go-ethereum's EIP-55
// writing of the same address, asked twice so that the second answer is
// the memo's.
func TestCheckedAddressAgrees(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	const digits = "0123456789abcdefABCDEF"
	for i := range 2000 {
		b := []byte("0x")
		for range 40 {
			b = append(b, digits[r.Intn(len(digits))])
		}
		s := string(b)
		if i%3 == 0 {
			s = common.HexToAddress(s).Hex() // a checksummed one
			if i%2 == 0 {
				s = flipOne(s, r)
			}
		}
		d := s[2:]
		want := strings.ToLower(d) == d || strings.ToUpper(d) == d || common.HexToAddress(s).Hex() == s
		if got := CheckedAddress(s); got != want {
			t.Fatalf("%s: %v, want %v", s, got, want)
		}
		if got := CheckedAddress(s); got != want {
			t.Fatalf("%s again: %v, want %v", s, got, want)
		}
		if mixedCase(d) != (strings.ToLower(d) != d && strings.ToUpper(d) != d) {
			t.Fatalf("%s: mixedCase %v", s, mixedCase(d))
		}
	}
}

func flipOne(s string, r *rand.Rand) string {
	b := []byte(s)
	for range 100 {
		i := 2 + r.Intn(40)
		switch c := b[i]; {
		case 'a' <= c && c <= 'f':
			b[i] = c - 'a' + 'A'
			return string(b)
		case 'A' <= c && c <= 'F':
			b[i] = c - 'A' + 'a'
			return string(b)
		}
	}
	return s
}

// TestCheckAddressesInAsNamed holds CheckAddressesIn, which names no field
// unless one fails, to the walk that names every field.
func TestCheckAddressesInAsNamed(t *testing.T) {
	good := "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	bad := "0x209693bC6afc0C5328bA36FaF03C514EF312287C"
	deep := jsonv.Value(bad)
	for range 100 {
		deep = []jsonv.Value{deep}
	}
	for _, v := range []jsonv.Value{
		nil, good, bad, 1.5, true,
		jsonv.Obj("payTo", good, "asset", strings.ToLower(good), "extra", jsonv.Obj("name", "USDC")),
		jsonv.Obj("payTo", good, "extra", jsonv.Obj("escrow", bad)),
		jsonv.Obj("a", []jsonv.Value{good, jsonv.Obj("b", []jsonv.Value{nil, bad})}),
		[]jsonv.Value{good, good, bad},
		deep,
	} {
		got, want := CheckAddressesIn("option", v), checkAddressesIn("option", v)
		if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
			t.Fatalf("%s: %v, the naming walk %v", jsonv.String(v), got, want)
		}
	}
	if err := CheckAddressesIn("", jsonv.Obj("extra", jsonv.Obj("escrow", bad))); err == nil || !strings.HasSuffix(err.Error(), "extra.escrow") {
		t.Fatalf("the field is not named: %v", err)
	}
}

// TestHexLenAsHexBytes holds hexLen to the length of what HexBytes decodes.
func TestHexLenAsHexBytes(t *testing.T) {
	for _, s := range []string{"", "0x", "0x0", "0x00", "0xAbCd", "0xabcg", "00ab", "0X00", "0x" + strings.Repeat("fF", 65), "0x" + strings.Repeat("f", 131)} {
		b, ok := HexBytes(s)
		n, ok2 := hexLen(s)
		if ok != ok2 || ok && n != len(b) {
			t.Errorf("%q: hexLen %d %v, HexBytes %d %v", s, n, ok2, len(b), ok)
		}
	}
}

// TestBoundAsString: Bound answers the nonce as atr.Hash.String writes it,
// whether the nonce was written in lower or upper case.
func TestBoundAsString(t *testing.T) {
	h := "0x" + strings.Repeat("ab", 32)
	for _, nonce := range []string{h, strings.ToUpper(h[:10]) + h[10:], "0x" + strings.ToUpper(h[2:])} {
		nonce = "0x" + nonce[2:]
		p := jsonv.Obj("x402Version", 2,
			"accepted", jsonv.Obj("scheme", "exact", "network", "eip155:84532"),
			"payload", jsonv.Obj("signature", "0x"+strings.Repeat("11", 65),
				"authorization", jsonv.Obj("from", "a", "to", "b", "value", "1", "validAfter", "0", "validBefore", "2", "nonce", nonce)))
		got, err := ExactEIP3009{}.Bound(p)
		if err != nil || got != h {
			t.Errorf("%s: %q, %v", nonce, got, err)
		}
	}
}

// TestRequestAsTransferWithAuthorization holds the request Request writes
// from the seller's own values to TransferWithAuthorization's from Go
// strings, and checks that signing leaves the offer as it was.
func TestRequestAsTransferWithAuthorization(t *testing.T) {
	option := jsonv.Obj("scheme", "exact", "network", "eip155:84532", "amount", "10000",
		"asset", "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "payTo", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("name", "USDC", "version", "2"))
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://api.seller.example/"), "accepts", []jsonv.Value{option})
	before := jsonv.String(doc)
	choice := jsonv.Obj("required", doc, "accepted", option, "from", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "now", 1790000000)
	u, err := ExactEIP3009{}.build(choice, "0x"+strings.Repeat("ab", 32))
	if err != nil {
		t.Fatal(err)
	}
	req, err := ExactEIP3009{}.Request(u)
	if err != nil {
		t.Fatal(err)
	}
	want := jsonv.Obj("kind", "eip712", "typedData", TransferWithAuthorization("USDC", "2", 84532, "0x036CbD53842c5426634e7929541eC2318f3dCF7e", u.authorization))
	if got := jsonv.String(req); got != jsonv.String(want) {
		t.Fatalf("request\n%s\nwant\n%s", got, jsonv.String(want))
	}
	td, _ := req.GetObject("typedData")
	td.Set("primaryType", "changed")
	dom, _ := td.GetObject("domain")
	dom.Set("name", "changed")
	if _, err := (ExactEIP3009{}).Complete(u, "0x"+strings.Repeat("11", 65), rails.Chosen{}); err != nil {
		t.Fatal(err)
	}
	if jsonv.String(doc) != before {
		t.Fatalf("the offer changed: %s", jsonv.String(doc))
	}
	again, _ := ExactEIP3009{}.Request(u)
	if jsonv.String(again) != jsonv.String(want) {
		t.Fatalf("a request changed the next: %s", jsonv.String(again))
	}
}

// TestKeccakAsGoEthereum holds keccak (pooled states, their own buffers)
// to crypto.Keccak256Hash over lengths around the rate and past the
// buffer a pooled state keeps.
func TestKeccakAsGoEthereum(t *testing.T) {
	b := make([]byte, 5000)
	for i := range b {
		b[i] = byte(i*7 + i/3)
	}
	for _, n := range []int{0, 1, 31, 32, 66, 135, 136, 137, 256, 511, 512, 513, 4096, 4097, 5000, 32, 0} {
		if got, want := keccak(b[:n]), crypto.Keccak256Hash(b[:n]); got != [32]byte(want) {
			t.Fatalf("%d bytes: %x, want %x", n, got, want)
		}
	}
}
