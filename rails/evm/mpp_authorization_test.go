package evm_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

const (
	reqE    = `{"amount":"10000","currency":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","methodDetails":{"chainId":84532,"credentialTypes":["permit2","authorization"],"permit2Address":"0x000000000022D473030F116dDEE9F6B43aC78BA3"},"recipient":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}`
	account = "eip155:84532:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
)

var h = atr.Sum([]byte("abc"))

func code(err error) string {
	var r *rails.Refusal
	if errors.As(err, &r) {
		return r.Code
	}
	if err != nil {
		return "not a refusal: " + err.Error()
	}
	return ""
}

func placedDoc(t *testing.T, request string) []jsonv.Value {
	t.Helper()
	c := jsonv.Obj("realm", "api.seller.example", "method", "evm", "intent", "charge",
		"request", mpp.EncodeB64URL([]byte(request)), "expires", "2026-09-21T14:14:20Z")
	d, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/x", c, "")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var tokenDomain = jsonv.Obj("tokenDomain", jsonv.Obj("name", "USDC", "version", "2"))

func TestMPPAuthorizationChoose(t *testing.T) {
	p := evm.MPPAuthorization{}
	read, err := p.Read(placedDoc(t, reqE))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Choose(read, account, &jsonv.Object{}, 1, ""); code(err) != mpp.CodeInputMissing {
		t.Fatalf("no tokenDomain: %v", err)
	}
	if _, err := p.Choose(read, account, jsonv.Obj("tokenDomain", "USDC"), 1, ""); code(err) != mpp.CodeInputMissing {
		t.Fatalf("a string tokenDomain: %v", err)
	}
	if _, err := p.Choose(read, "eip155:8453:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", tokenDomain, 1, ""); code(err) != mpp.CodeNoPayableOption {
		t.Fatalf("another chain: %v", err)
	}
	// authorization is offered only when credentialTypes lists it.
	plain, err := p.Read(placedDoc(t, strings.Replace(reqE, `"credentialTypes":["permit2","authorization"],`, "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Choose(plain, account, tokenDomain, 1, ""); code(err) != mpp.CodeNoPayableOption {
		t.Fatalf("not listed: %v", err)
	}
}

func TestMPPAuthorizationRefusals(t *testing.T) {
	p := evm.MPPAuthorization{}
	read, _ := p.Read(placedDoc(t, reqE))
	choice, err := p.Choose(read, account, tokenDomain, 1790000000, "")
	if err != nil {
		t.Fatal(err)
	}
	for name, td := range map[string]jsonv.Value{"no version": jsonv.Obj("name", "USDC"), "an empty name": jsonv.Obj("name", "", "version", "2")} {
		c := jsonv.Clone(choice).(*jsonv.Object)
		c.Set("tokenDomain", td)
		if _, err := p.Build(c, nil, h); code(err) != mpp.CodeInputMalformed {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := p.Build(choice, nil, atr.Sum([]byte("abd"))); code(err) != mpp.CodeIDNotOurs {
		t.Fatalf("another hash: %v", err)
	}
	u, err := p.Build(choice, nil, h)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	sig, err := l.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for name, answer := range map[string]jsonv.Value{
		"an object": jsonv.Obj(), "64 bytes": "0x" + strings.Repeat("ab", 64), "8193 bytes": "0x" + strings.Repeat("ab", 8193), "odd": "0xabc",
	} {
		if _, err := p.Complete(u, answer, rails.Chosen{}); code(err) != mpp.CodeCredentialMalformed {
			t.Errorf("complete with %s: %v", name, err)
		}
	}
	done, err := p.Complete(u, sig, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	cred := done.Signed.(*jsonv.Object)
	payload := func(k string, v jsonv.Value) *jsonv.Object {
		x := cred.Clone()
		pl, _ := x.GetObject("payload")
		pl.Set(k, v)
		return x
	}
	// The signature recovers to the payer over the request's digest.
	td, _ := req.GetObject("typedData")
	digest, _ := evm.TypedDataDigest(td)
	raw, _ := evm.HexBytes(sig.(string))
	if who, err := evm.Recover(digest, raw); err != nil || who.Hex() != "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" {
		t.Fatalf("recovers %s", who.Hex())
	}
	for name, c := range map[string]struct {
		in   jsonv.Value
		code string
	}{
		"permit2":       {payload("type", "permit2"), mpp.CodeCredentialType},
		"a short nonce": {payload("nonce", "0x1234"), mpp.CodeCredentialMalformed},
		"another nonce": {payload("nonce", h.String()), evm.CodeNonceNotChallengeHash},
		"not an object": {"x", mpp.CodeCredentialMalformed},
	} {
		if _, err := p.Bound(c.in); code(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
	if got, err := p.Bound(cred); err != nil || got != h.String() {
		t.Fatalf("bound %s (%v)", got, err)
	}
}
