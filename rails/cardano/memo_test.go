package cardano

import (
	"crypto/ed25519"
	"encoding/base64"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/cbor"
)

func testTransaction(t *testing.T, h atr.Hash, amount uint64) string {
	t.Helper()
	key := ed25519.NewKeyFromSeed(make([]byte, 32))
	vkey := key.Public().(ed25519.PublicKey)
	payer := EnterpriseAddress(vkey, 0)
	payTo, err := ParseAddress("addr_test1vqxk54m7j3q6mrkevcunryrwf4p7e68c93cjk8gzxkhlkpsffv7s0")
	if err != nil {
		t.Fatal(err)
	}
	s := TransferSpec{Inputs: []Input{{TxID: [32]byte{0x22}, Index: 1}}, PayTo: payTo, Amount: amount, Change: payer,
		Rest: 1_000_000, Fee: 170_000, TTL: 134617795, Aux: AuxiliaryData(h)}
	body := s.Body()
	return base64.StdEncoding.EncodeToString(Assemble(body, vkey, SignBody(key, body), s.Aux))
}

func testPayment(text string) jsonv.Value {
	option := jsonv.Obj("scheme", "exact", "network", "cardano:preprod", "amount", "2000000", "asset", Lovelace,
		"payTo", "addr_test1vqxk54m7j3q6mrkevcunryrwf4p7e68c93cjk8gzxkhlkpsffv7s0", "maxTimeoutSeconds", 60)
	return jsonv.Obj("x402Version", 2, "accepted", option, "payload", jsonv.Obj("transaction", text, "nonce", "n"))
}

// TestCarriedMemoAgrees: whatever carried read last, each payment's reading
// (through the memo of the last transaction) is the one decoded from
// scratch, and a payment differing in one byte is not read as the last one.
func TestCarriedMemoAgrees(t *testing.T) {
	texts := []string{
		testTransaction(t, atr.Sum([]byte("a")), 2_000_000),
		testTransaction(t, atr.Sum([]byte("b")), 2_000_000),
		testTransaction(t, atr.Sum([]byte("a")), 2_000_001),
	}
	// the same text with its last transaction byte changed: base64 of other bytes
	raw, _ := base64.StdEncoding.DecodeString(texts[0])
	raw[len(raw)-1] ^= 1
	texts = append(texts, base64.StdEncoding.EncodeToString(raw))
	for _, order := range [][]int{{0, 0, 1, 0, 2, 2, 3, 0, 3}, {3, 3, 1, 2, 0}} {
		for _, i := range order {
			got, gerr := carried(testPayment(texts[i]))
			fresh, ferr := DecodeTransaction(texts[i])
			if ferr == nil {
				ferr = fresh.CheckAux()
			}
			if (gerr == nil) != (ferr == nil) {
				t.Fatalf("text %d: carried's error %v, from scratch %v", i, gerr, ferr)
			}
			if gerr != nil {
				continue
			}
			if !reflect.DeepEqual(got.Tx, fresh) {
				t.Fatalf("text %d: carried's transaction is not the one decoded from scratch", i)
			}
			h, herr := Carrier(fresh.Aux)
			if got.H != h || (got.HErr == nil) != (herr == nil) {
				t.Fatalf("text %d: H %v (%v), from scratch %v (%v)", i, got.H, got.HErr, h, herr)
			}
		}
	}
	if _, err := carried(testPayment(texts[3])); err == nil {
		t.Fatal("a transaction whose auxiliary data no longer hashes to key 7 was read")
	}
}

// TestMarkerLikeAsToLower holds markerLike to its first definition,
// strings.ToLower's equality with the marker once a byte-order mark is
// trimmed, over case changes, Unicode letters that lowercase to ASCII and
// random bytes.
func TestMarkerLikeAsToLower(t *testing.T) {
	ref := func(line []byte) bool {
		s := strings.TrimPrefix(string(line), bom)
		return len(s) == len(Marker) && strings.ToLower(s) == Marker
	}
	lines := []string{Marker, "LCP:SHA256:0X", bom + "Lcp:Sha256:0x", bom + bom + Marker, "lcp:sha256:0", "lcp:sha256:0xx",
		"lcp:sha256:0\u212a", "\u0130cp:sha256:0x", "lcp:sha256:0\xff", "lcp:sha256;0x", ""}
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 5000; n++ {
		b := []byte(Marker)
		for i := range b {
			switch r.IntN(6) {
			case 0:
				b[i] = strings.ToUpper(string(b[i]))[0]
			case 1:
				b[i] = byte(r.Uint32())
			}
		}
		if r.IntN(4) == 0 {
			b = append([]byte(bom), b...)
		}
		lines = append(lines, string(b))
	}
	matched := 0
	for _, l := range lines {
		if got, want := markerLike([]byte(l)), ref([]byte(l)); got != want {
			t.Fatalf("markerLike(%q) = %v, ToLower's equality %v", l, got, want)
		} else if got {
			matched++
		}
	}
	if matched < 100 {
		t.Fatalf("only %d lines matched: the comparison must cover markers", matched)
	}
}

// TestDistinctMessageKeys holds the pairwise comparison, and the set past
// 16 keys, to keyOf's strings.
func TestDistinctMessageKeys(t *testing.T) {
	keys := []*cbor.Value{cbor.T("msg"), cbor.T(bom + "msg"), cbor.T("MSG"), cbor.U(1), cbor.U(2), cbor.B([]byte("msg")), cbor.T(""), cbor.T(bom)}
	for i := range keys {
		keys[i], _ = cbor.Decode(cbor.Encode(keys[i]))
	}
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 3000; n++ {
		var kv []*cbor.Value
		for range 1 + r.IntN(24) {
			kv = append(kv, keys[r.IntN(len(keys))], cbor.U(0))
		}
		seen, want := map[string]bool{}, true
		for i := 0; i < len(kv); i += 2 {
			k := keyOf(kv[i])
			want = want && !seen[k]
			seen[k] = true
		}
		if got := distinctMessageKeys(kv); got != want {
			t.Fatalf("distinctMessageKeys of %d keys = %v, keyOf's set says %v", len(kv)/2, got, want)
		}
	}
}
