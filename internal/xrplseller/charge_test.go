package xrplseller

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/xrpl"
	"github.com/termsgate/termsgate/signer"
)

func TestDemoCharge(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), xrpl.ChargeID, "")
	if err != nil || paid != "1 XRP (1000000 atomic units) on xrpl:1" {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"InvoiceID = H", "answered 200", "declined hash-mismatch; signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// What the XRPL charge seller refuses, each with its reason: a credential
// for terms it no longer serves, one echoing a challenge it did not issue,
// one answering a challenge for another amount than it asks now; the
// genuine one is then accepted.
func TestChargeSellerRefuses(t *testing.T) {
	seller := NewCharge(demo.ATR, []byte("paid"))
	srv, err := loopback.Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	const url = "https://api.seller.example/v1/report"
	resp, _, err := demo.Get(ctx, client, url, "", "")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := mpp.ChallengesFromHeader(resp.Header)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := signer.XRPLDev("xrpl:1")
	inputs := jsonv.Obj("fee", "12", "sequence", 7, "lastLedgerSequence", 90000020, "validUntil", 4102444800)
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	res, err := g.Transact(ctx, doc, xrpl.ChargeID, key, &gate.TransactOptions{Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	present := func(cred *jsonv.Object) (int, string) {
		_, value := mpp.Header(cred)
		resp, body, err := demo.Get(ctx, client, url, "Authorization", value)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(body)
	}
	genuine, _ := jsonv.AsObject(res.Signed)
	seller.SetATR(demo.Changed(demo.ATR))
	if code, body := present(genuine); code != http.StatusPaymentRequired || !strings.Contains(body, "not bound to the terms served") {
		t.Errorf("other terms: %d %s", code, body)
	}
	seller.SetATR(demo.ATR)
	other := jsonv.Clone(genuine).(*jsonv.Object)
	c, _ := other.GetObject("challenge")
	c.Set("expires", "2099-01-01T00:00:00Z")
	if code, body := present(other); code != http.StatusPaymentRequired || !strings.Contains(body, "not the one this seller issued") {
		t.Errorf("a challenge not issued: %d %s", code, body)
	}
	seller.Amount = "2000000"
	if code, _ := present(genuine); code != http.StatusPaymentRequired {
		t.Errorf("another amount: %d", code)
	}
	seller.Amount = "1000000"
	if code, body := present(genuine); code != http.StatusOK {
		t.Errorf("genuine: %d %s", code, body)
	}
}
