package hedera_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"math/big"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/vectors"
)

// chargeDoc is a placed MPP Hedera charge of 1000 tinybars to 0.0.1234
// with a split of 100 to 0.0.67890, on testnet.
func chargeDoc(t testing.TB) []jsonv.Value {
	t.Helper()
	h := atr.Sum(atrBytes)
	request := jsonv.Obj("amount", "1000", "currency", hedera.HBAR, "recipient", "0.0.1234",
		"splits", []jsonv.Value{jsonv.Obj("recipient", "0.0.67890", "amount", "100")}, "methodDetails", jsonv.Obj("chainId", 296))
	c := jsonv.Obj("realm", "api.seller.example", "method", "hedera", "intent", "charge",
		"request", mpp.EncodeObject(request), "expires", "2099-01-01T00:00:00Z")
	doc, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func payCharge(t testing.TB, doc []jsonv.Value, s rails.Signer) (jsonv.Value, rails.Request) {
	p := hedera.Charge{}
	read, err := p.Read(doc)
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
	done, err := p.Complete(u, answer, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p.Bound(done.Signed); err != nil || got != h.String() {
		t.Fatalf("bound %q, %v", got, err)
	}
	return done.Signed, req
}

// The grant is the whole debit from the payer to the recipient (the split
// is paid out of it), and Inspect reads the same grant with the split.
func TestChargeSummary(t *testing.T) {
	s, _ := signer.NewHedera("hedera:testnet:0.0.5555", signer.HederaDevSeed)
	paid, req := payCharge(t, chargeDoc(t), s)
	g, err := hedera.Charge{}.Summarize(req)
	if err != nil || g.Amount.Cmp(big.NewInt(1000)) != 0 || g.Payer != "0.0.5555" || g.Payee != "0.0.1234" ||
		g.Asset != hedera.HBAR || g.Decimals != 8 || g.Network != "hedera:testnet" || g.PayableUntil.Unix() != 1700000120 {
		t.Fatalf("grant %+v, %v", g, err)
	}
	in, err := hedera.Charge{}.Inspect(paid)
	if err != nil || in.Grant.Amount.Cmp(g.Amount) != 0 || in.H != atr.Sum(atrBytes).String() || in.Kind != "credential" {
		t.Fatalf("inspect %+v, %v", in, err)
	}
	splits, _ := in.Details.Get("splits")
	if got := jsonv.String(splits); got != `[{"recipient":"0.0.67890","amount":"100"}]` {
		t.Fatalf("splits %s", got)
	}
	// A body the payer is not debited in is not summarized as a charge.
	bad := req.Clone()
	bad.Set("bodyBytes", "00")
	if _, err := (hedera.Charge{}).Summarize(bad); err == nil {
		t.Fatal("an unreadable body summarized")
	}
}

// FuzzHederaChargeCredential: mpp/charge/hedera's Bound, ReferenceLanded,
// FetchPresented's reading (no reader: refused before any read) and Inspect
// with the input as the pull credential's transaction, never panic and stay
// within the time bound; Inspect's H is Bound's. Seeded with the vector
// file's transactions.
func FuzzHederaChargeCredential(f *testing.F) {
	seeds, err := vectors.Strings("mpp-charge-hedera.json", "expectTransactionBase64", "otherTransactionBase64", "transaction")
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
			p := hedera.Charge{}
			pay := jsonv.Clone(payments[hedera.ChargeID]).(*jsonv.Object)
			pay.Set("payload", jsonv.Obj("type", "transaction", "transaction", base64.StdEncoding.EncodeToString(wire)))
			h, errB := p.Bound(pay)
			_, _ = hedera.ReferenceLanded(pay, nil)
			if _, err := hedera.FetchPresented(pay, nil, ""); err == nil {
				t.Fatal("fetched with no reader")
			}
			in, errI := p.Inspect(pay)
			if errI == nil && (errB != nil || h != in.H) {
				t.Fatalf("inspect says H %q, bound %q (%v)", in.H, h, errB)
			}
			if errI == nil {
				_ = jsonv.Marshal(in.JSON())
			}
			if s, err := hedera.WireOf(base64.StdEncoding.EncodeToString(wire)); err == nil {
				_, _ = p.Summarize(jsonv.Obj("kind", hedera.KindBody, "network", "hedera:testnet",
					"bodyBytes", hex.EncodeToString(s.Bodies[0].Bytes)))
			}
		})
	})
}

// BenchmarkHederaChargeBuildSignFinish is mpp/charge/hedera with the ATR in
// hand: read the placed challenge, choose, build (the three-row body
// written), sign with the local Ed25519 key, complete the credential (the
// signature verified), read H back.
func BenchmarkHederaChargeBuildSignFinish(b *testing.B) {
	s, _ := signer.NewHedera("hedera:testnet:0.0.5555", signer.HederaDevSeed)
	d := chargeDoc(b)
	b.ReportAllocs()
	for b.Loop() {
		payCharge(b, d, s)
	}
}
