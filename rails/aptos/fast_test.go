package aptos

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
)

// TestParseAddressAsHex holds ParseAddress to its first reading: the
// digits, padded to even with a leading 0, through hex.DecodeString,
// lowercase only, right-aligned in the 32 bytes.
func TestParseAddressAsHex(t *testing.T) {
	ref := func(s string) (Address, bool) {
		var a Address
		if len(s) < 3 || len(s) > 66 || s[:2] != "0x" {
			return a, false
		}
		h := s[2:]
		if len(h)%2 == 1 {
			h = "0" + h
		}
		b, err := hex.DecodeString(h)
		if err != nil || strings.ToLower(s[2:]) != s[2:] {
			return a, false
		}
		copy(a[32-len(b):], b)
		return a, true
	}
	const chars = "0123456789abcdefABCDEFgx \u00e9"
	r := rand.New(rand.NewPCG(13, 14))
	inputs := []string{"", "0x", "0x1", "0X1", "1x1", "0x" + strings.Repeat("f", 64), "0x" + strings.Repeat("f", 65), "0x0", "0x00"}
	for range 5000 {
		n := r.IntN(68)
		b := []byte("0x")
		for range n {
			if r.IntN(20) == 0 {
				b = append(b, chars[r.IntN(len(chars))])
			} else {
				b = append(b, chars[r.IntN(16)])
			}
		}
		inputs = append(inputs, string(b))
	}
	read := 0
	for _, s := range inputs {
		got, ok := ParseAddress(s)
		want, wok := ref(s)
		if ok != wok || got != want {
			t.Fatalf("ParseAddress(%q) = %x %v; the first reading %x %v", s, got, ok, want, wok)
		}
		if ok {
			read++
			if len(s) == 66 && got.String() != s {
				t.Fatalf("%q written back as %q", s, got.String())
			}
		}
	}
	if read < 1000 {
		t.Fatalf("only %d inputs read", read)
	}
}

// TestReadTransferAsJoined holds ReadTransfer's comparison by parts to the
// joined strings it first compared, over fixture F with its names, module
// and type argument changed.
func TestReadTransferAsJoined(t *testing.T) {
	joined := func(tx *RawTransaction) bool {
		p := &tx.Payload
		if p.Module.String()+"::"+p.Name+"::"+p.Function != TransferFunction || len(p.TypeArgs) != 1 || len(p.Args) != 3 {
			return false
		}
		s := p.TypeArgs[0].Struct
		return !(p.TypeArgs[0].Variant != 7 || s == nil || len(s.TypeArgs) != 0 || s.String() != MetadataTypeLong ||
			len(p.Args[0]) != 32 || len(p.Args[1]) != 32 || len(p.Args[2]) != 8)
	}
	names := []string{"primary_fungible_store", "transfer", "fungible_asset", "Metadata", "primary_fungible_store::transfer",
		"primary_fungible_store:", ":transfer", "", "Transfer", "fungible_asset::Metadata"}
	r := rand.New(rand.NewPCG(15, 16))
	passed := 0
	for range 3000 {
		tx := fixtureF(t)
		p := &tx.Payload
		s := p.TypeArgs[0].Struct
		switch r.IntN(7) {
		case 0:
			p.Name = names[r.IntN(len(names))]
		case 1:
			p.Function = names[r.IntN(len(names))]
		case 2:
			s.Module = names[r.IntN(len(names))]
		case 3:
			s.Name = names[r.IntN(len(names))]
		case 4:
			p.Module[r.IntN(32)] ^= 1
		case 5:
			s.Address[r.IntN(32)] ^= 1
		}
		_, err := tx.ReadTransfer()
		if (err == nil) != joined(tx) {
			t.Fatalf("ReadTransfer of %+v: %v; the joined strings say %v", p, err, joined(tx))
		}
		if err == nil {
			passed++
		}
	}
	if passed < 300 || passed == 3000 {
		t.Fatalf("%d of 3000 read as the transfer", passed)
	}
}

// TestByteListsAsJSON: the byte lists written with their digits directly
// read back, through the scanner's comma fast path and with JSON
// whitespace between tokens, and are what strconv would write.
func TestByteListsAsJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for range 500 {
		b := make([]byte, r.IntN(300))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		auth := make([]byte, r.IntN(100))
		for i := range auth {
			auth[i] = byte(r.Uint32())
		}
		var want strings.Builder
		want.WriteString("[")
		for i, c := range auth {
			if i > 0 {
				want.WriteString(",")
			}
			want.WriteString(strconv.Itoa(int(c)))
		}
		want.WriteString("]")
		if got := string(appendByteList(nil, auth, false)); got != want.String() {
			t.Fatalf("appendByteList(%x) = %s, want %s", auth, got, want.String())
		}
		j, _ := base64.StdEncoding.DecodeString(X402Payload(b, auth))
		spaced := strings.NewReplacer(",", " ,\n", "[", "[ ", "]", "\t]").Replace(string(j))
		for _, form := range []string{string(j), spaced} {
			simple, gotAuth, ok := scanX402Form([]byte(form))
			if !ok || string(simple) != string(append(append([]byte{}, b...), 0)) || string(gotAuth) != string(auth) {
				t.Fatalf("%s read as %x %x %v", form, simple, gotAuth, ok)
			}
		}
		for _, bad := range []string{strings.Replace(string(j), ",", ",,", 1), strings.Replace(string(j), "]", ",]", 1)} {
			if _, _, ok := scanX402Form([]byte(bad)); ok && bad != string(j) {
				t.Fatalf("%s read", bad)
			}
		}
	}
}

// TestCarriedMemoAgrees: whatever carried read last, each payment's
// reading (through the memo of the last payload) is the one decoded from
// scratch, with its own network, and the memo's copy is not shared.
func TestCarriedMemoAgrees(t *testing.T) {
	key := ed25519.NewKeyFromSeed(make([]byte, 32))
	pub := key.Public().(ed25519.PublicKey)
	var texts []string
	for i := range 3 {
		tx := fixtureF(t)
		tx.Sender = AddressOfEd25519(pub)
		tx.SequenceNumber += uint64(i)
		raw := tx.Encode()
		texts = append(texts, X402Payload(raw, Ed25519Authenticator(pub, ed25519.Sign(key, SigningMessage(raw, nil)))))
	}
	payment := func(text, network string) jsonv.Value {
		option := jsonv.Obj("scheme", "exact", "network", network, "amount", "99900000",
			"asset", "0x357b0b74bc833e95a115ad22604854d6b0fca151cecd94111770e5d6ffc9dc2b",
			"payTo", "0xe8ca094fec460329aaccc2a644dc73c5e39f1a2ad6e97f82b6cbdc1a5949b9ea")
		return jsonv.Obj("x402Version", 2, "accepted", option, "payload", jsonv.Obj("transaction", text))
	}
	for _, i := range []int{0, 0, 1, 0, 2, 2, 1} {
		for _, network := range []string{"aptos:1", "aptos:2"} {
			got, err := carried(payment(texts[i], network))
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := DecodePayload(texts[i])
			if err != nil {
				t.Fatal(err)
			}
			fresh.Network = network
			if !reflect.DeepEqual(got, fresh) {
				t.Fatalf("text %d on %s: carried's reading is not the one from scratch", i, network)
			}
			if !got.Verifies() {
				t.Fatalf("text %d: the signature does not verify", i)
			}
		}
	}
}
