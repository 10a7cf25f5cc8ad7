package signer_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/card"
	"github.com/termsgate/termsgate/signer"
)

// cardJWT is card.json's checkout JWT CJ, which carries SHA-256("abc").
const cardJWT = "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6Im1lcmNoYW50LTEifQ.eyJpc3MiOiJodHRwczovL3NlbGxlci5leGFtcGxlIiwiY2hlY2tvdXQiOiJjaGtfMTAwMSIsImxlZ2FsQ29udGV4dCI6eyJ0eXBlIjoic2hhMjU2IiwidmFsdWUiOiIweGJhNzgxNmJmOGYwMWNmZWE0MTQxNDBkZTVkYWUyMjIzYjAwMzYxYTM5NjE3N2E5Y2I0MTBmZjYxZjIwMDE1YWQiLCJsZWdhbENvbnRleHRVcmwiOiJodHRwczovL2F0ci5zZWxsZXIuZXhhbXBsZS8weGJhNzgxNmJmOGYwMWNmZWE0MTQxNDBkZTVkYWUyMjIzYjAwMzYxYTM5NjE3N2E5Y2I0MTBmZjYxZjIwMDE1YWQifX0.IcNWROUr4Ci8bHc_JoKveoLeOYseAxzrR9Pmo1K5DXrfxa23YjEGxivsHSGBZtGZ9EXUDjolVLQQ68xKahuSnA"

// signThrough builds p's request for doc and h, has s sign it and completes
// the payment, as the gate does.
func signThrough(t *testing.T, p rails.Pairing, s rails.Signer, doc jsonv.Value, h atr.Hash) jsonv.Value {
	t.Helper()
	read, err := p.Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	choice, err := p.Choose(read, s.Account(), nil, 1790000000, rails.NewRef())
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, []byte("abc"), h)
	if err != nil {
		t.Fatal(err)
	}
	req, err := p.Request(u)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.(rails.Summarizer).Summarize(req); err != nil {
		t.Fatal(err)
	}
	answer, err := s.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Complete(u, answer, rails.Chosen{Pairing: p.ID(), Choice: choice})
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Bound(c.Signed)
	if err != nil || got != h.String() {
		t.Fatalf("bound %s %v", got, err)
	}
	// Another kind of request is refused, never signed.
	if _, err := s.Sign(context.Background(), jsonv.Obj("kind", "eip712")); err == nil {
		t.Fatal("signed an eip712 request")
	}
	return c.Signed
}

func TestTAPSigner(t *testing.T) {
	key, err := signer.Ed25519FromPEM(signer.RFC9421TestKeyEd25519)
	if err != nil {
		t.Fatal(err)
	}
	h := atr.Sum([]byte("abc"))
	s := &signer.TAP{Key: key, KeyID: "test-key-ed25519", Authority: "merchant.example", Path: "/checkout/pay",
		Acct: "card:visa:agent-1", Now: func() time.Time { return time.Unix(1790000000, 0) }}
	doc := jsonv.Obj("legalContext", jsonv.Obj("type", "sha256", "value", h.String(), "legalContextUrl", "https://atr.seller.example/"+h.String()))
	paid := signThrough(t, card.VisaTAP{}, s, doc, h)
	if got, ok := card.VerifyTAP(paid, "merchant.example", "/checkout/pay", key.Public().(ed25519.PublicKey), 1790000100); !ok || got != h.String() {
		t.Fatal("the merchant's recognition does not verify the agent's signature")
	}
	if _, ok := card.VerifyTAP(paid, "merchant.example", "/other", key.Public().(ed25519.PublicKey), 1790000100); ok {
		t.Fatal("verified for another path")
	}
}

func TestVISigners(t *testing.T) {
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	issuer, user, agent := key(), key(), key()
	h := atr.Sum([]byte("abc"))
	l1, err := card.IssueL1(issuer, "https://issuer.example", "user-1", &user.PublicKey, 1790000000, 1821536000, "1234", "Mastercard")
	if err != nil {
		t.Fatal(err)
	}
	merchant := jsonv.Obj("id", "m-1001", "name", "Seller Example", "website", "https://seller.example")
	wallet := &signer.VIWallet{User: user, L1: l1, Instrument: jsonv.Obj("type", "mastercard.srcDigitalCard", "id", "card-1"),
		Payee: merchant, Currency: "USD", Amount: 2799, Audience: "https://network.example/vi", Acct: "card:mastercard:user-1"}
	paid := signThrough(t, card.VIImmediate{}, wallet, cardJWT, h)
	in, err := card.VIImmediate{}.Inspect(paid)
	if err != nil || in.Grant.Amount.Int64() != 2799 || in.Grant.Payee != "m-1001" || in.Grant.Asset != "USD" {
		t.Fatalf("inspect %+v %v", in, err)
	}
	open, err := card.OpenCheckoutMandate(&agent.PublicKey, "agent-1", merchant)
	if err != nil {
		t.Fatal(err)
	}
	l2, err := card.Layer(user, jsonv.Obj("alg", "ES256", "typ", card.TypUserDelegate),
		card.LayerClaims("n", "https://agent.example", 1790000000, 1792592000, l1), open)
	if err != nil {
		t.Fatal(err)
	}
	ag := &signer.VIAgent{Agent: agent, Kid: "agent-1", L1: l1, L2: l2, Audience: "https://seller.example", Acct: "card:mastercard:agent-1"}
	paid = signThrough(t, card.VIAutonomous{}, ag, cardJWT, h)
	c, err := card.ReadAutonomous(paid)
	if err != nil || c.User != "user-1" || c.Agent != "agent-1" {
		t.Fatalf("chain %+v %v", c, err)
	}
	// An agent key the user did not delegate is refused by the merchant's check.
	rogue := &signer.VIAgent{Agent: key(), Kid: "agent-1", L1: l1, L2: l2, Acct: "card:mastercard:agent-1"}
	req, _ := card.VIBuild(cardJWT, h.String())
	req.Set("kind", card.KindVI)
	answer, err := rogue.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (card.VIAutonomous{}).Bound(answer); err == nil || err.Error() != "refused: "+card.CodeVISignatureInvalid {
		t.Fatalf("rogue agent: %v", err)
	}
}
