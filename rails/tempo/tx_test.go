package tempo

import (
	"bytes"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/rails"
)

func code(err error) string {
	if r, ok := err.(*rails.Refusal); ok {
		return r.Code
	}
	if err != nil {
		return "not a refusal: " + err.Error()
	}
	return ""
}

func sampleTx() *Tx {
	to := common.HexToAddress("0x20c0000000000000000000000000000000000000")
	return &Tx{
		ChainID: big.NewInt(42431), MaxPriorityFeePerGas: big.NewInt(1), MaxFeePerGas: big.NewInt(2), GasLimit: 100000,
		Calls:       []Call{{To: &to, Value: new(big.Int), Input: []byte{1, 2, 3}}},
		ValidBefore: 1790000060, FeeToken: &to, Signature: bytes.Repeat([]byte{0x11}, 65),
	}
}

func TestTxRoundTrip(t *testing.T) {
	wire, err := sampleTx().Encode()
	if err != nil {
		t.Fatal(err)
	}
	tx, err := DecodeTx(wire)
	if err != nil {
		t.Fatal(err)
	}
	if len(tx.Items) != 14 || tx.ChainID.Int64() != 42431 || tx.ValidBefore.Int64() != 1790000060 || len(tx.Calls) != 1 ||
		!bytes.Equal(tx.Calls[0].Input, []byte{1, 2, 3}) {
		t.Fatalf("%+v", tx)
	}
	// A creation (empty to) and no valid_before.
	c := sampleTx()
	c.Calls[0].To = nil
	c.ValidBefore = 0
	c.KeyAuthorization, _ = rlp.EncodeToBytes([]any{[]any{}, []byte{1}})
	wire, _ = c.Encode()
	tx, err = DecodeTx(wire)
	if err != nil || len(tx.Items) != 15 || len(tx.Calls[0].To) != 0 || tx.ValidBefore != nil {
		t.Fatalf("%+v (%v)", tx, err)
	}
}

// items re-encodes a sample transaction with item i replaced.
func withItem(t *testing.T, i int, v any) []byte {
	t.Helper()
	wire, _ := sampleTx().Encode()
	top, err := Decode(wire[1:], Limits{MaxDepth: 8, MaxItems: 1000})
	if err != nil {
		t.Fatal(err)
	}
	raws := make([]any, len(top.Items))
	for j, it := range top.Items {
		raws[j] = rlp.RawValue(it.Raw)
	}
	if i >= len(raws) {
		raws = append(raws, v)
	} else if v == nil {
		raws = append(raws[:i], raws[i+1:]...)
	} else {
		raws[i] = v
	}
	body, err := rlp.EncodeToBytes(raws)
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte{TxType}, body...)
}

func TestDecodeTxRefusals(t *testing.T) {
	calls := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = []any{common.Address{}.Bytes(), uint64(0), []byte{}}
		}
		return out
	}
	cases := map[string]struct {
		wire []byte
		code string
	}{
		"over 64 KiB":                  {append([]byte{TxType}, make([]byte, MaxWireBytes)...), CodeTxTooLarge},
		"one byte":                     {[]byte{TxType}, CodeTxMalformed},
		"another type":                 {append([]byte{0x02}, withItem(t, 0, uint64(1))[1:]...), CodeTxMalformed},
		"a string, not a list":         {[]byte{TxType, 0x80}, CodeTxMalformed},
		"13 items":                     {withItem(t, 13, nil), CodeTxMalformed},
		"16 items":                     {withItem(t, 14, []any{}), CodeTxMalformed},
		"a chain id with a leading 0":  {withItem(t, 0, rlp.RawValue{0x82, 0x00, 0x01}), CodeTxMalformed},
		"a 33-byte gas limit":          {withItem(t, 3, bytes.Repeat([]byte{1}, 33)), CodeTxMalformed},
		"calls a string":               {withItem(t, 4, []byte{}), CodeTxMalformed},
		"65 calls":                     {withItem(t, 4, calls(65)), CodeTxMalformed},
		"a call of two items":          {withItem(t, 4, []any{[]any{[]byte{}, uint64(0)}}), CodeTxMalformed},
		"a call to 19 bytes":           {withItem(t, 4, []any{[]any{make([]byte, 19), uint64(0), []byte{}}}), CodeTxMalformed},
		"a call whose input is a list": {withItem(t, 4, []any{[]any{make([]byte, 20), uint64(0), []any{}}}), CodeTxMalformed},
		"an access list string":        {withItem(t, 5, []byte{1}), CodeTxMalformed},
		"a fee token list":             {withItem(t, 10, []any{}), CodeTxMalformed},
		"a signature list":             {withItem(t, 13, []any{}), CodeTxMalformed},
		"trailing bytes":               {append(withItem(t, 0, uint64(1)), 0), CodeTxMalformed},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := DecodeTx(c.wire); code(err) != c.code {
				t.Fatalf("got %q, want %s", code(err), c.code)
			}
		})
	}
	if _, err := DecodeTx(withItem(t, 4, calls(64))); err != nil {
		t.Fatalf("64 calls: %v", err)
	}
	// A key authorization slot must be a list.
	ka := sampleTx()
	ka.KeyAuthorization = []byte{0x01} // the raw item: a one-byte string
	wire, _ := ka.Encode()
	if _, err := DecodeTx(wire); code(err) != CodeTxMalformed {
		t.Fatal("15 items with a string key authorization")
	}
}

