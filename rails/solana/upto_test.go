package solana_test

import (
	"context"
	"encoding/base64"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/vectors"
)

// uptoDoc is an x402/upto/solana document placed for "abc".
func uptoDoc(t testing.TB) *jsonv.Object {
	t.Helper()
	h := atr.Sum(atrBytes)
	option := jsonv.Obj("scheme", "upto", "network", devnet, "amount", "10000", "asset", mint, "payTo", payTo, "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("feePayer", feePayer, "receiverAuthorizer", "GyGKxMyg1p9SsHfm15MkNUu1u9TN2JtTspcdmrtGUdse", "withdrawDelay", 3600,
			"tokenProgram", solana.TokenProgram.String(), "paymentFlow", "escrow"))
	option, err := solana.PlaceUptoCarrier(option, h)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := x402.Advertise(jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://api.seller.example/v1/quote"),
		"accepts", []jsonv.Value{option}), h, "https://atr.seller.example/"+h.String(), "")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

var uptoInputs = jsonv.Obj("nonce", "7", "openSlot", "341000000", "tokenProgram", solana.TokenProgram.String(),
	"recentBlockhash", "EZ3rST5dvHmbanh75jc4PuLfV96vp9fEYBVeNk4FfM1k")

func payUpto(t testing.TB, d *jsonv.Object, s *signer.Solana) (jsonv.Value, rails.Request) {
	p := solana.Upto{}
	read, err := p.Read(d)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Choose(read, s.Account(), uptoInputs, 1790000000, "")
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

// The spend policy judges the signed maximum: the deposit the opening
// escrows, to the option's payee, payable until validUntil; inspect agrees.
// An openSlot the payment cannot write as a JSON number exactly is refused
// before anything is fetched.
func TestUptoSummarize(t *testing.T) {
	s, _ := signer.SolanaFromSeedHex(signer.SolanaDevSeed, devnet)
	signed, req := payUpto(t, uptoDoc(t), s)
	g, err := solana.Upto{}.Summarize(req)
	if err != nil || g.Amount.String() != "10000" || g.Asset != mint || g.Payee != payTo || g.Payer != s.Key().String() ||
		g.PayableUntil.Unix() != 1790000000+solana.BlockhashPayableSeconds {
		t.Fatalf("grant %+v (%v)", g, err)
	}
	in, err := solana.Upto{}.Inspect(signed)
	if err != nil || in.Grant.Amount.Cmp(g.Amount) != 0 || in.Kind != "payment" {
		t.Fatalf("inspect %+v (%v)", in, err)
	}
	read, _ := solana.Upto{}.Read(uptoDoc(t))
	big := uptoInputs.Clone()
	big.Set("openSlot", "9007199254740992")
	if _, err := (solana.Upto{}).Choose(read, s.Account(), big, 0, ""); err == nil || err.(*rails.Refusal).Code != x402.CodeInputMissing {
		t.Fatalf("openSlot 2^53: %v", err)
	}
}

// FuzzUptoOpening: the read-back, reference and inspection of an
// x402/upto/solana payment with any bytes as its opening transaction
// never panic and stay within the time bound; Inspect's H is Bound's.
// Seeded with the vector file's wires.
func FuzzUptoOpening(f *testing.F) {
	seeds, err := vectors.Strings("x402-upto-solana.json", "wireBase64", "landedWireBase64", "openTransaction")
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
			p := solana.Upto{}
			pay := jsonv.Clone(payments[solana.UptoID]).(*jsonv.Object)
			payload, _ := pay.GetObject("payload")
			payload.Set("openTransaction", base64.StdEncoding.EncodeToString(wire))
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

// BenchmarkSolanaUptoBuildSignFinish is x402/upto/solana with the ATR in
// hand: read, choose, build (the channel's address, two associated token
// accounts, the v0 opening), sign with the local Ed25519 key, complete the
// payment, read H back.
func BenchmarkSolanaUptoBuildSignFinish(b *testing.B) {
	s, _ := signer.SolanaFromSeedHex(signer.SolanaDevSeed, devnet)
	d := uptoDoc(b)
	b.ReportAllocs()
	for b.Loop() {
		payUpto(b, d, s)
	}
}
