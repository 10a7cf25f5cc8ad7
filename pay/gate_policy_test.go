package pay_test

import (
	"context"
	"math/big"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/pay"
)

// libraryGate is a gate.Gate with policy, fetching from e's loopback
// seller: the library path, no Transport in between.
func libraryGate(e *env, policy gate.Policy) *gate.Gate {
	return &gate.Gate{Fetcher: &atr.Fetcher{Client: &http.Client{Transport: e.base}}, Policy: policy}
}

// Fifty concurrent Gate.Transact calls share one budget of ten payments:
// exactly ten are signed (ten signer calls), forty are declined
// budget-exhausted with no signer call, and the budget ends spent exactly.
func TestGateTransactSharesTheBudget(t *testing.T) {
	e := newEnv(t, nil)
	policy := newPolicy(t, pay.PolicyConfig{Limits: []pay.Limit{{Network: network, Asset: usdc, MaxAmount: big.NewInt(10000), Budget: big.NewInt(100000)}}, Now: time.Now})
	g := libraryGate(e, policy)
	doc, err := e.seller.Required()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	signed, exhausted := 0, 0
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			tx, err := g.Transact(context.Background(), doc, "x402/exact/eip155/eip3009", e.signer, nil)
			mu.Lock()
			defer mu.Unlock()
			switch d := asDecline(err); {
			case err == nil && tx.Signed != nil:
				signed++
			case d != nil && pay.DetailCode(d.Detail) == pay.DetailBudgetExhausted:
				exhausted++
			default:
				t.Errorf("%v", err)
			}
		})
	}
	wg.Wait()
	if signed != 10 || exhausted != 40 || e.signer.calls.Load() != 10 {
		t.Fatalf("%d signed, %d exhausted, %d signer calls", signed, exhausted, e.signer.calls.Load())
	}
	if s := policy.Spent(network, usdc); s.String() != "100000" {
		t.Fatalf("spent %s", s)
	}
}

// A signer that signs nothing gives the reservation back: the gate
// releases what the policy reserved, and the next payment has the budget.
func TestGateReleasesWhenNothingWasSigned(t *testing.T) {
	e := newEnv(t, nil)
	policy := newPolicy(t, pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: big.NewInt(10000), Budget: big.NewInt(10000)}}, Now: time.Now})
	g := libraryGate(e, policy)
	doc, _ := e.seller.Required()
	refusing := failingSigner{anvil(t)}
	_, err := g.Transact(context.Background(), doc, "x402/exact/eip155/eip3009", refusing, nil)
	mustDecline(t, err, gate.SignerFailed, "")
	if refusing.calls.Load() != 1 || policy.Spent(network, usdc).Sign() != 0 {
		t.Fatalf("%d signer calls, spent %s after a refusal", refusing.calls.Load(), policy.Spent(network, usdc))
	}
	if _, err := g.Transact(context.Background(), doc, "x402/exact/eip155/eip3009", e.signer, nil); err != nil {
		t.Fatal(err)
	}
	_, err = g.Transact(context.Background(), doc, "x402/exact/eip155/eip3009", e.signer, nil)
	mustDecline(t, err, gate.NoPayableOption, pay.DetailBudgetExhausted)
	if e.signer.calls.Load() != 1 || policy.Spent(network, usdc).String() != "10000" {
		t.Fatalf("%d signer calls, spent %s", e.signer.calls.Load(), policy.Spent(network, usdc))
	}
}