func TestExpiringNonceHashUnderAFeePayer(t *testing.T) {
	plain, _ := sampleTx().Encode()
	sponsored := withItem(t, 11, []any{uint64(0), make([]byte, 32), make([]byte, 32)})
	sender := common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266").Bytes()
	a, err1 := ExpiringNonceHash(plain, sender)
	b, err2 := ExpiringNonceHash(sponsored, sender)
	if err1 != nil || err2 != nil || a == b {
		t.Fatalf("%x %x (%v %v)", a, b, err1, err2)
	}
	// Under a fee payer the sender signed fee_token empty and 0x00 in the fee payer's slot.
	noToken := withItem(t, 10, []byte{})
	c, _ := ExpiringNonceHash(withItemOn(t, noToken, 11, []any{uint64(1)}), sender)
	if c != b {
		t.Fatal("the fee token is not blanked under a fee payer")
	}
	if _, err := ExpiringNonceHash(plain, sender[:19]); code(err) != CodeTxMalformed {
		t.Fatal("a 19-byte sender")
	}
}

func withItemOn(t *testing.T, wire []byte, i int, v any) []byte {
	t.Helper()
	top, err := Decode(wire[1:], Limits{MaxDepth: 8, MaxItems: 1000})
	if err != nil {
		t.Fatal(err)
	}
	raws := make([]any, len(top.Items))
	for j, it := range top.Items {
		raws[j] = rlp.RawValue(it.Raw)
	}
	raws[i] = v
	body, _ := rlp.EncodeToBytes(raws)
	return append([]byte{TxType}, body...)
}

func TestMemoCalldataAndMemoOf(t *testing.T) {
	memo := "0x" + strings.Repeat("ab", 32)
	data, err := MemoCalldata("0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00", big.NewInt(1000000), memo)
	if err != nil || len(data) != 100 {
		t.Fatal(err)
	}
	token := PathUSD
	m, ok := MemoOf(DecodedCall{To: token.Bytes(), Value: new(big.Int), Input: data}, token)
	if !ok || hex0x(m[:]) != memo {
		t.Fatal("memo")
	}
	for name, c := range map[string]DecodedCall{
		"another token":   {To: common.Address{1}.Bytes(), Input: data},
		"a creation":      {To: nil, Input: data},
		"99 bytes":        {To: token.Bytes(), Input: data[:99]},
		"a dirty address": {To: token.Bytes(), Input: append(append([]byte{}, data[:4]...), append([]byte{1}, data[5:]...)...)},
		"transfer":        {To: token.Bytes(), Input: append(transferCalldata(common.Address{}, big.NewInt(1)), make([]byte, 32)...)},
	} {
		if _, ok := MemoOf(c, token); ok {
			t.Errorf("%s read as a memo call", name)
		}
	}
	if _, err := MemoCalldata("0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00", new(big.Int).Lsh(big.NewInt(1), 256), memo); code(err) != CodeTxMalformed {
		t.Fatal("2^256")
	}
}

