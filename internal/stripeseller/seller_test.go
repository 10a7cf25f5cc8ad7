package stripeseller

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/stripe"
	"github.com/termsgate/termsgate/signer"
)

// rig is a seller on loopback TLS and a gate that reaches it.
type rig struct {
	seller *Seller
	srv    *loopback.Server
	g      *gate.Gate
	wallet *demo.Counting
	doc    []jsonv.Value
}

func newRig(t *testing.T, pairing string) *rig {
	t.Helper()
	s := New(pairing, demo.ATR, []byte("ok\n"))
	srv, err := loopback.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	key, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{seller: s, srv: srv, g: &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}}, wallet: demo.Count(key)}
	_, doc, _, err := demo.MPPOffer(context.Background(), srv.Client(), r.g, s.ResourceURL(), pairing)
	if err != nil {
		t.Fatal(err)
	}
	r.doc = doc
	return r
}

// pay runs the gate's two calls (approval, then the agreement and the
// credential) with inputs, and returns what it gave.
func (r *rig) pay(t *testing.T, pairing string, inputs *jsonv.Object) (*gate.Transacted, error) {
	t.Helper()
	opts := &gate.TransactOptions{AgreementSigner: r.wallet, Inputs: inputs}
	first, err := r.g.Transact(context.Background(), r.doc, pairing, r.wallet, opts)
	if err != nil {
		return nil, err
	}
	if first.Approve == nil || r.wallet.Calls() != 0 {
		t.Fatalf("no approval asked first (signatures %d)", r.wallet.Calls())
	}
	opts.Approved = first.Approve
	return r.g.Transact(context.Background(), r.doc, pairing, r.wallet, opts)
}

func (r *rig) send(t *testing.T, cred jsonv.Value) int {
	t.Helper()
	o, ok := jsonv.AsObject(cred)
	if !ok {
		t.Fatalf("no credential: %v", cred)
	}
	name, value := mpp.Header(o)
	resp, _, err := demo.Get(context.Background(), r.srv.Client(), r.seller.ResourceURL(), name, value)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode
}

func TestChargePaysOnceAndStripeHoldsH(t *testing.T) {
	r := newRig(t, stripe.ChargeID)
	spt := r.seller.Stripe.IssueToken(TokenGrant{NetworkID: NetworkID, Currency: Currency, MaxAmount: Amount, ExpiresAt: time.Now().Add(time.Hour)})
	paid, err := r.pay(t, stripe.ChargeID, jsonv.Obj("spt", spt))
	if err != nil {
		t.Fatal(err)
	}
	if r.wallet.Calls() != 1 || r.seller.Agreements.Paid.Load() != 1 {
		t.Fatalf("signatures %d, agreements paid %d: want one each", r.wallet.Calls(), r.seller.Agreements.Paid.Load())
	}
	if code := r.send(t, paid.Signed); code != http.StatusOK {
		t.Fatalf("status %d: %v", code, r.seller.LastRejection())
	}
	pi := r.seller.Stripe.Intents
	if len(pi) != 1 || pi[0].Metadata["legal_context"] != mpp.LegalContextValue(r.seller.Hash()) || pi[0].Metadata["order"] != "demo-1" || pi[0].Amount != Amount {
		t.Fatalf("payment intents %+v", pi)
	}
	// The token is single-use: the same credential again is refused.
	if code := r.send(t, paid.Signed); code != http.StatusPaymentRequired || !errors.Is(r.seller.LastRejection(), ErrTokenUsed) {
		t.Fatalf("replay: %d %v", code, r.seller.LastRejection())
	}
}

func TestSubscriptionOpensWithH(t *testing.T) {
	r := newRig(t, stripe.SubscriptionID)
	pm := r.seller.Stripe.SetUpPaymentMethod(NetworkID)
	paid, err := r.pay(t, stripe.SubscriptionID, jsonv.Obj("paymentMethod", pm))
	if err != nil {
		t.Fatal(err)
	}
	if code := r.send(t, paid.Signed); code != http.StatusOK {
		t.Fatalf("status %d: %v", code, r.seller.LastRejection())
	}
	subs := r.seller.Stripe.Subs
	if len(subs) != 1 || subs[0].Metadata["legal_context"] != mpp.LegalContextValue(r.seller.Hash()) || subs[0].Unit != "month" || subs[0].Count != 1 {
		t.Fatalf("subscriptions %+v", subs)
	}
	// A PaymentMethod set up for another seller is refused by Stripe.
	other := r.seller.Stripe.SetUpPaymentMethod("profile_other")
	c, _ := jsonv.AsObject(paid.Signed)
	c = c.Clone()
	c.Set("payload", jsonv.Obj("paymentMethod", other))
	if code := r.send(t, c); code != http.StatusPaymentRequired || !errors.Is(r.seller.LastRejection(), ErrNoSuchMethod) {
		t.Fatalf("other seller's method: %d %v", code, r.seller.LastRejection())
	}
}

