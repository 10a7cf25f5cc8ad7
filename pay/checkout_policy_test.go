package pay_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/checkoutseller"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/checkout"
	"github.com/termsgate/termsgate/signer"
)

// checkoutLimit is where each checkout pairing's commitment is counted:
// the network and asset its confirm-only summary states.
var checkoutLimit = map[string][2]string{
	checkout.AP2ID:                    {checkout.AP2Network, "USD"},
	checkout.UCPCheckoutMandate.ID():  {checkout.UCPNetwork, "USD"},
	checkout.UCPCheckoutUnsigned.ID(): {checkout.UCPNetwork, "USD"},
	checkout.UCPBookingMandate.ID():   {checkout.UCPNetwork, "USD"},
	checkout.UCPBookingUnsigned.ID():  {checkout.UCPNetwork, "USD"},
	checkout.ACPDelegatedID:           {checkout.ACPNetwork, "USD"},
	checkout.ACPUndelegatedID:         {checkout.ACPNetwork, "USD"},
	checkout.ACKID:                    {"ack:card", "USD"},
}

// checkoutRun is one approve-then-pay through the gate against a checkout
// seller over loopback, with policy: the agreement payer's and the main
// signer's calls, the decline if any.
type checkoutRun struct {
	agreed, signed int
	err            error
}

func transactCheckout(t *testing.T, s *checkoutseller.Seller, policy gate.Policy, inputs jsonv.Value) checkoutRun {
	t.Helper()
	srv, err := loopback.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	wallet, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	payer, main := demo.Count(wallet), demo.Count(wallet)
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}, Policy: policy}
	opts := &gate.TransactOptions{AgreementSigner: payer, Inputs: inputs}
	ctx := context.Background()
	first, err := g.Transact(ctx, s.Doc(), s.Pairing, main, opts)
	if err != nil {
		return checkoutRun{payer.Calls(), main.Calls(), err}
	}
	if first.Approve == nil {
		t.Fatalf("%s: the first Transact asked no approval", s.Pairing)
	}
	opts.Approved = first.Approve
	_, err = g.Transact(ctx, s.Doc(), s.Pairing, main, opts)
	return checkoutRun{payer.Calls(), main.Calls(), err}
}

func acpInputs(maxAmount int, now time.Time) *jsonv.Object {
	return jsonv.Obj("max_amount", maxAmount, "currency", "usd", "merchant_id", checkoutseller.MerchantID,
		"expires_at", now.Add(5*time.Minute).UTC().Format(time.RFC3339))
}

// checkoutPolicy allows the agreement payment (1 atomic unit on Base
// Sepolia) and, for the checkout, at most max per payment and budget in all.
func checkoutPolicy(t *testing.T, pairing string, max, budget int64) *pay.Policy {
	t.Helper()
	l := checkoutLimit[pairing]
	p, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{
		{Network: "eip155:84532", MaxAmount: big.NewInt(10)},
		{Network: l[0], Asset: l[1], MaxAmount: big.NewInt(max), Budget: big.NewInt(budget)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func policyDetail(err error) string {
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.NoPayableOption {
		return ""
	}
	return pay.DetailCode(d.Detail)
}

// A confirm-only checkout goes through the spend policy like any payment:
// within the limits it is paid and its total counted (the allowance's
// max_amount for ACP's delegated form); over the per-payment maximum, over
// the budget, or on a network no limit names, it is declined with the
// policy's detail before the agreement is paid (no signer call, nothing
// completed, the reservation given back).
func TestCheckoutGoesThroughThePolicy(t *testing.T) {
	for id, l := range checkoutLimit {
		t.Run(strings.ReplaceAll(id, "/", "_"), func(t *testing.T) {
			var inputs jsonv.Value
			if id == checkout.ACPDelegatedID {
				inputs = acpInputs(checkoutseller.Total, time.Now())
			}
			// Within the limits: paid, and counted.
			s, err := checkoutseller.New(id)
			if err != nil {
				t.Fatal(err)
			}
			p := checkoutPolicy(t, id, checkoutseller.Total, 10*checkoutseller.Total)
			r := transactCheckout(t, s, p, inputs)
			if r.err != nil || r.agreed != 1 || r.signed != 0 {
				t.Fatalf("within the limits: %v, %d agreement and %d checkout signatures", r.err, r.agreed, r.signed)
			}
			if got := p.Spent(l[0], l[1]); got == nil || got.Int64() != checkoutseller.Total {
				t.Fatalf("counted %v of %s %s, want %d", got, l[0], l[1], checkoutseller.Total)
			}
			for _, c := range []struct {
				name         string
				max, budget  int64
				wrongNetwork bool
				want         string
			}{
				{"over the maximum", checkoutseller.Total - 1, 10 * checkoutseller.Total, false, pay.DetailAmountAboveMaximum},
				{"over the budget", checkoutseller.Total, checkoutseller.Total - 1, false, pay.DetailBudgetExhausted},
				{"no limit for its network", checkoutseller.Total, checkoutseller.Total, true, pay.DetailNetworkNotAllowed},
			} {
				s, err := checkoutseller.New(id)
				if err != nil {
					t.Fatal(err)
				}
				p := checkoutPolicy(t, id, c.max, c.budget)
				if c.wrongNetwork {
					p, err = pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: "eip155:84532", MaxAmount: big.NewInt(1 << 40)}}})
					if err != nil {
						t.Fatal(err)
					}
				}
				r := transactCheckout(t, s, p, inputs)
				if got := policyDetail(r.err); got != c.want || r.agreed != 0 || r.signed != 0 {
					t.Fatalf("%s: %v (detail %q, want %q), %d agreement and %d checkout signatures", c.name, r.err, got, c.want, r.agreed, r.signed)
				}
				if s.Agreements.Paid.Load() != 0 || s.Completed.Load() != 0 {
					t.Fatalf("%s: %d agreements paid, %d completions", c.name, s.Agreements.Paid.Load(), s.Completed.Load())
				}
				if got := p.Spent(l[0], l[1]); got != nil && got.Sign() != 0 {
					t.Fatalf("%s: %v still counted after the decline", c.name, got)
				}
			}
		})
	}
}

