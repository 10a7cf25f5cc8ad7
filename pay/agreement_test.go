package pay_test

import (
	"context"
	"errors"
	"io"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/termsgatetest"
)

// agentIdentity is a cloudflare:402 identity: it pays by who it is, and the
// gate must never ask it to sign.
type agentIdentity struct{ calls int }

func (*agentIdentity) Account() string { return termsgatetest.AgentAccount }
func (a *agentIdentity) Sign(context.Context, rails.Request) (jsonv.Value, error) {
	a.calls++
	return nil, errors.New("an agent identity signs its requests, not payments")
}

// An offer payable only after the agreement exchange: without
// Hooks.ApproveAgreement the Transport declines agreement-pending with
// nothing signed; an approver that refuses changes nothing; one that
// approves gets the agreement paid (one signature by AgreementSigner, under
// the policy) and the resource answered.
func TestTransportApprovesAgreement(t *testing.T) {
	s, err := termsgatetest.Start(termsgatetest.Config{Agreement: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	payer, who := &countingSigner{Signer: w}, &agentIdentity{}
	policy, err := pay.NewPolicy(pay.PolicyConfig{
		Limits:     []pay.Limit{{Network: "eip155:84532", MaxAmount: big.NewInt(1)}},
		MaxPayable: 10 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	var asked []*gate.AgreementPayment
	newClient := func(approve func(*gate.AgreementPayment) error) *http.Client {
		tr := &pay.Transport{
			Base:            s.Transport(),
			Gate:            &gate.Gate{Fetcher: &atr.Fetcher{Client: s.Client()}},
			Signer:          who,
			AgreementSigner: payer,
			Policy:          policy,
		}
		if approve != nil {
			tr.Hooks.ApproveAgreement = func(_ context.Context, _ *http.Request, p *gate.AgreementPayment) error {
				asked = append(asked, p)
				return approve(p)
			}
		}
		return pay.NewClient(tr)
	}
	for name, approve := range map[string]func(*gate.AgreementPayment) error{
		"no approver": nil,
		"refused":     func(*gate.AgreementPayment) error { return errors.New("not today") },
	} {
		_, err := newClient(approve).Get(s.URL)
		var d *gate.Decline
		if !errors.As(err, &d) || d.Code != gate.AgreementPending || d.Detail != pay.DetailAgreementNeedsApproval {
			t.Fatalf("%s: %v, want agreement-pending %s", name, err, pay.DetailAgreementNeedsApproval)
		}
		if payer.calls.Load() != 0 || who.calls != 0 || s.Counts().Agreements != 0 {
			t.Fatalf("%s: %d payer and %d agent signatures, %d agreements", name, payer.calls.Load(), who.calls, s.Counts().Agreements)
		}
	}
	if len(asked) != 1 || asked[0].URL != s.AgreementURL() {
		t.Fatalf("the refusing approver was asked %d times (%v)", len(asked), asked)
	}
	resp, err := newClient(func(p *gate.AgreementPayment) error {
		if amount, _ := p.Option.GetString("amount"); amount != "1" {
			return errors.New("asked for " + amount)
		}
		return nil
	}).Get(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s (%v)", resp.StatusCode, body, s.LastRejection())
	}
	if payer.calls.Load() != 1 || who.calls != 0 || s.Counts().Agreements != 1 || s.Counts().Paid != 1 {
		t.Fatalf("%d payer and %d agent signatures, counts %+v", payer.calls.Load(), who.calls, s.Counts())
	}
	res := pay.ResultOf(resp)
	if res == nil || res.Summary.Amount.Cmp(big.NewInt(1)) != 0 {
		t.Fatalf("result %+v", res)
	}
}

// The approval does not go around the policy: an agreement payment above
// --max-amount is refused with nothing signed.
func TestTransportApprovedAgreementStillUnderPolicy(t *testing.T) {
	s, err := termsgatetest.Start(termsgatetest.Config{Agreement: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	payer := &countingSigner{Signer: w}
	policy, err := pay.NewPolicy(pay.PolicyConfig{
		Limits:     []pay.Limit{{Network: "eip155:84532", MaxAmount: big.NewInt(0)}},
		MaxPayable: 10 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := &pay.Transport{
		Base: s.Transport(), Gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: s.Client()}},
		Signer: &agentIdentity{}, AgreementSigner: payer, Policy: policy,
	}
	tr.Hooks.ApproveAgreement = func(context.Context, *http.Request, *gate.AgreementPayment) error { return nil }
	_, err = pay.NewClient(tr).Get(s.URL)
	var d *gate.Decline
	if !errors.As(err, &d) || pay.DetailCode(d.Detail) != pay.DetailAmountAboveMaximum {
		t.Fatalf("%v, want %s", err, pay.DetailAmountAboveMaximum)
	}
	if payer.calls.Load() != 0 || s.Counts().Agreements != 0 {
		t.Fatalf("%d signatures, %d agreements", payer.calls.Load(), s.Counts().Agreements)
	}
}
