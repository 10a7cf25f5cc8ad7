package mppseller

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
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

func TestDemoAuthorization(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), evm.MPPAuthorizationID, "")
	if err != nil || paid != "0.01 USDC (10000 atomic units) on eip155:84532" {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"signer calls: 1", "recovers to 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "answered 200", "declined hash-mismatch; signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// What the authorization seller refuses, each with its reason: another
// nonce, another value (the signature no longer recovers to the payer, and
// the value is not the price), a challenge it did not issue; the genuine
// credential is then accepted.
func TestAuthorizationSellerRefuses(t *testing.T) {
	seller := NewAuthorization(demo.ATR, []byte("paid"))
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
	key, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	res, err := g.Transact(ctx, doc, evm.MPPAuthorizationID, key, &gate.TransactOptions{
		Inputs: jsonv.Obj("tokenDomain", jsonv.Obj("name", "USDC", "version", "2"))})
	if err != nil {
		t.Fatal(err)
	}
	genuine, _ := jsonv.AsObject(res.Signed)
	present := func(cred *jsonv.Object) (int, string) {
		_, value := mpp.Header(cred)
		resp, body, err := demo.Get(ctx, client, url, "Authorization", value)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(body)
	}
	edit := func(f func(cred, payload *jsonv.Object)) *jsonv.Object {
		c := jsonv.Clone(genuine).(*jsonv.Object)
		p, _ := c.GetObject("payload")
		f(c, p)
		return c
	}
	for _, c := range []struct {
		name, reason string
		cred         *jsonv.Object
	}{
		{"another nonce", "not bound to the terms served", edit(func(_, p *jsonv.Object) { p.Set("nonce", "0x"+strings.Repeat("11", 32)) })},
		{"another value", "another amount or payee", edit(func(_, p *jsonv.Object) { p.Set("value", "1") })},
		{"another challenge", "not the one this seller issued", edit(func(c, _ *jsonv.Object) {
			ch, _ := c.GetObject("challenge")
			ch.Set("expires", "2099-01-01T00:00:00Z")
		})},
		{"a forged signature", "recovers to", edit(func(_, p *jsonv.Object) {
			p.Set("signature", "0x"+strings.Repeat("ab", 64)+"1b")
		})},
	} {
		if code, body := present(c.cred); code != http.StatusPaymentRequired || !strings.Contains(body, c.reason) {
			t.Errorf("%s: %d %s", c.name, code, body)
		}
	}
	if code, body := present(genuine); code != http.StatusOK {
		t.Errorf("genuine: %d %s", code, body)
	}
}