func TestKeyAuthorizationBounds(t *testing.T) {
	addr := "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	base := func() *KeyAuthorization {
		return &KeyAuthorization{ChainID: 42431, KeyID: addr, Expiry: 1, Limits: []Limit{{Token: addr, Limit: big.NewInt(1), Period: 1}},
			AllowedCalls: []Scope{{Target: addr, Rules: []SelectorRule{{Selector: SelectorTransferWithMemo, Recipients: []string{addr}}}}}}
	}
	if _, err := base().Encode(); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(a *KeyAuthorization){
		"17 limits":      func(a *KeyAuthorization) { a.Limits = make([]Limit, 17) },
		"17 scopes":      func(a *KeyAuthorization) { a.AllowedCalls = make([]Scope, 17) },
		"17 rules":       func(a *KeyAuthorization) { a.AllowedCalls[0].Rules = make([]SelectorRule, 17) },
		"17 recipients":  func(a *KeyAuthorization) { a.AllowedCalls[0].Rules[0].Recipients = make([]string, 17) },
		"key type 3":     func(a *KeyAuthorization) { a.KeyType = 3 },
		"a bad key id":   func(a *KeyAuthorization) { a.KeyID = "0x12" },
		"a bad token":    func(a *KeyAuthorization) { a.Limits[0].Token = "0x12" },
		"a limit 2^256":  func(a *KeyAuthorization) { a.Limits[0].Limit = new(big.Int).Lsh(big.NewInt(1), 256) },
		"a bad target":   func(a *KeyAuthorization) { a.AllowedCalls[0].Target = "" },
		"a bad receiver": func(a *KeyAuthorization) { a.AllowedCalls[0].Rules[0].Recipients[0] = "0x" },
	} {
		a := base()
		mut(a)
		if _, err := a.Encode(); code(err) != CodeKeyAuthorizationMalformed {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := base().EncodeSigned(nil); code(err) != CodeKeyAuthorizationMalformed {
		t.Error("an empty signature")
	}
	signed, _ := base().EncodeSigned(make([]byte, 65))
	k, err := DecodeKeyAuthorization(hex0x(signed))
	if err != nil || k.Witness == nil || len(k.KeyID) != 20 {
		t.Fatalf("decode: %v", err)
	}
	// Decoding refusals.
	enc := func(v any) string { b, _ := rlp.EncodeToBytes(v); return hex0x(b) }
	key := common.HexToAddress(addr).Bytes()
	for name, s := range map[string]string{
		"not hex":           "0xzz",
		"over 8192 bytes":   "0x" + strings.Repeat("00", 8193),
		"one item":          enc([]any{[]any{uint64(1), uint64(0), key}}),
		"two items, a list": enc([]any{[]any{uint64(1), uint64(0), key}, []any{}}),
		"two auth items":    enc([]any{[]any{uint64(1), uint64(0)}, []byte{1}}),
		"ten auth items":    enc([]any{make([]any, 10), []byte{1}}),
		"a 19-byte key id":  enc([]any{[]any{uint64(1), uint64(0), key[:19]}, []byte{1}}),
		"a chain id 0x00":   enc([]any{[]any{[]byte{0}, uint64(0), key}, []byte{1}}),
		"limits a string":   enc([]any{[]any{uint64(1), uint64(0), key, uint64(1), []byte{1}}, []byte{1}}),
		"17 limits":         enc([]any{[]any{uint64(1), uint64(0), key, uint64(1), make([]any, 17)}, []byte{1}}),
		"a scope of 1 item": enc([]any{[]any{uint64(1), uint64(0), key, uint64(1), []any{}, []any{[]any{key}}}, []byte{1}}),
		"a 31-byte witness": enc([]any{[]any{uint64(1), uint64(0), key, uint64(1), []any{}, []any{}, make([]byte, 31)}, []byte{1}}),
		"depth 7":           enc([]any{[]any{uint64(1), uint64(0), key, uint64(1), []any{}, []any{[]any{key, []any{[]any{[]byte{1, 2, 3, 4}, []any{[]any{[]any{}}}}}}}}, []byte{1}}),
	} {
		if _, err := DecodeKeyAuthorization(s); code(err) != CodeKeyAuthorizationMalformed {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Without a witness (3 items) it decodes, and the witness is absent.
	k, err = DecodeKeyAuthorization(enc([]any{[]any{uint64(1), uint64(0), key}, []byte{1}}))
	if err != nil || k.Witness != nil {
		t.Fatalf("no witness: %v", err)
	}
}

// FuzzDecodeTx: the envelope and key-authorization readers never panic, and
// what DecodeTx accepts keeps its bounds.
func FuzzDecodeTx(f *testing.F) {
	wire, _ := sampleTx().Encode()
	f.Add(wire)
	f.Add([]byte{TxType, 0xc0})
	f.Fuzz(func(t *testing.T, in []byte) {
		cost.Bound(t, len(in), func() {
			if tx, err := DecodeTx(in); err == nil {
				if len(tx.Calls) > MaxCalls || (len(tx.Items) != 14 && len(tx.Items) != 15) {
					t.Fatalf("%d calls, %d items", len(tx.Calls), len(tx.Items))
				}
				_, _ = tx.SenderHash()
				_, _ = tx.Sender()
				_, _ = ExpiringNonceHash(in, make([]byte, 20))
			} else if code(err) != CodeTxMalformed && code(err) != CodeTxTooLarge {
				t.Fatalf("code %q", code(err))
			}
			if len(in) > 0 {
				_, _ = DecodeKeyAuthorization(hex0x(in[1:]))
			}
		})
	})
}