// Without the token the gate writes no payment (the operator sends its
// own), after the agreement; nothing is signed beyond the agreement.
func TestNoTokenNoPayment(t *testing.T) {
	r := newRig(t, stripe.ChargeID)
	paid, err := r.pay(t, stripe.ChargeID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if paid.Signed != nil || paid.Agreement == nil || r.wallet.Calls() != 1 {
		t.Fatalf("signed %v agreement %v signatures %d", paid.Signed, paid.Agreement, r.wallet.Calls())
	}
}

// A token Stripe refuses (another seller's, over its limit, expired) and a
// credential sent before any agreement was paid are refused, the
// resource not served.
func TestSellerRefuses(t *testing.T) {
	cases := map[string]struct {
		grant    TokenGrant
		agreed   bool
		want     error
		wantText string
	}{
		"another seller's token": {TokenGrant{NetworkID: "profile_other", Currency: Currency, MaxAmount: Amount, ExpiresAt: time.Now().Add(time.Hour)}, true, ErrTokenOtherParty, ""},
		"over the token's limit": {TokenGrant{NetworkID: NetworkID, Currency: Currency, MaxAmount: Amount - 1, ExpiresAt: time.Now().Add(time.Hour)}, true, ErrTokenLimits, ""},
		"another currency":       {TokenGrant{NetworkID: NetworkID, Currency: "eur", MaxAmount: Amount, ExpiresAt: time.Now().Add(time.Hour)}, true, ErrTokenLimits, ""},
		"an expired token":       {TokenGrant{NetworkID: NetworkID, Currency: Currency, MaxAmount: Amount, ExpiresAt: time.Now().Add(-time.Second)}, true, ErrTokenExpired, ""},
		"no agreement paid":      {TokenGrant{NetworkID: NetworkID, Currency: Currency, MaxAmount: Amount, ExpiresAt: time.Now().Add(time.Hour)}, false, nil, "no agreement"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, stripe.ChargeID)
			spt := r.seller.Stripe.IssueToken(c.grant)
			var cred jsonv.Value
			if c.agreed {
				paid, err := r.pay(t, stripe.ChargeID, jsonv.Obj("spt", spt))
				if err != nil {
					t.Fatal(err)
				}
				cred = paid.Signed
			} else {
				// confirm and finish: the credential without the agreement exchange.
				conf, err := r.g.Confirm(context.Background(), r.doc, stripe.ChargeID, r.wallet.Account(), jsonv.Obj("spt", spt))
				if err != nil || conf.Request != nil {
					t.Fatalf("confirm: %v (request %v)", err, conf)
				}
				f, err := r.g.Finish(conf.Bytes, stripe.ChargeID, conf.Chosen, nil)
				if err != nil {
					t.Fatal(err)
				}
				cred = f.Signed
			}
			if code := r.send(t, cred); code != http.StatusPaymentRequired {
				t.Fatalf("status %d", code)
			}
			err := r.seller.LastRejection()
			if c.want != nil && !errors.Is(err, c.want) || c.wantText != "" && (err == nil || !strings.Contains(err.Error(), c.wantText)) {
				t.Fatalf("rejection %v", err)
			}
			if r.seller.Paid.Load() != 0 || len(r.seller.Stripe.Intents) != 0 {
				t.Fatal("served or charged")
			}
		})
	}
}

// The seller takes only a challenge it issued for the terms it serves.
func TestSellerRefusesForeignChallenge(t *testing.T) {
	r := newRig(t, stripe.ChargeID)
	spt := r.seller.Stripe.IssueToken(TokenGrant{NetworkID: NetworkID, Currency: Currency, MaxAmount: Amount, ExpiresAt: time.Now().Add(time.Hour)})
	paid, err := r.pay(t, stripe.ChargeID, jsonv.Obj("spt", spt))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := jsonv.AsObject(paid.Signed)
	ch, _ := c.GetObject("challenge")
	ch = ch.Clone()
	ch.Set("realm", "other.example")
	c = c.Clone()
	c.Set("challenge", ch)
	if code := r.send(t, c); code != http.StatusPaymentRequired || r.seller.LastRejection() == nil {
		t.Fatalf("status %d", code)
	}
	if len(r.seller.Stripe.Intents) != 0 {
		t.Fatal("charged")
	}
}