// The first Transact of a checkout only asks approval of the agreement
// payment: what the policy reserved for the checkout is given back, so a
// budget of one checkout still pays it on the approved call.
func TestCheckoutApprovalReleases(t *testing.T) {
	s, err := checkoutseller.New(checkout.ACPUndelegatedID)
	if err != nil {
		t.Fatal(err)
	}
	p := checkoutPolicy(t, checkout.ACPUndelegatedID, checkoutseller.Total, checkoutseller.Total)
	r := transactCheckout(t, s, p, nil)
	if r.err != nil || r.agreed != 1 {
		t.Fatalf("a budget of exactly one checkout: %v, %d agreement signatures", r.err, r.agreed)
	}
	if got := p.Spent(checkout.ACPNetwork, "USD"); got.Int64() != checkoutseller.Total {
		t.Fatalf("spent %v, want %d", got, checkoutseller.Total)
	}
	// The budget is now spent: the next checkout is declined before its
	// agreement is paid.
	s2, err := checkoutseller.New(checkout.ACPUndelegatedID)
	if err != nil {
		t.Fatal(err)
	}
	r = transactCheckout(t, s2, p, nil)
	if got := policyDetail(r.err); got != pay.DetailBudgetExhausted || r.agreed != 0 {
		t.Fatalf("a second checkout past the budget: %v (%q), %d agreement signatures", r.err, got, r.agreed)
	}
}

// Concurrent checkouts share one budget: of twenty, exactly the budget's
// worth are paid, and the budget ends spent exactly.
func TestCheckoutsShareTheBudget(t *testing.T) {
	const n, fits = 20, 4
	p := checkoutPolicy(t, checkout.ACPUndelegatedID, checkoutseller.Total, fits*checkoutseller.Total)
	var wg sync.WaitGroup
	runs := make([]checkoutRun, n)
	for i := range n {
		s, err := checkoutseller.New(checkout.ACPUndelegatedID)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i] = transactCheckout(t, s, p, nil)
		}()
	}
	wg.Wait()
	paid := 0
	for _, r := range runs {
		switch {
		case r.err == nil:
			paid++
		case policyDetail(r.err) != pay.DetailBudgetExhausted:
			t.Errorf("declined otherwise: %v", r.err)
		}
	}
	if paid > fits || p.Spent(checkout.ACPNetwork, "USD").Int64() != int64(paid)*checkoutseller.Total {
		t.Fatalf("%d paid, %v spent, budget of %d", paid, p.Spent(checkout.ACPNetwork, "USD"), fits)
	}
	if paid == 0 {
		t.Fatal("none paid")
	}
}

// ACP's allowance may not be under the checkout's total: the buyer's
// max_amount below the session's total is declined by the pairing itself,
// with or without a policy, before anything is fetched or signed.
func TestACPMaxAmountBelowTotal(t *testing.T) {
	s, err := checkoutseller.New(checkout.ACPDelegatedID)
	if err != nil {
		t.Fatal(err)
	}
	r := transactCheckout(t, s, nil, acpInputs(checkoutseller.Total-1, time.Now()))
	var d *gate.Decline
	if !errors.As(r.err, &d) || d.Detail != "acp/total-above-max-amount" || r.agreed != 0 || r.signed != 0 {
		t.Fatalf("max_amount under the total: %v, %d agreement and %d checkout signatures", r.err, r.agreed, r.signed)
	}
	if n := s.Agreements.ATRFetches.Load(); n != 0 {
		t.Fatalf("%d fetches of the terms", n)
	}
}
