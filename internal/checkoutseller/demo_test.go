package checkoutseller

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
)

// Every checkout row pays end to end: the approval asked with nothing
// signed, one agreement signature, the receipt for H, no signer call for the
// checkout, the merchant's 200; and neither the story nor the kept files
// hold the test card or a token unmasked.
func TestDemoEveryCheckout(t *testing.T) {
	for id := range about {
		t.Run(strings.ReplaceAll(id, "/", "_"), func(t *testing.T) {
			dir := t.TempDir()
			out, paid, err := demo.Play(context.Background(), id, dir)
			if err != nil || paid == "" {
				t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
			}
			for _, want := range []string{"signer calls so far: 0", "agreement signatures: 1", "signer calls: 0", "answered 200"} {
				if !strings.Contains(out, want) {
					t.Errorf("demo output lacks %q:\n%s", want, out)
				}
			}
			kept := out
			for _, f := range []string{"atr", "offer", "payment"} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				kept += string(b)
			}
			if strings.Contains(kept, TestCard) || strings.Contains(kept, TestCard[len(TestCard)-8:]) {
				t.Errorf("the card number shows unmasked:\n%s", out)
			}
			for _, p := range []string{"vt_", "tok_"} {
				if i := strings.Index(kept, p); i >= 0 {
					t.Errorf("a token shows unmasked: %q", kept[i:min(len(kept), i+30)])
				}
			}
		})
	}
}
