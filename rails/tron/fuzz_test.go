package tron_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/tron"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/vectors"
)

// seeds are every transaction of the vector file (V2's, the refusals',
// the agreed refusals').
func seeds(t testing.TB) []string {
	f, err := vectors.Load("x402-exact-tron-lcp-trc20-memo.json")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(v jsonv.Value)
	walk = func(v jsonv.Value) {
		switch x := v.(type) {
		case *jsonv.Object:
			for _, k := range x.Keys() {
				c, _ := x.Get(k)
				if s, ok := c.(string); ok && (k == "transaction" || k == "expectTransactionHex") {
					out = append(out, s)
				}
				walk(c)
			}
		case []jsonv.Value:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(f)
	return out
}

// FuzzDecodeTx: the transaction reader never panics; what it accepts
// writes back to exactly its bytes (one spelling per transaction), and
// its carrier, grant and bare inspection end in a value or an error.
func FuzzDecodeTx(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			tx, err := tron.DecodeTx(s)
			if err != nil {
				return
			}
			if got := hex.EncodeToString(tron.EncodeTransaction(tx.Raw.Encode(), tx.Signatures...)); got != s {
				t.Fatalf("accepted %s but writes back %s", s, got)
			}
			_, _ = tron.Carrier(tx)
			_, _ = tron.RawGrant(&tx.Raw, "tron:728126428")
			_, _ = tron.InspectTx(s)
		})
	})
}

// FuzzExactPayment: any text as the vector payment's transaction never
// panics Bound, PaymentReference or Inspect, and Inspect's H is Bound's.
func FuzzExactPayment(f *testing.F) {
	payments, err := vectors.Payments()
	if err != nil {
		f.Fatal(err)
	}
	base := payments[tron.ExactID].(*jsonv.Object)
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			pay := base.Clone()
			pay.Set("payload", jsonv.Obj("transaction", s))
			h, errB := tron.Exact{}.Bound(pay)
			_, errR := tron.PaymentReference(pay)
			in, errI := tron.Exact{}.Inspect(pay)
			if (errB == nil) != (errR == nil) || errB == nil && errI == nil && in.H != h {
				t.Fatalf("bound %q %v, reference %v, inspect %q %v", h, errB, errR, in.H, errI)
			}
		})
	})
}

// FuzzSigningRequest: the request reader the signer and the policy use
// never panics on any raw data.
func FuzzSigningRequest(f *testing.F) {
	for _, s := range seeds(f) {
		if tx, err := tron.DecodeTx(s); err == nil {
			f.Add(tx.RawBytes)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		cost.Bound(t, len(raw), func() {
			id := tron.TxID(raw)
			req := jsonv.Obj("kind", tron.KindTxID, "network", "tron:728126428", "txid", "0x"+hex.EncodeToString(id[:]), "rawData", "0x"+hex.EncodeToString(raw))
			if g, err := (tron.Exact{}).Summarize(req); err == nil && (g.Amount == nil || g.Payer == "") {
				t.Fatalf("summarized %x as %+v", raw, g)
			}
			if r, err := tron.DecodeRaw(raw); err == nil && !bytes.Equal(r.Encode(), raw) {
				t.Fatalf("raw %x not canonical", raw)
			}
		})
	})
}

// BenchmarkTronBuildSignFinish is x402/exact/tron/lcp-trc20-memo with the
// ATR in hand: build the transfer with H as its memo and its id, sign the
// id with the local secp256k1 key (which reads the raw data back first),
// then the gate's Finish: rebuild, recover the signer, write the
// transaction, decode it again and read H back.
func BenchmarkTronBuildSignFinish(b *testing.B) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	option := jsonv.Obj("scheme", "exact", "network", "tron:728126428", "amount", "10000", "asset", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
		"payTo", "TCwX1UeSkVfu43HD5xNMmFqDR2Xgjdxihx", "maxTimeoutSeconds", 60, "extra", jsonv.Obj("assetTransferMethod", "lcp-trc20-memo"))
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{option},
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info", jsonv.Obj("type", "sha256", "value", h.String(),
			"legalContextUrl", "https://atr.seller.example/"+h.String()))))
	s, err := signer.TronFromHex(signer.AnvilKey, "tron:728126428")
	if err != nil {
		b.Fatal(err)
	}
	p := tron.Exact{}
	read, err := p.Read(doc)
	if err != nil {
		b.Fatal(err)
	}
	inputs := jsonv.Obj("refBlock", jsonv.Obj("number", "86542765", "id", "0x00000000052889ad7d1ddbe0b0adbe87d02b3cdbba73a6d485ff0392ab0e5003"), "feeLimit", "100000000")
	choice, err := p.Choose(read, s.Account(), inputs, 1_790_300_664, "")
	if err != nil {
		b.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: tron.ExactID, Choice: choice, Ref: rails.NewRef()}
	g := &gate.Gate{}
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cost.CPU()
	for b.Loop() {
		u, err := p.Build(choice, atrBytes, h)
		if err != nil {
			b.Fatal(err)
		}
		req, _ := p.Request(u)
		answer, err := s.Sign(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := g.Finish(atrBytes, tron.ExactID, chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
