package cardseller

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/card"
	"github.com/termsgate/termsgate/signer"
)

// TestMCPCardSteps pays the card checkout by hand through the MCP tools, as
// an agent does: atr_confirm (the agreement named, no request), atr_agree
// twice (approval, then the EIP-3009 agreement payment and its receipt),
// atr_confirm with the receipt (card/visa-tap: the tap-field request;
// card/seller-reference: none), the agent's TAP signature and atr_finish,
// whose payment the seller accepts. Every tool result is grepped for the
// card numbers and the network token: none may appear.
func TestMCPCardSteps(t *testing.T) {
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
	wallet, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	policy, err := pay.NewPolicy(pay.PolicyConfig{Now: time.Now, MaxPayable: 24 * time.Hour,
		Limits: []pay.Limit{{Network: "eip155:84532", MaxAmount: big.NewInt(1_000_000)}}})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := mcpserver.New(mcpserver.Config{AgreementSigner: wallet, Client: srv.Client(), Policy: policy})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(ms.HTTPHandler(mcpserver.HTTPOptions{}))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := gosdk.NewClient(&gosdk.Implementation{Name: "cardseller-test", Version: "1"}, nil).
		Connect(ctx, &gosdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var texts []string
	call := func(tool string, args *jsonv.Object) *jsonv.Object {
		t.Helper()
		res, err := cs.CallTool(ctx, &gosdk.CallToolParams{Name: tool, Arguments: json.RawMessage(jsonv.Marshal(args))})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		tc, ok := res.Content[0].(*gosdk.TextContent)
		if !ok {
			t.Fatalf("%s: content %T", tool, res.Content[0])
		}
		texts = append(texts, tc.Text)
		if res.IsError {
			t.Fatalf("%s: %s", tool, tc.Text)
		}
		v, err := jsonv.Parse([]byte(tc.Text))
		o, ok := jsonv.AsObject(v)
		if err != nil || !ok {
			t.Fatalf("%s: %s", tool, tc.Text)
		}
		return o
	}
	atrB64 := base64.StdEncoding.EncodeToString(demo.ATR)
	agree := func(doc *jsonv.Object, pairing, account string) *jsonv.Object {
		args := jsonv.Obj("pairing", pairing, "document", doc, "account", account)
		c := call("atr_confirm", args)
		chosen, _ := c.GetObject("chosen")
		if a, _ := chosen.GetString("agreement"); a != s.Agreements.ResourceURL() || c.Has("request") {
			t.Fatalf("confirm without a receipt: %s", jsonv.Marshal(c))
		}
		approve, _ := call("atr_agree", jsonv.Obj("atr", atrB64, "chosen", chosen)).GetObject("approve")
		receipt, _ := call("atr_agree", jsonv.Obj("atr", atrB64, "chosen", chosen, "approved", approve)).GetObject("receipt")
		args.Set("receipt", receipt)
		return call("atr_confirm", args)
	}

	tapDoc, err := s.Shown("visa-tap")
	if err != nil {
		t.Fatal(err)
	}
	c := agree(tapDoc, card.VisaTAPID, "card:visa:agent-1")
	req, ok := c.GetObject("request")
	if k, _ := req.GetString("kind"); !ok || k != card.KindTAP {
		t.Fatalf("confirm with the receipt: %s", jsonv.Marshal(c))
	}
	agent := &signer.TAP{Key: tapKey, KeyID: "test-key-ed25519", Authority: s.Authority(), Path: "/checkout/pay", Acct: "card:visa:agent-1"}
	answer, err := agent.Sign(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	chosen, _ := c.GetObject("chosen")
	fin := call("atr_finish", jsonv.Obj("pairing", card.VisaTAPID, "atr", atrB64, "chosen", chosen, "signature", answer))
	paid, _ := fin.GetObject("signed")
	hdr := http.Header{}
	si, _ := paid.GetString("signatureInput")
	sg, _ := paid.GetString("signature")
	hdr.Set("Signature-Input", si)
	hdr.Set("Signature", sg)
	hdr.Set(card.TAPField, s.Hash().String())
	r := &rig{seller: s, client: srv.Client()}
	if _, err := r.post(ctx, hdr, nil); err != nil {
		t.Fatal(err)
	}

	refDoc, err := s.Shown("seller-reference")
	if err != nil {
		t.Fatal(err)
	}
	c = agree(refDoc, card.SellerReferenceID, "card:visa:buyer-1")
	if v, has := c.Get("request"); has && v != nil {
		t.Fatalf("seller-reference asked for a signature: %s", jsonv.Marshal(c))
	}
	if _, err := r.post(ctx, nil, jsonv.Marshal(jsonv.Obj("pan", VisaTestPAN))); err != nil {
		t.Fatal(err)
	}
	if s.Paid.Load() != 2 {
		t.Fatalf("the seller charged %d times", s.Paid.Load())
	}
	for _, text := range texts {
		for _, secret := range secrets {
			if strings.Contains(text, secret) {
				t.Errorf("an MCP result shows %q: %s", secret, text)
			}
		}
	}
}
