package permit2seller

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/signer"
)

// Every row pays its seller end to end and says what it paid.
func TestDemoRows(t *testing.T) {
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.id, "/", "_"), func(t *testing.T) {
			story, paid, err := demo.Play(context.Background(), c.id, t.TempDir())
			if err != nil || !strings.Contains(paid, "USDC") {
				t.Fatalf("%v\n%s", err, story)
			}
		})
	}
}

// The seller verifies as the contract would: the gate's payment passes
// once; the same payment again (a used nonce), one for other terms, and one
// whose signature is another key's are refused.
func TestSellerRefuses(t *testing.T) {
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.id, "/", "_"), func(t *testing.T) {
			seller, err := NewSeller(c.id, demo.ATR, x402seller.DemoBody)
			if err != nil {
				t.Fatal(err)
			}
			srv, err := loopback.Start(seller)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			payer, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
			if c.delegations {
				payer = payer.WithDelegations(demoIssuer)
			}
			doc, err := seller.Required()
			if err != nil {
				t.Fatal(err)
			}
			g := &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}}
			paid, err := g.Transact(context.Background(), doc, c.id, payer, nil)
			if err != nil {
				t.Fatal(err)
			}
			p := paid.Signed.(*jsonv.Object)
			h := atr.Sum(demo.ATR)
			if _, err := seller.Verify(p, h, time.Now()); err != nil {
				t.Fatalf("refused the gate's payment: %v", err)
			}
			if _, err := seller.Verify(p, h, time.Now()); err == nil {
				t.Fatal("accepted the same payment twice")
			}
			if _, err := seller.Verify(p, atr.Sum(demo.Changed(demo.ATR)), time.Now()); err == nil {
				t.Fatal("accepted a payment for other terms")
			}
			if c.delegations {
				return // the delegation's signature is inside the context
			}
			forged := p.Clone()
			pl, _ := forged.GetObject("payload")
			pl.Set("signature", "0x"+strings.Repeat("11", 64)+"1b")
			seller2, _ := NewSeller(c.id, demo.ATR, x402seller.DemoBody)
			if _, err := seller2.Verify(forged, h, time.Now()); err == nil {
				t.Fatal("accepted a forged signature")
			}
		})
	}
}
