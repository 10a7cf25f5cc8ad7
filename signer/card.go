package signer

// The card pairings' signers: the agent's RFC 9421 HTTP message signer for
// Visa TAP (Ed25519), and Verifiable Intent's user wallet (Immediate mode,
// L2) and agent (Autonomous mode, L3b), both ES256 over P-256 keys.
// docs/cards.md says what each signs.

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/card"
)

// RFC9421TestKeyEd25519 is RFC 9421's published test key test-key-ed25519
// (https://www.rfc-editor.org/rfc/rfc9421#appendix-B.1.4), the key the card
// vectors' TAP signatures are made with. It is public: never trust it.
const RFC9421TestKeyEd25519 = `-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF
-----END PRIVATE KEY-----`

// Ed25519FromPEM reads a PKCS #8 Ed25519 private key.
func Ed25519FromPEM(s string) (ed25519.PrivateKey, error) {
	b, _ := pem.Decode([]byte(s))
	if b == nil {
		return nil, fmt.Errorf("signer: no PEM block")
	}
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	ek, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("signer: not an Ed25519 key")
	}
	return ek, nil
}

// TAP is a Visa TAP agent's message signer: it answers tap-field requests
// with the payment request's lcp-hash field and an agent-payer-auth
// signature over @authority, @path and lcp-hash, valid for Validity from
// Now. It signs nothing else.
type TAP struct {
	Key       ed25519.PrivateKey
	KeyID     string
	Authority string // the merchant's host the agent pays at
	Path      string
	Acct      string // CAIP-10, naming the buyer
	Validity  time.Duration
	Now       func() time.Time
	Nonce     func() string
}

func (t *TAP) Account() string { return t.Acct }

func (t *TAP) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if k, _ := req.GetString("kind"); k != card.KindTAP {
		return nil, fmt.Errorf("signer: the TAP agent key does not sign %q requests", k)
	}
	field, _ := req.GetString("field")
	comp, _ := req.GetString("component")
	value, _ := req.GetString("value")
	if field != card.TAPField || comp != card.TAPField {
		return nil, fmt.Errorf("signer: a tap-field request for another field")
	}
	now := time.Now()
	if t.Now != nil {
		now = t.Now()
	}
	validity := t.Validity
	if validity <= 0 {
		validity = 8 * time.Minute
	}
	nonce := rails.NewRef()
	if t.Nonce != nil {
		nonce = t.Nonce()
	}
	p := card.TAPParams{Label: "sig2", KeyID: t.KeyID, Created: now.Unix(), Expires: now.Add(validity).Unix(), Nonce: nonce,
		Authority: t.Authority, Path: t.Path}
	o, err := card.SignTAP(t.Key, p, value)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	return o, nil
}

// VIWallet is a Verifiable Intent user's wallet in Immediate mode: for a
// vi-checkout-mandate request it signs L2 over the checkout mandate and
// the payment mandate (instrument, payee, amount), naming L1 by sd_hash,
// and answers {l2}.
type VIWallet struct {
	User       *ecdsa.PrivateKey
	L1         string
	Instrument *jsonv.Object
	Payee      *jsonv.Object
	Currency   string
	Amount     int64
	Audience   string // the network's verifier
	Acct       string
	Now        func() time.Time
}

func (w *VIWallet) Account() string { return w.Acct }

func (w *VIWallet) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if k, _ := req.GetString("kind"); k != card.KindVI {
		return nil, fmt.Errorf("signer: the wallet's key does not sign %q requests", k)
	}
	m, err := card.CheckoutMandateOf(req)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	ch, _ := m.GetString("checkout_hash")
	now := clock(w.Now)
	pay := card.PaymentMandate(w.Instrument, w.Payee, w.Currency, w.Amount, ch)
	l2, err := card.Layer(w.User, jsonv.Obj("alg", "ES256", "typ", card.TypUser),
		card.LayerClaims(rails.NewRef(), w.Audience, now, now+900, w.L1), m, pay)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	return jsonv.Obj("l2", l2), nil
}

// VIAgent is a Verifiable Intent agent in Autonomous mode: it holds the
// user's L1 and the L2 that delegates its key (Kid), signs L3b over the
// checkout mandate naming L2 by sd_hash, and answers {l1, l2, l3b}.
type VIAgent struct {
	Agent    *ecdsa.PrivateKey
	Kid      string
	L1, L2   string
	Audience string // the merchant
	Acct     string
	Now      func() time.Time
}

func (a *VIAgent) Account() string { return a.Acct }

func (a *VIAgent) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if k, _ := req.GetString("kind"); k != card.KindVI {
		return nil, fmt.Errorf("signer: the agent's key does not sign %q requests", k)
	}
	m, err := card.CheckoutMandateOf(req)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	now := clock(a.Now)
	l3b, err := card.Layer(a.Agent, jsonv.Obj("alg", "ES256", "typ", card.TypUser, "kid", a.Kid),
		card.LayerClaims(rails.NewRef(), a.Audience, now, now+300, a.L2), m)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	return jsonv.Obj("l1", a.L1, "l2", a.L2, "l3b", l3b), nil
}

func clock(now func() time.Time) int64 {
	if now == nil {
		return time.Now().Unix()
	}
	return now().Unix()
}
