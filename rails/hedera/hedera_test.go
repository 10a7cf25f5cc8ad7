package hedera_test

import (
	"context"
	"encoding/base64"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/vectors"
)

var atrBytes = []byte("abc")

func doc(t testing.TB, asset string) *jsonv.Object {
	t.Helper()
	h := atr.Sum(atrBytes)
	option, err := hedera.PlaceOption(jsonv.Obj("scheme", "exact", "network", "hedera:testnet", "amount", "1000", "asset", asset,
		"payTo", "0.0.1234", "maxTimeoutSeconds", 60, "extra", jsonv.Obj("feePayer", "0.0.1235")))
	if err != nil {
		t.Fatal(err)
	}
	d, err := x402.Advertise(jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://api.seller.example/v1/quote"),
		"accepts", []jsonv.Value{option}), h, "https://atr.seller.example/"+h.String(), "")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var inputs = jsonv.Obj("node", "0.0.3", "maxFee", "100000000", "validStart", jsonv.Obj("seconds", "1700000000", "nanos", 0))

func pay(t testing.TB, d *jsonv.Object, s rails.Signer, in *jsonv.Object) (jsonv.Value, rails.Request) {
	p := hedera.Exact{}
	read, err := p.Read(d)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Choose(read, s.Account(), in, 0, "")
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
	return done.Signed, req
}

// The spend policy reads the signed body: the debit and credit of HBAR (8
// decimals) or of a token (its expected decimals), payable from the valid
// start for the valid duration; inspect agrees. The signer refuses a body
// that debits another account.
func TestExactSummarize(t *testing.T) {
	s, err := signer.NewHedera("hedera:testnet:0.0.5555", signer.HederaDevSeed)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		asset    string
		decimals int
	}{{hedera.HBAR, 8}, {"0.0.5449", 6}} {
		in := inputs.Clone()
		if c.asset != hedera.HBAR {
			in.Set("decimals", jsonv.Number(6))
		}
		signed, req := pay(t, doc(t, c.asset), s, in)
		g, err := hedera.Exact{}.Summarize(req)
		if err != nil || g.Asset != c.asset || g.Decimals != c.decimals || g.Amount.String() != "1000" || g.Payer != "0.0.5555" ||
			g.Payee != "0.0.1234" || g.PayableFrom.Unix() != 1700000000 || g.PayableUntil.Unix() != 1700000120 {
			t.Fatalf("%s: grant %+v (%v)", c.asset, g, err)
		}
		ins, err := hedera.Exact{}.Inspect(signed)
		if err != nil || ins.Grant.Amount.Cmp(g.Amount) != 0 || ins.H != atr.Sum(atrBytes).String() {
			t.Fatalf("inspect %+v (%v)", ins, err)
		}
	}
	other, _ := signer.NewHedera("hedera:testnet:0.0.7777", signer.HederaDevSeed)
	read, _ := hedera.Exact{}.Read(doc(t, hedera.HBAR))
	c, _ := hedera.Exact{}.Choose(read, "hedera:testnet:0.0.5555", inputs, 0, "")
	u, _ := hedera.Exact{}.Build(c, atrBytes, atr.Sum(atrBytes))
	req, _ := hedera.Exact{}.Request(u)
	if _, err := other.Sign(context.Background(), req); err == nil {
		t.Fatal("a key signed a body that moves nothing of its account")
	}
}

// FuzzHederaTransaction: the wire reader (DecodeTx), and x402/exact/hedera's
// Bound, Reference and Inspect with the input in the vector payment's place,
// never panic and stay within the time bound; Inspect's H is Bound's, and a
// body read back is its bytes exactly. Seeded with the vector file's
// transactions.
func FuzzHederaTransaction(f *testing.F) {
	seeds, err := vectors.Strings("x402-exact-hedera.json", "transactionBase64", "expectTransactionBase64", "listBase64", "inconsistentListBase64")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range seeds {
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			f.Add(b)
		}
	}
	payments, err := vectors.Payments()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, wire []byte) {
		cost.Bound(t, len(wire), func() {
			if s, err := hedera.DecodeTx(wire); err == nil {
				for _, b := range s.Bodies {
					again, ok := hedera.ReadBody(b.Bytes)
					if !ok || string(again.Bytes) != string(b.Bytes) || again.Memo != b.Memo || again.ID != b.ID {
						t.Fatal("a body read does not read back the same")
					}
				}
			}
			p := hedera.Exact{}
			pay := jsonv.Clone(payments[hedera.ExactID]).(*jsonv.Object)
			pay.Set("payload", jsonv.Obj("transaction", base64.StdEncoding.EncodeToString(wire)))
			h, errB := p.Bound(pay)
			_, _ = p.Reference(pay)
			in, errI := p.Inspect(pay)
			if errI == nil && (errB != nil || h != in.H) {
				t.Fatalf("inspect says H %q, bound %q (%v)", in.H, h, errB)
			}
			if errI == nil {
				_ = jsonv.Marshal(in.JSON())
			}
		})
	})
}

// BenchmarkHederaExactBuildSignFinish is x402/exact/hedera with the ATR in
// hand: read, choose, build (the body written), sign with the local Ed25519
// key, complete the transaction, read H back.
func BenchmarkHederaExactBuildSignFinish(b *testing.B) {
	s, _ := signer.NewHedera("hedera:testnet:0.0.5555", signer.HederaDevSeed)
	d := doc(b, hedera.HBAR)
	b.ReportAllocs()
	for b.Loop() {
		pay(b, d, s, inputs)
	}
}
