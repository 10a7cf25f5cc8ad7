package solana_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"testing"

	solanago "github.com/gagliardetto/solana-go"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

const devnet = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"

var (
	atrBytes = []byte("abc")
	mint     = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"
	payTo    = "2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4"
	feePayer = "9hSR6S7WPtxmTojgo6GG3k4yDPecgJY292j7xrsUGWBu"
)

func doc(t testing.TB) *jsonv.Object {
	h := atr.Sum(atrBytes)
	option := jsonv.Obj("scheme", "exact", "network", devnet, "amount", "1000", "asset", mint, "payTo", payTo,
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("feePayer", feePayer))
	option, err := solana.PlaceCarrier(option, h)
	if err != nil {
		t.Fatal(err)
	}
	d, err := x402.Advertise(jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{option}), h, "https://atr.seller.example/"+h.String(), "")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var inputs = jsonv.Obj("decimals", 6, "tokenProgram", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
	"recentBlockhash", "EZ3rST5dvHmbanh75jc4PuLfV96vp9fEYBVeNk4FfM1k")

// pay reads, chooses, builds, signs with the local key, completes and reads
// H back, with the ATR in hand.
func pay(t testing.TB, d *jsonv.Object, s *signer.Solana) jsonv.Value {
	p := solana.Exact{}
	read, err := p.Read(d)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Choose(read, s.Account(), inputs, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	h := atr.Sum(atrBytes)
	u, err := p.Build(c, atrBytes, h)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	answer, err := s.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	done, err := p.Complete(u, answer, rails.Chosen{Ref: rails.NewRef()})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p.Bound(done.Signed); err != nil || got != h.String() {
		t.Fatalf("bound %s (%v)", got, err)
	}
	return done.Signed
}

// The package's own keys, PDAs and wire agree with solana-go: the seed's
// public key, the associated token accounts, the transaction solana-go
// decodes from the wire, and the payer's signature it verifies.
func TestAgreesWithSolanaGo(t *testing.T) {
	s, _ := signer.SolanaFromSeedHex(signer.SolanaDevSeed, devnet)
	seed, _ := hex.DecodeString(signer.SolanaDevSeed)
	priv := solanago.PrivateKey(ed25519.NewKeyFromSeed(seed))
	if priv.PublicKey().String() != s.Key().String() {
		t.Fatalf("public key %s, solana-go %s", s.Key(), priv.PublicKey())
	}
	for _, owner := range []string{s.Key().String(), payTo} {
		ours, err := solana.AssociatedTokenAccount(solana.MustKey(owner), solana.TokenProgram, solana.MustKey(mint))
		theirs, _, err2 := solanago.FindAssociatedTokenAddress(solanago.MustPublicKeyFromBase58(owner), solanago.MustPublicKeyFromBase58(mint))
		if err != nil || err2 != nil || ours.String() != theirs.String() {
			t.Fatalf("ATA of %s: %s, solana-go %s", owner, ours, theirs)
		}
	}
	for _, k := range []string{feePayer, mint, "11111111111111111111111111111111"} {
		b, _ := solana.DecodeBase58(k)
		if solana.Base58(b) != k || solanago.MustPublicKeyFromBase58(k).String() != k {
			t.Fatalf("base58 %s", k)
		}
	}
	signed := pay(t, doc(t), s)
	text, _ := jsonv.AsString(mustGet(signed, "payload", "transaction"))
	tx, err := solanago.TransactionFromBase64(text)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !tx.Signatures[1].Verify(solanago.PublicKey(s.Key()), msg) || tx.Message.AccountKeys[1].String() != s.Key().String() {
		t.Fatal("solana-go does not verify the payer's signature")
	}
	if tx.Message.AccountKeys[0].String() != feePayer || !tx.Message.IsVersioned() {
		t.Fatalf("fee payer %s", tx.Message.AccountKeys[0])
	}
}

func mustGet(v jsonv.Value, path ...string) jsonv.Value {
	for _, k := range path {
		o, _ := jsonv.AsObject(v)
		v, _ = o.Get(k)
	}
	return v
}

// Hostile wires: every one ends in a named refusal, never a panic.
func TestHostileWires(t *testing.T) {
	s, _ := signer.SolanaFromSeedHex(signer.SolanaDevSeed, devnet)
	signed := pay(t, doc(t), s)
	text, _ := jsonv.AsString(mustGet(signed, "payload", "transaction"))
	wire, _ := base64.StdEncoding.DecodeString(text)
	sigEnd := 1 + 64*2
	cases := map[string][]byte{
		"short read":                 wire[:len(wire)-3],
		"compact-u16 past the end":   append(append([]byte(nil), wire[:sigEnd+4]...), 0xff, 0xff, 0x03),
		"non-shortest compact-u16":   append([]byte{0x82, 0x00}, wire[1:]...),
		"signature count mismatched": append([]byte{3}, append(make([]byte, 64), wire[1:]...)...),
		"trailing byte":              append(append([]byte(nil), wire...), 0),
		"version 1":                  func() []byte { w := append([]byte(nil), wire...); w[sigEnd] = 0x81; return w }(),
		"too many instructions":      append(append([]byte(nil), wire[:sigEnd+4+32*11+32]...), 0xff, 0x7f),
	}
	for name, w := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := solana.WireOf(base64.StdEncoding.EncodeToString(w))
			if r, ok := err.(*rails.Refusal); !ok || r.Code != solana.CodeTxMalformed {
				t.Fatalf("got %v", err)
			}
		})
	}
	// An account index past the keys: decodes (indexes are checked where
	// they are used), but names no program, so no memo is found.
	bad := append([]byte(nil), wire...)
	m, _, _ := solana.DecodeTx(bad)
	last := len(bad) - 1 - len(m.Instructions[3].Data) - 1 - 1 - 1 // the memo's program index
	bad[last] = 200
	_, err := (solana.Exact{}).Bound(jsonv.Obj("x402Version", 2, "accepted", mustGet(signed, "accepted"),
		"payload", jsonv.Obj("transaction", base64.StdEncoding.EncodeToString(bad))))
	if r, ok := err.(*rails.Refusal); !ok || r.Code != solana.CodeMemoCount {
		t.Fatalf("program index past the keys: %v", err)
	}
}

