package cardseller

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
	"github.com/termsgate/termsgate/rails/card"
	"github.com/termsgate/termsgate/signer"
)

// secrets are the card data the demos handle: none may appear in what they
// print, keep, or what inspect says of their payment.
var secrets = []string{VisaTestPAN, MastercardTestPAN, NetworkToken, "4242 4242"}

// TestDemoMasksCards runs every card demo with --out, and greps its story,
// every file it keeps and the inspection of its kept payment for the card
// numbers and the network token; the inspection names the pairing and the
// kept terms' H.
func TestDemoMasksCards(t *testing.T) {
	for _, id := range []string{card.VisaTAPID, card.VIImmediateID, card.VIAutonomousID, card.SellerReferenceID, card.MPPChargeID} {
		t.Run(strings.ReplaceAll(id, "/", "_"), func(t *testing.T) {
			dir := t.TempDir()
			story, paid, err := demo.Play(context.Background(), id, dir)
			if err != nil {
				t.Fatalf("%v\n%s", err, story)
			}
			if !strings.Contains(paid, "27.99 USD") {
				t.Fatalf("paid %q", paid)
			}
			outputs := map[string]string{"story": story, "paid": paid}
			entries, err := os.ReadDir(dir)
			if err != nil || len(entries) < 3 {
				t.Fatalf("kept %d files: %v", len(entries), err)
			}
			for _, e := range entries {
				b, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				outputs[e.Name()] = string(b)
			}
			payment, err := jsonv.Parse([]byte(outputs["payment"]))
			if err != nil {
				t.Fatal(err)
			}
			in, err := inspectAny(payment)
			if err != nil {
				t.Fatal(err)
			}
			if in.Pairing != id || !atr.EqualText(in.H, atr.Sum([]byte(outputs["atr"]))) {
				t.Fatalf("inspect names %s H %s", in.Pairing, in.H)
			}
			outputs["inspect"] = string(jsonv.Marshal(in.JSON()))
			for name, text := range outputs {
				for _, s := range secrets {
					if strings.Contains(text, s) {
						t.Errorf("%s shows %q unmasked", name, s)
					}
				}
			}
			if id == card.SellerReferenceID && !strings.Contains(story, "•••• 4242") {
				t.Errorf("the story does not show the card masked:\n%s", story)
			}
		})
	}
}

// inspectAny is what termsgate inspect does with a JSON payment: the first
// registered pairing whose Inspect reads it.
func inspectAny(v jsonv.Value) (rails.Inspection, error) {
	var last error
	for _, p := range all.Default().All() {
		if in, ok := p.(rails.Inspector); ok {
			out, err := in.Inspect(v)
			if err == nil {
				return out, nil
			}
			last = err
		}
	}
	return rails.Inspection{}, last
}

// The seller refuses, over HTTP, a TAP request signed by a key that is not
// the agent's and a well-signed one before any agreement was paid; it
// charges nothing.
func TestSellerRefuses(t *testing.T) {
	key := mustKey(t)
	tapKey, err := signer.Ed25519FromPEM(signer.RFC9421TestKeyEd25519)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(demo.ATR, &key.PublicKey, tapKey.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := loopback.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	post := func(k ed25519.PrivateKey) int {
		now := time.Now().Unix()
		p, err := card.SignTAP(k, card.TAPParams{Label: "sig2", KeyID: "k", Created: now, Expires: now + 60, Nonce: "n",
			Authority: s.Authority(), Path: "/checkout/pay"}, s.Hash().String())
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodPost, s.URL("/checkout/pay"), nil)
		si, _ := p.GetString("signatureInput")
		sg, _ := p.GetString("signature")
		req.Header.Set("Signature-Input", si)
		req.Header.Set("Signature", sg)
		req.Header.Set(card.TAPField, s.Hash().String())
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(other); code != http.StatusPaymentRequired || !strings.Contains(s.LastRejection().Error(), "does not verify") {
		t.Fatalf("another key: %d %v", code, s.LastRejection())
	}
	if code := post(tapKey); code != http.StatusPaymentRequired || !strings.Contains(s.LastRejection().Error(), "no agreement") {
		t.Fatalf("no agreement: %d %v", code, s.LastRejection())
	}
	if s.Paid.Load() != 0 || s.Rejected.Load() != 2 {
		t.Fatalf("paid %d rejected %d", s.Paid.Load(), s.Rejected.Load())
	}
}

func mustKey(t *testing.T) *ecdsaKey {
	t.Helper()
	k, err := newKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}
