package card_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/card"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/vectors"
)

// BenchmarkTAPBuildSignFinish is card/visa-tap with the ATR in hand: build
// (the shown legal context read, the field), the agent's RFC 9421 Ed25519
// signature over @authority, @path and lcp-hash, then gate.Finish (rebuild,
// the answer completed, the Signature-Input and Signature dictionaries
// parsed and H read back from the covered field).
func BenchmarkTAPBuildSignFinish(b *testing.B) {
	key, err := signer.Ed25519FromPEM(signer.RFC9421TestKeyEd25519)
	if err != nil {
		b.Fatal(err)
	}
	s := &signer.TAP{Key: key, KeyID: "test-key-ed25519", Authority: "merchant.example", Path: "/checkout/pay", Acct: "card:visa:agent-1",
		Now: func() time.Time { return time.Unix(1790000000, 0) }, Nonce: func() string { return "bm9uY2UtMQ" }}
	h := atr.Sum([]byte("abc"))
	doc := jsonv.Obj("legalContext", jsonv.Obj("type", "sha256", "value", h.String(), "legalContextUrl", "https://atr.seller.example/"+h.String()))
	bench(b, card.VisaTAP{}, s, doc)
}

func checkoutJWT(b *testing.B) string {
	f, err := vectors.Load("card.json")
	if err != nil {
		b.Fatal(err)
	}
	vi, _ := f.GetObject("vi")
	cj, _ := vi.GetString("CJ")
	return cj
}

func p256(b *testing.B) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	return k
}

// BenchmarkVIImmediateBuildSignFinish is card/mastercard-vi/immediate:
// build (the checkout JWT read, the checkout mandate over its digest), the
// wallet's ES256 L2 over the checkout and payment mandates, then
// gate.Finish (rebuild, L2 read as an SD-JWT, its mandate's digests
// checked, H read back).
func BenchmarkVIImmediateBuildSignFinish(b *testing.B) {
	issuer, user := p256(b), p256(b)
	l1, err := card.IssueL1(issuer, "https://issuer.example", "user-1", &user.PublicKey, 1790000000, 1821536000, "4444", "Mastercard")
	if err != nil {
		b.Fatal(err)
	}
	w := &signer.VIWallet{User: user, L1: l1, Instrument: jsonv.Obj("type", "mastercard.srcDigitalCard", "id", "card-1"),
		Payee: jsonv.Obj("id", "m-1001"), Currency: "USD", Amount: 2799, Audience: "https://network.example/vi", Acct: "card:mastercard:user-1"}
	bench(b, card.VIImmediate{}, w, checkoutJWT(b))
}

// BenchmarkVIAutonomousBuildSignFinish is card/mastercard-vi/autonomous:
// the same build, the agent's ES256 L3b, then gate.Finish, whose read-back
// verifies two ES256 signatures (L3b under the delegated key, L2 under
// L1's) and the sd_hash links.
func BenchmarkVIAutonomousBuildSignFinish(b *testing.B) {
	issuer, user, agent := p256(b), p256(b), p256(b)
	l1, err := card.IssueL1(issuer, "https://issuer.example", "user-1", &user.PublicKey, 1790000000, 1821536000, "4444", "Mastercard")
	if err != nil {
		b.Fatal(err)
	}
	open, err := card.OpenCheckoutMandate(&agent.PublicKey, "agent-1", jsonv.Obj("id", "m-1001"))
	if err != nil {
		b.Fatal(err)
	}
	l2, err := card.Layer(user, jsonv.Obj("alg", "ES256", "typ", card.TypUserDelegate), card.LayerClaims("n", "https://agent.example", 1790000000, 1792592000, l1), open)
	if err != nil {
		b.Fatal(err)
	}
	a := &signer.VIAgent{Agent: agent, Kid: "agent-1", L1: l1, L2: l2, Audience: "https://seller.example", Acct: "card:mastercard:agent-1"}
	bench(b, card.VIAutonomous{}, a, checkoutJWT(b))
}

func bench(b *testing.B, p rails.Pairing, s rails.Signer, doc jsonv.Value) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	read, err := p.Read(doc)
	if err != nil {
		b.Fatal(err)
	}
	choice, err := p.Choose(read, s.Account(), nil, 1790000000, "")
	if err != nil {
		b.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: p.ID(), Choice: choice, Ref: rails.NewRef()}
	g := &gate.Gate{}
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cost.CPU()
	for b.Loop() {
		u, err := p.Build(choice, atrBytes, h)
		if err != nil {
			b.Fatal(err)
		}
		r, _ := p.Request(u)
		answer, err := s.Sign(ctx, r)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := g.Finish(atrBytes, p.ID(), chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