// FuzzTxReader: no input panics the reader, and what it accepts it reads
// back the same way from the bytes it kept.
func FuzzTxReader(f *testing.F) {
	s, _ := signer.SolanaFromSeedHex(signer.SolanaDevSeed, devnet)
	signed := pay(f, doc(f), s)
	text, _ := jsonv.AsString(mustGet(signed, "payload", "transaction"))
	wire, _ := base64.StdEncoding.DecodeString(text)
	f.Add(wire)
	f.Add([]byte{1, 0})
	accepted := mustGet(signed, "accepted")
	f.Fuzz(func(t *testing.T, w []byte) {
		cost.Bound(t, len(w), func() { readAll(t, w, accepted) })
	})
}

func readAll(t testing.TB, w []byte, accepted jsonv.Value) {
	{
		tx, ok, _ := solana.DecodeTx(w)
		if ok {
			m, ok := solana.DecodeMessage(tx.Message)
			if !ok || len(m.Keys) != len(tx.Keys) || len(m.Instructions) != len(tx.Instructions) {
				t.Fatal("the kept message does not read back")
			}
			_, _, _ = solana.MemoCarrier(tx)
			_ = solana.ReferenceOf(devnet, tx)
		}
		p := jsonv.Obj("x402Version", 2, "accepted", accepted, "payload", jsonv.Obj("transaction", base64.StdEncoding.EncodeToString(w)))
		_, _ = (solana.Exact{}).Bound(p)
		_, _ = (solana.Exact{}).Inspect(p)
		_, _ = (solana.Exact{}).Summarize(jsonv.Obj("kind", "solana-message", "network", devnet, "message", "0x"+hex.EncodeToString(w)))
	}
}

// BenchmarkTxReader is FuzzTxReader's body on its first seed, the signed
// 541-byte transaction, and on its second, two bytes: what one fuzz input
// costs without the fuzzing engine (docs/fuzzing.md).
func BenchmarkTxReader(b *testing.B) {
	s, _ := signer.SolanaFromSeedHex(signer.SolanaDevSeed, devnet)
	signed := pay(b, doc(b), s)
	text, _ := jsonv.AsString(mustGet(signed, "payload", "transaction"))
	wire, _ := base64.StdEncoding.DecodeString(text)
	accepted := mustGet(signed, "accepted")
	for name, w := range map[string][]byte{"signed": wire, "two-bytes": {1, 0}} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				readAll(b, w, accepted)
			}
		})
	}
}

// BenchmarkSolanaExactBuildSignFinish is x402/exact/solana with the ATR in
// hand: read, choose, build (two PDAs, the v0 message), sign with the local
// Ed25519 key, complete the wire, read H back.
func BenchmarkSolanaExactBuildSignFinish(b *testing.B) {
	s, _ := signer.SolanaFromSeedHex(signer.SolanaDevSeed, devnet)
	d := doc(b)
	b.ReportAllocs()
	for b.Loop() {
		pay(b, d, s)
	}
}
