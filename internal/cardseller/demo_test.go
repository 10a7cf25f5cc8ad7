package cardseller

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
	"github.com/termsgate/termsgate/rails/card"
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

// The seller refuses a card step before the agreement is paid, and a TAP
// request whose signature is not the agent's.
func TestSellerRefuses(t *testing.T) {
	key := mustKey(t)
	s, err := New(demo.ATR, &key.PublicKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.agreed(s.Hash().String()); err == nil {
		t.Fatal("a card step taken with no agreement paid")
	}
	if err := s.agreed("0x" + strings.Repeat("00", 32)); err == nil {
		t.Fatal("a card step for other terms taken")
	}
	if s.Paid.Load() != 0 {
		t.Fatal("charged")
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
