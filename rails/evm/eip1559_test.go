package evm_test

// The strict EIP-1559 reader against go-ethereum's core/types, which only
// test code may link (internal/depcheck).

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	gethrlp "github.com/ethereum/go-ethereum/rlp"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/rails/evm"
)

// mv11Wire is the transaction of mpp-charge-evm-transaction.json's MV11:
// its fields, signed with the file's payer key by rails/evm's writer, and
// checked against the row's length, SHA-256 and hash, so the seed is the
// vector's own transaction.
func mv11Wire(t testing.TB) []byte {
	t.Helper()
	raw, err := os.ReadFile("../../vectors/testdata/mpp-charge-evm-transaction.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Fixed struct {
			PayerKey string `json:"payerKey"`
			Payer    string `json:"payer"`
		} `json:"fixed"`
		MV11 struct {
			Calldata string `json:"expectCalldata"`
			Tx       struct {
				ChainID int64  `json:"chainId"`
				Nonce   uint64 `json:"nonce"`
				Tip     string `json:"maxPriorityFeePerGas"`
				Max     string `json:"maxFeePerGas"`
				Gas     uint64 `json:"gas"`
				To      string `json:"to"`
			} `json:"transaction"`
			Length int    `json:"expectRawLength"`
			SHA256 string `json:"expectRawSha256"`
			Hash   string `json:"expectTxHash"`
		} `json:"MV11"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	v := f.MV11
	tip, _ := new(big.Int).SetString(v.Tx.Tip, 10)
	max, _ := new(big.Int).SetString(v.Tx.Max, 10)
	to := common.HexToAddress(v.Tx.To)
	data, _ := hex.DecodeString(strings.TrimPrefix(v.Calldata, "0x"))
	tx := &evm.EIP1559Tx{ChainID: big.NewInt(v.Tx.ChainID), Nonce: v.Tx.Nonce, MaxPriorityFeePerGas: tip, MaxFeePerGas: max,
		Gas: v.Tx.Gas, To: &to, Data: data}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(f.Fixed.PayerKey, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	wire := signWith(t, tx, key)
	sum := sha256.Sum256(wire)
	if len(wire) != v.Length || "0x"+hex.EncodeToString(sum[:]) != v.SHA256 || crypto.Keccak256Hash(wire).Hex() != v.Hash {
		t.Fatalf("the writer's MV11 transaction is %d bytes, sha256 %x: not the row's", len(wire), sum)
	}
	got, err := evm.DecodeEIP1559(wire)
	if err != nil {
		t.Fatal(err)
	}
	if from, err := got.Sender(); err != nil || from != common.HexToAddress(f.Fixed.Payer) {
		t.Fatalf("sender %s (%v)", from.Hex(), err)
	}
	return wire
}

func signWith(t testing.TB, tx *evm.EIP1559Tx, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	h, err := tx.SigningHash()
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(h[:], key)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Sign(sig); err != nil {
		t.Fatal(err)
	}
	wire, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return wire
}

// gethTxs are transactions go-ethereum writes and signs: a transfer, a
// creation, an access list, wide integers.
func gethTxs(t testing.TB) [][]byte {
	t.Helper()
	key := anvilKey(t)
	to := common.HexToAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e")
	wide := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	var out [][]byte
	for _, inner := range []*types.DynamicFeeTx{
		{ChainID: big.NewInt(84532), Nonce: 7, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(2), Gas: 60000, To: &to, Value: new(big.Int), Data: evm.TransferCalldata(to.Hex(), big.NewInt(10000))},
		{ChainID: big.NewInt(1), GasTipCap: new(big.Int), GasFeeCap: new(big.Int), Gas: 1, Value: big.NewInt(5), Data: []byte{0x60, 0x00}},
		{ChainID: wide, Nonce: 1<<64 - 1, GasTipCap: wide, GasFeeCap: wide, Gas: 1<<64 - 1, To: &to, Value: wide,
			AccessList: types.AccessList{{Address: to, StorageKeys: []common.Hash{{1}, {2}}}, {Address: common.Address{9}}}},
	} {
		tx, err := types.SignNewTx(key, types.LatestSignerForChainID(inner.ChainID), inner)
		if err != nil {
			t.Fatal(err)
		}
		wire, err := tx.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, wire)
	}
	return out
}

// anvilKey is the published Anvil development key #0.
func anvilKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// agreeWithGeth fails unless go-ethereum reads wire as the same signed
// type-2 transaction: every field, the sender and the hash.
func agreeWithGeth(t *testing.T, wire []byte, mine *evm.EIP1559Tx) {
	t.Helper()
	var g types.Transaction
	if err := g.UnmarshalBinary(wire); err != nil || g.Type() != types.DynamicFeeTxType {
		t.Fatalf("go-ethereum refuses what the strict reader took (%v): %x", err, wire)
	}
	v, r, s := g.RawSignatureValues()
	if g.ChainId().Cmp(mine.ChainID) != 0 || g.Nonce() != mine.Nonce || g.GasTipCap().Cmp(mine.MaxPriorityFeePerGas) != 0 ||
		g.GasFeeCap().Cmp(mine.MaxFeePerGas) != 0 || g.Gas() != mine.Gas || g.Value().Cmp(mine.Value) != 0 ||
		!bytes.Equal(g.Data(), mine.Data) || (g.To() == nil) != (mine.To == nil) || (g.To() != nil && *g.To() != *mine.To) ||
		v.Cmp(big.NewInt(int64(mine.YParity))) != 0 || r.Cmp(mine.R) != 0 || s.Cmp(mine.S) != 0 {
		t.Fatalf("the readers disagree on %x", wire)
	}
	al := g.AccessList()
	if len(al) != len(mine.AccessList) {
		t.Fatalf("access lists of %d and %d tuples", len(al), len(mine.AccessList))
	}
	for i := range al {
		if al[i].Address != mine.AccessList[i].Address || len(al[i].StorageKeys) != len(mine.AccessList[i].StorageKeys) {
			t.Fatalf("access tuple %d differs", i)
		}
		for j := range al[i].StorageKeys {
			if al[i].StorageKeys[j] != mine.AccessList[i].StorageKeys[j] {
				t.Fatalf("storage key %d.%d differs", i, j)
			}
		}
	}
	gh, mh := g.Hash(), crypto.Keccak256Hash(wire)
	if h, err := mine.Hash(); err != nil || h != gh || h != mh {
		t.Fatalf("hash %s, go-ethereum's %s (%v)", h.Hex(), gh.Hex(), err)
	}
	if back, err := mine.MarshalBinary(); err != nil || !bytes.Equal(back, wire) {
		t.Fatalf("written again as %x (%v)", back, err)
	}
	gFrom, gErr := types.Sender(types.LatestSignerForChainID(g.ChainId()), &g)
	from, err := mine.Sender()
	if (gErr == nil) != (err == nil) || from != gFrom {
		t.Fatalf("sender %s (%v), go-ethereum's %s (%v)", from.Hex(), err, gFrom.Hex(), gErr)
	}
}

func TestEIP1559AgreesWithCoreTypes(t *testing.T) {
	for i, wire := range append(gethTxs(t), mv11Wire(t)) {
		tx, err := evm.DecodeEIP1559(wire)
		if err != nil {
			t.Fatalf("%d: %v: %x", i, err, wire)
		}
		agreeWithGeth(t, wire, tx)
	}
}

// TestEIP1559Refuses: each encoding go-ethereum might read one way and a
// node another, or that is no signed type-2 transaction, is refused.
func TestEIP1559Refuses(t *testing.T) {
	wire := mv11Wire(t)
	it := func(list []gethrlp.RawValue) []byte {
		b, err := gethrlp.EncodeToBytes(list)
		if err != nil {
			t.Fatal(err)
		}
		return append([]byte{2}, b...)
	}
	var fields []gethrlp.RawValue
	if err := gethrlp.DecodeBytes(wire[1:], &fields); err != nil || len(fields) != 12 {
		t.Fatalf("%v, %d fields", err, len(fields))
	}
	with := func(i int, hexItem string) []byte {
		f := append([]gethrlp.RawValue(nil), fields...)
		b, _ := hex.DecodeString(hexItem)
		f[i] = b
		return it(f)
	}
	addr, key := bytes.Repeat([]byte{0x11}, 20), bytes.Repeat([]byte{0x22}, 32)
	n := crypto.S256().Params().N
	high := new(big.Int).Sub(n, big.NewInt(1))
	highS, _ := gethrlp.EncodeToBytes(high)
	var legacy bytes.Buffer
	ltx := types.NewTx(&types.LegacyTx{Gas: 1, GasPrice: big.NewInt(1)})
	_ = ltx.EncodeRLP(&legacy)
	cases := map[string][]byte{
		"empty":                       nil,
		"the type byte alone":         {2},
		"type 1":                      append([]byte{1}, wire[1:]...),
		"a legacy transaction":        legacy.Bytes(),
		"trailing bytes":              append(append([]byte(nil), wire...), 0x80),
		"a truncated list":            wire[:len(wire)-1],
		"eleven fields":               it(fields[:11]),
		"thirteen fields":             it(append(append([]gethrlp.RawValue(nil), fields...), gethrlp.RawValue{0x80})),
		"chain id zero":               with(0, "80"),
		"a nonce with a leading zero": with(1, "820001"),
		"a nonce of 0x00":             with(1, "00"),
		"a nonce over 64 bits":        with(1, "89010000000000000000"),
		"a fee over 256 bits":         with(3, "a1"+strings.Repeat("ff", 33)),
		"gas as a list":               with(4, "c0"),
		"a 19-byte to":                with(5, "93"+strings.Repeat("11", 19)),
		"a 21-byte to":                with(5, "95"+strings.Repeat("11", 21)),
		"data as a list":              with(7, "c0"),
		"an access list as a string":  with(8, "80"),
		"a tuple of one item":         with(8, hx(t, []any{[]any{addr}})),
		"a tuple of three items":      with(8, hx(t, []any{[]any{addr, []any{}, []any{}}})),
		"a 19-byte address":           with(8, hx(t, []any{[]any{addr[:19], []any{}}})),
		"a 31-byte storage key":       with(8, hx(t, []any{[]any{addr, []any{key[:31]}}})),
		"storage keys as a string":    with(8, hx(t, []any{[]any{addr, []byte{}}})),
		"a storage key as a list":     with(8, hx(t, []any{[]any{addr, []any{[]any{key}}}})),
		"a tuple as a string":         with(8, hx(t, []any{addr})),
		"yParity 2":                   with(9, "02"),
		"yParity 27":                  with(9, "1b"),
		"r zero":                      with(10, "80"),
		"r of n":                      with(10, hex.EncodeToString(mustRLP(t, n))),
		"s zero":                      with(11, "80"),
		"s above n/2":                 with(11, hex.EncodeToString(highS)),
		"over the size bound":         append([]byte{2}, mustRLP(t, make([]byte, evm.MaxEIP1559Bytes))...),
	}
	for name, in := range cases {
		if _, err := evm.DecodeEIP1559(in); err == nil {
			t.Errorf("%s decoded: %x", name, in)
		}
	}
	// The unchanged fields still read: the cases above fail for their edit.
	if _, err := evm.DecodeEIP1559(it(fields)); err != nil {
		t.Fatal(err)
	}
}

func hx(t testing.TB, v any) string { return hex.EncodeToString(mustRLP(t, v)) }

func mustRLP(t testing.TB, v any) []byte {
	b, err := gethrlp.EncodeToBytes(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stricter names why the strict reader may refuse what go-ethereum reads
// and signs for: a chain id of zero (no EIP-155 chain), an integer wider
// than 256 bits, or more RLP items than the bound (a list of one-byte
// items). "" when there is no such reason.
func stricter(g *types.Transaction) string {
	switch {
	case g.ChainId().Sign() == 0:
		return "chain id zero"
	case g.GasTipCap().BitLen() > 256 || g.GasFeeCap().BitLen() > 256 || g.Value().BitLen() > 256 || g.ChainId().BitLen() > 256:
		return "over 256 bits"
	}
	items := 13
	for _, t := range g.AccessList() {
		items += 3 + len(t.StorageKeys)
	}
	if items > 4096 {
		return "over the item bound"
	}
	return ""
}

// FuzzEIP1559Tx: never a panic, within cost's bound; what the strict reader
// takes go-ethereum reads the same (fields, sender, hash) and the writer
// gives back byte for byte; what go-ethereum reads as a validly signed
// type-2 transaction the strict reader takes, unless stricter names why.
// Seeded with mpp-charge-evm-transaction.json's MV11 transaction and
// go-ethereum's own.
func FuzzEIP1559Tx(f *testing.F) {
	f.Add(mv11Wire(f))
	for _, w := range gethTxs(f) {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, wire []byte) {
		var tx *evm.EIP1559Tx
		var err error
		cost.Bound(t, len(wire), func() {
			if tx, err = evm.DecodeEIP1559(wire); err == nil {
				_, _ = tx.Sender()
			}
		})
		if err == nil {
			agreeWithGeth(t, wire, tx)
			return
		}
		var g types.Transaction
		if g.UnmarshalBinary(wire) != nil || g.Type() != types.DynamicFeeTxType || len(wire) > evm.MaxEIP1559Bytes {
			return
		}
		if _, err := types.Sender(types.LatestSignerForChainID(g.ChainId()), &g); err != nil {
			return
		}
		if why := stricter(&g); why == "" {
			t.Fatalf("go-ethereum reads a signed transaction the strict reader refuses: %x", wire)
		}
	})
}
