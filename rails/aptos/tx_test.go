package aptos

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
)

// fixtureF is x402-exact-aptos.json's fixture F, as the x402 wallet
// builds it.
func fixtureF(t testing.TB) *RawTransaction {
	t.Helper()
	addr := func(s string) Address {
		a, ok := ParseAddress(s)
		if !ok {
			t.Fatalf("address %s", s)
		}
		return a
	}
	meta, to := addr("0x357b0b74bc833e95a115ad22604854d6b0fca151cecd94111770e5d6ffc9dc2b"), addr("0xe8ca094fec460329aaccc2a644dc73c5e39f1a2ad6e97f82b6cbdc1a5949b9ea")
	amount := make([]byte, 8)
	for i, n := 0, uint64(99900000); i < 8; i, n = i+1, n>>8 {
		amount[i] = byte(n)
	}
	return &RawTransaction{Sender: addr("0x1b609a6c28d853520749bad0e651cf98606e5d0c8151f1f0fe275d3cc4f9965a"), SequenceNumber: 218,
		Payload: EntryFunction{Module: addr("0x1"), Name: "primary_fungible_store", Function: "transfer",
			TypeArgs: []TypeTag{{Variant: 7, Struct: &StructTag{Address: addr("0x1"), Module: "fungible_asset", Name: "Metadata"}}},
			Args:     [][]byte{meta[:], to[:], amount}},
		MaxGasAmount: 15000, GasUnitPrice: 100, Expiration: 1790300895, ChainID: 1}
}

// Fixture F written is the vector's 265 bytes (its SHA-256), reads back
// to itself, is the x402 transfer, and its normal form's digest is V1's
// idDigest; a script payload and a trailing byte are refused.
func TestFixtureF(t *testing.T) {
	raw := fixtureF(t).Encode()
	if sum := sha256.Sum256(raw); len(raw) != 265 || hex.EncodeToString(sum[:]) != "d3c4f4c798d70039d9b2a14e5a5e3ec0c9e6e7243ecc190ac681b960b2c34891" {
		t.Fatalf("%d bytes, SHA-256 %x", len(raw), sum)
	}
	tx, err := DecodeRawTransaction(raw)
	if err != nil || !bytes.Equal(tx.Encode(), raw) {
		t.Fatalf("decode: %v", err)
	}
	tr, err := tx.ReadTransfer()
	if err != nil || tr.Amount != 99900000 {
		t.Fatalf("transfer %+v, %v", tr, err)
	}
	n := NormalForm(tx.Sender, tx.SequenceNumber, tr)
	want := `{"arguments":["0x357b0b74bc833e95a115ad22604854d6b0fca151cecd94111770e5d6ffc9dc2b","0xe8ca094fec460329aaccc2a644dc73c5e39f1a2ad6e97f82b6cbdc1a5949b9ea","99900000"],"function":"0x0000000000000000000000000000000000000000000000000000000000000001::primary_fungible_store::transfer","sender":"0x1b609a6c28d853520749bad0e651cf98606e5d0c8151f1f0fe275d3cc4f9965a","sequenceNumber":"218","typeArguments":["0x0000000000000000000000000000000000000000000000000000000000000001::fungible_asset::Metadata"]}`
	if got := string(jsonv.Canonical(n)); got != want {
		t.Fatalf("normal form %s", got)
	}
	if d := IDDigest(n); hex.EncodeToString(d[:]) != "190f62077d11b2f734f93a45c86adedc566083b43ea3f6f5694c713a7e481f02" {
		t.Fatalf("id digest %x", d)
	}
	script := append(append([]byte(nil), raw[:40]...), 0)
	if _, err := DecodeRawTransaction(append(script, raw[41:]...)); err != ErrNotEntryFunction {
		t.Fatalf("script: %v", err)
	}
	if _, err := DecodeRawTransaction(append(raw, 0)); err != ErrMalformed {
		t.Fatalf("trailing byte: %v", err)
	}
	if _, err := DecodeRawTransaction(raw[:100]); err != ErrMalformed {
		t.Fatalf("short: %v", err)
	}
	g := fixtureF(t)
	g.Payload.TypeArgs[0].Struct.TypeArgs = []TypeTag{{Variant: 1}}
	if _, err := g.ReadTransfer(); err == nil {
		t.Fatal("a Metadata with type arguments read as the transfer")
	}
}

// FuzzDecodeRawTransaction: any bytes decode to a transaction that writes
// back to them, or an error; never a panic.
func FuzzDecodeRawTransaction(f *testing.F) {
	f.Add(fixtureF(f).Encode())
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			tx, err := DecodeRawTransaction(b)
			if err == nil {
				if !bytes.Equal(tx.Encode(), b) {
					t.Fatal("decoded bytes do not write back")
				}
				if tr, err := tx.ReadTransfer(); err == nil {
					_ = IDDigest(NormalForm(tx.Sender, tx.SequenceNumber, tr))
				}
			}
		})
	})
}

// FuzzCommitted: any JSON as a node's transaction answer reads to an
// instrument or false, and judges a status, never a panic.
func FuzzCommitted(f *testing.F) {
	f.Add([]byte(`{"type":"user_transaction","hash":"0x01","version":"1","success":true,"sender":"0x1","sequence_number":"218","payload":{"type":"entry_function_payload","function":"0x1::primary_fungible_store::transfer","type_arguments":["0x1::fungible_asset::Metadata"],"arguments":[{"inner":"0x2"},"0x3","5"]}}`))
	f.Add([]byte(`{"type":"pending_transaction"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			v, err := jsonv.Parse(b)
			o, ok := jsonv.AsObject(v)
			if err != nil || !ok {
				return
			}
			if n, _, _, ok := Committed(o); ok {
				_ = IDDigest(n)
			}
			_, _ = decide(o, Reference{Network: "aptos:1", Sequence: 218})
		})
	})
}
