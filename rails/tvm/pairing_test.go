package tvm_test

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/tvm"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/vectors"
)

const (
	seed   = "0101010101010101010101010101010101010101010101010101010101010101"
	wallet = "0:1da21a6e33ef22840029ae77900f61ba820b94e813a3b7bef4e3ea471007645f"
)

func setup(tb testing.TB) (tvm.Exact, jsonv.Value, *signer.TVM, []byte, atr.Hash) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	option := jsonv.Obj("scheme", "exact", "network", "tvm:-239", "amount", "10000",
		"asset", "0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe",
		"payTo", "0:92433a576cbe56c4dcc86d94b497a2cf18a9baa9c8283fea28ea43eb3c25cfed", "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("areFeesSponsored", true))
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{option},
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info", jsonv.Obj("type", "sha256", "value", h.String(),
			"legalContextUrl", "https://atr.seller.example/"+h.String()))))
	if err := tvm.Place(doc, 0, h); err != nil {
		tb.Fatal(err)
	}
	s, err := signer.TVMFromSeedHex(seed, wallet, "tvm:-239")
	if err != nil {
		tb.Fatal(err)
	}
	p := tvm.Exact{}
	read, err := p.Read(doc)
	if err != nil {
		tb.Fatal(err)
	}
	inputs := jsonv.Obj("walletId", 2147483409, "seqno", 5,
		"jettonWallet", "0:1111111111111111111111111111111111111111111111111111111111111111", "attachNanotons", "50000000")
	choice, err := p.Choose(read, s.Account(), inputs, 1_790_000_000, "")
	if err != nil {
		tb.Fatal(err)
	}
	return p, choice, s, atrBytes, h
}

// What Summarize and Inspect state is what was signed: the transfer's
// amount and payee out of the payer's Jetton wallet, until validUntil; the
// signer refuses a request for another wallet.
func TestSummaryAndInspection(t *testing.T) {
	p, choice, s, atrBytes, h := setup(t)
	u, err := p.Build(choice, atrBytes, h)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	g, err := p.Summarize(req)
	if err != nil || g.Amount.String() != "10000" || g.Payee != "0:92433a576cbe56c4dcc86d94b497a2cf18a9baa9c8283fea28ea43eb3c25cfed" ||
		g.Payer != wallet || g.PayableUntil.Unix() != 1_790_000_060 || g.Asset != "0:1111111111111111111111111111111111111111111111111111111111111111" {
		t.Fatalf("grant %+v, %v", g, err)
	}
	answer, err := s.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	done, err := p.Complete(u, answer, rails.Chosen{Ref: "r"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := p.Inspect(done.Signed)
	if err != nil || in.H != h.String() || in.Grant.Amount.Cmp(g.Amount) != 0 || in.Grant.Payee != g.Payee {
		t.Fatalf("inspection %+v, %v", in, err)
	}
	other, _ := signer.TVMFromSeedHex(seed, "0:6e1691b4371386ec5126b3bd61b991397c798f0b78435f44d4046f7fae460990", "tvm:-239")
	if _, err := other.Sign(context.Background(), req); err == nil {
		t.Fatal("another wallet's key signed")
	}
	forged := req.Clone()
	forged.Set("hash", "0x00000000000000000000000000000000000000000000000000000000000000ff")
	if _, err := s.Sign(context.Background(), forged); err == nil {
		t.Fatal("a hash that is not the request's signed")
	}
	if _, err := p.Summarize(forged); err == nil {
		t.Fatal("a forged request summarized")
	}
}

// FuzzExactPayment: any settlement BoC in a payment ends Bound, the
// reference, Open and Inspect in a value or an error, and Inspect's H is
// Bound's.
func FuzzExactPayment(f *testing.F) {
	pays, err := vectors.Payments()
	if err != nil {
		f.Fatal(err)
	}
	base := pays[tvm.ExactID].(*jsonv.Object)
	pl, _ := base.GetObject("payload")
	boc, _ := pl.GetString("settlementBoc")
	f.Add(boc)
	f.Add("te6cckEBAQEAAgAAAEysuc0=")
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			pay := base.Clone()
			pay.Set("payload", jsonv.Obj("settlementBoc", s, "asset", "0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe"))
			h, err := tvm.Exact{}.Bound(pay)
			_, _ = tvm.PaymentReference(pay)
			_, _ = tvm.Open(s)
			in, ierr := tvm.Exact{}.Inspect(pay)
			if ierr == nil && (err != nil || in.H != h) {
				t.Fatalf("inspect %s, bound %s %v", in.H, h, err)
			}
		})
	})
}

// FuzzSigningRequest: any request cell ends Summarize in a grant or an
// error.
func FuzzSigningRequest(f *testing.F) {
	p, choice, _, atrBytes, h := setup(f)
	u, _ := p.Build(choice, atrBytes, h)
	req, _ := p.Request(u)
	seed, _ := req.GetString("request")
	f.Add(seed)
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			r := req.Clone()
			r.Set("request", s)
			if c, err := tvm.DecodeBoC64(s); err == nil {
				hh := c.Hash()
				r.Set("hash", "0x"+hexOf(hh[:]))
			}
			_, _ = p.Summarize(r)
		})
	})
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, x := range b {
		out[2*i], out[2*i+1] = digits[x>>4], digits[x&15]
	}
	return string(out)
}

func BenchmarkTvmBuildSignFinish(b *testing.B) {
	p, choice, s, atrBytes, h := setup(b)
	chosen := rails.Chosen{Pairing: tvm.ExactID, Choice: choice, Ref: rails.NewRef()}
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
		if _, err := g.Finish(atrBytes, tvm.ExactID, chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// Choose checks the buyer's inputs before anything is fetched or built.
func TestChooseChecksInputs(t *testing.T) {
	p, choice, s, _, _ := setup(t)
	req, _ := choice.(*jsonv.Object).Get("required")
	read, _ := p.Read(req)
	for name, in := range map[string]*jsonv.Object{
		"seqno above uint32": jsonv.Obj("walletId", 1, "seqno", 1<<32, "jettonWallet", wallet, "attachNanotons", "1"),
		"friendly jetton":    jsonv.Obj("walletId", 1, "seqno", 1, "jettonWallet", "EQCSQzpXbL5WxNzIbZS0l6LPGKm6qcgoP-oo6kPrPCXP7Ttj", "attachNanotons", "1"),
		"attach zero":        jsonv.Obj("walletId", 1, "seqno", 1, "jettonWallet", wallet, "attachNanotons", "0"),
		"state init not BoC": jsonv.Obj("walletId", 1, "seqno", 0, "jettonWallet", wallet, "attachNanotons", "1", "stateInit", "AAAA"),
		"attach not decimal": jsonv.Obj("walletId", 1, "seqno", 1, "jettonWallet", wallet, "attachNanotons", 5),
		"no jetton wallet":   jsonv.Obj("walletId", 1, "seqno", 1, "attachNanotons", "1"),
	} {
		if _, err := p.Choose(read, s.Account(), in, 1_790_000_000, ""); err == nil {
			t.Errorf("%s: chosen", name)
		}
	}
}
