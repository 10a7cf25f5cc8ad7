package solana_test

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/vectors"
)

// chargeDoc is a Solana charge challenge list placed for "abc", as issued
// with request (methodDetails as given).
func chargeDoc(t testing.TB, method string, request *jsonv.Object) []jsonv.Value {
	t.Helper()
	h := atr.Sum(atrBytes)
	c := jsonv.Obj("realm", "api.seller.example", "method", method, "intent", "charge",
		"request", mpp.EncodeObject(request), "expires", "2026-09-21T14:14:20Z")
	place := solana.PlaceChargeChallenge
	if method == "usdc" {
		place = solana.PlaceUSDCChallenge
	}
	c, err := place(c, h)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func tokenRequest() *jsonv.Object {
	return jsonv.Obj("amount", "1000", "currency", mint, "recipient", payTo, "methodDetails",
		jsonv.Obj("network", "devnet", "decimals", 6, "tokenProgram", solana.TokenProgram.String(), "feePayer", true, "feePayerKey", feePayer))
}

// payCharge reads, chooses, builds, signs with the local key, completes and
// reads H back; it returns the credential and the request signed.
func payCharge(t testing.TB, p rails.Pairing, doc []jsonv.Value, s *signer.Solana, in *jsonv.Object) (jsonv.Value, rails.Request) {
	read, err := p.Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Choose(read, s.Account(), in, 1790000000, "")
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
		t.Fatalf("bound %s (%v)", got, err)
	}
	return done.Signed, req
}

// The spend policy reads what is signed: a token charge's TransferChecked,
// a SOL charge's System transfer in lamports, the payable-until the
// challenge's expiry; inspect agrees with it.
func TestChargeSummarize(t *testing.T) {
	s, _ := signer.SolanaFromSeedHex(signer.SolanaDevSeed, devnet)
	bh := jsonv.Obj("recentBlockhash", "EZ3rST5dvHmbanh75jc4PuLfV96vp9fEYBVeNk4FfM1k")
	sol := jsonv.Obj("amount", "5000", "currency", "sol", "recipient", payTo, "methodDetails", jsonv.Obj("network", "devnet"))
	for _, c := range []struct {
		p        rails.Pairing
		method   string
		request  *jsonv.Object
		asset    string
		decimals int
	}{
		{solana.Charge{}, "solana", tokenRequest(), mint, 6},
		{solana.Charge{}, "solana", sol, "sol", 9},
		{solana.ChargeUSDC{}, "usdc", jsonv.Obj("amount", "1000", "currency", mint, "recipient", payTo, "methodDetails",
			jsonv.Obj("type", "solana", "solana", jsonv.Obj("network", "devnet", "decimals", 6, "tokenProgram", solana.TokenProgram.String()))), mint, 6},
	} {
		signed, req := payCharge(t, c.p, chargeDoc(t, c.method, c.request), s, bh)
		g, err := c.p.(rails.Summarizer).Summarize(req)
		if err != nil || g.Asset != c.asset || g.Decimals != c.decimals || g.Network != devnet || g.Payer != s.Key().String() ||
			g.PayableUntil.Unix() != 1790000060 {
			t.Fatalf("%s %s: grant %+v (%v)", c.p.ID(), c.asset, g, err)
		}
		in, err := c.p.(rails.Inspector).Inspect(signed)
		if err != nil || in.Grant.Amount.Cmp(g.Amount) != 0 || in.Grant.Payee != g.Payee || in.H != atr.Sum(atrBytes).String() {
			t.Fatalf("%s: inspect %+v (%v)", c.p.ID(), in, err)
		}
	}
	// A request that names neither decimals nor a token program for a mint
	// needs them from the buyer, before anything is fetched.
	noMint := tokenRequest()
	d, _ := noMint.GetObject("methodDetails")
	d.Delete("decimals")
	read, _ := solana.Charge{}.Read(chargeDoc(t, "solana", noMint))
	if _, err := (solana.Charge{}).Choose(read, s.Account(), bh, 0, ""); err == nil || err.(*rails.Refusal).Code != mpp.CodeInputMissing {
		t.Fatalf("choose without decimals: %v", err)
	}
}

// FuzzChargeCredential: the Solana charges' read-back (Bound, Reference,
// Inspect) over any payload in the vector credential's place never panics,
// stays within the time bound, and Inspect names the H Bound reads. Seeded
// with the vector files' payloads.
func FuzzChargeCredential(f *testing.F) {
	for _, file := range []string{"mpp-charge-solana.json", "mpp-charge-usdc-solana.json"} {
		seeds, err := vectors.Strings(file, "wireBase64", "transaction")
		if err != nil {
			f.Fatal(err)
		}
		for _, s := range seeds {
			f.Add([]byte(jsonv.Marshal(jsonv.Obj("type", "transaction", "transaction", s))))
			f.Add([]byte(jsonv.Marshal(jsonv.Obj("type", "bundle", "transactions", []jsonv.Value{s}))))
		}
	}
	f.Add([]byte(`{"type":"signature","signature":"4H8LN9QqFzzxEJYvsvARSCa63p3uBJticDESYKSgEnSy4KqvjdSyREHRrSnRG2ufyVNWATCFpQdbtUHWcPiWZj8Z"}`))
	payments, err := vectors.Payments()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		cost.Bound(t, len(payload), func() {
			v, err := jsonv.Parse(payload)
			if err != nil {
				return
			}
			for _, p := range []rails.Pairing{solana.Charge{}, solana.ChargeUSDC{}} {
				pay := jsonv.Clone(payments[p.ID()]).(*jsonv.Object)
				pay.Set("payload", v)
				h, errB := p.Bound(pay)
				in, errI := p.(rails.Inspector).Inspect(pay)
				if errI == nil && (errB != nil || h != in.H) {
					t.Fatalf("%s: inspect says H %q, bound %q (%v)", p.ID(), in.H, h, errB)
				}
				if errI == nil {
					_ = jsonv.Marshal(in.JSON())
				}
			}
			_, _ = solana.Charge{}.Reference(jsonv.Obj("challenge", jsonv.Obj(), "payload", v))
		})
	})
}

// BenchmarkSolanaChargeBuildSignFinish is mpp/charge/solana with the ATR in
// hand: read, choose, build (two associated token accounts, the v0
// message), sign with the local Ed25519 key, complete the credential, read
// H back.
func BenchmarkSolanaChargeBuildSignFinish(b *testing.B) {
	s, _ := signer.SolanaFromSeedHex(signer.SolanaDevSeed, devnet)
	doc := chargeDoc(b, "solana", tokenRequest())
	bh := jsonv.Obj("recentBlockhash", "EZ3rST5dvHmbanh75jc4PuLfV96vp9fEYBVeNk4FfM1k")
	b.ReportAllocs()
	for b.Loop() {
		payCharge(b, solana.Charge{}, doc, s, bh)
	}
}
