package pay_test

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/evm"
)

func bigInt(n int64) *big.Int { return big.NewInt(n) }

var policyNow = time.Unix(1790000000, 0)

// transfer is the summary the gate hands a policy for an EIP-3009 payment,
// built the way the x402/exact/eip155/eip3009 pairing builds it.
func transfer(chain int64, asset, to, value string, validFor int64) gate.PaymentSummary {
	auth := jsonv.Obj("from", payer, "to", to, "value", value, "validAfter", "0",
		"validBefore", strconv.FormatInt(policyNow.Unix()+validFor, 10), "nonce", hashA)
	td := evm.TransferWithAuthorization("USDC", "2", chain, asset, auth)
	h, _ := atr.ParseHash(hashA)
	return gate.PaymentSummary{Pairing: "x402/exact/eip155/eip3009", H: h, Request: jsonv.Obj("kind", "eip712", "typedData", td)}
}

func defaultTransfer() gate.PaymentSummary { return transfer(84532, usdc, payee, "10000", 60) }

func newPolicy(t *testing.T, c pay.PolicyConfig) *pay.Policy {
	t.Helper()
	if c.Now == nil {
		c.Now = func() time.Time { return policyNow }
	}
	p, err := pay.NewPolicy(c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func refusal(err error) string {
	var d *gate.Decline
	if !errors.As(err, &d) {
		if err == nil {
			return "allowed"
		}
		return "not a decline: " + err.Error()
	}
	if d.Code != gate.NoPayableOption {
		return "code " + string(d.Code)
	}
	return pay.DetailCode(d.Detail)
}

func TestPolicyChecks(t *testing.T) {
	base := []pay.Limit{{Network: network, Asset: usdc, MaxAmount: bigInt(10000)}}
	other := "0x1111111111111111111111111111111111111111"
	cases := []struct {
		name string
		cfg  pay.PolicyConfig
		ps   gate.PaymentSummary
		want string
	}{
		{"allowed", pay.PolicyConfig{Limits: base}, defaultTransfer(), "allowed"},
		{"asset named in another case", pay.PolicyConfig{Limits: []pay.Limit{{Network: network, Asset: "0x036cbd53842c5426634e7929541ec2318f3dcf7e", MaxAmount: bigInt(10000)}}}, defaultTransfer(), "allowed"},
		{"wildcard asset", pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(10000)}}}, transfer(84532, other, payee, "10000", 60), "allowed"},
		{"named asset beats the wildcard", pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(1_000_000)}, {Network: network, Asset: usdc, MaxAmount: bigInt(9999)}}}, defaultTransfer(), pay.DetailAmountAboveMaximum},
		{"amount above maximum", pay.PolicyConfig{Limits: []pay.Limit{{Network: network, Asset: usdc, MaxAmount: bigInt(9999)}}}, defaultTransfer(), pay.DetailAmountAboveMaximum},
		{"amount beyond int64", pay.PolicyConfig{Limits: base}, transfer(84532, usdc, payee, "115792089237316195423570985008687907853269984665640564039457584007913129639935", 60), pay.DetailAmountAboveMaximum},
		{"network without limit", pay.PolicyConfig{Limits: base}, transfer(1, usdc, payee, "10000", 60), pay.DetailNetworkNotAllowed},
		{"network filtered out", pay.PolicyConfig{Limits: base, Networks: []string{"eip155:8453"}}, defaultTransfer(), pay.DetailNetworkNotAllowed},
		{"asset not allowed", pay.PolicyConfig{Limits: base}, transfer(84532, other, payee, "1", 60), pay.DetailAssetNotAllowed},
		{"payee not allowed", pay.PolicyConfig{Limits: base, Payees: []string{other}}, defaultTransfer(), pay.DetailPayeeNotAllowed},
		{"payee allowed in any case", pay.PolicyConfig{Limits: base, Payees: []string{"0x209693bc6afc0c5328ba36faf03c514ef312287c"}}, defaultTransfer(), "allowed"},
		{"payable too long", pay.PolicyConfig{Limits: base, MaxPayable: 59 * time.Second}, defaultTransfer(), pay.DetailPayableTooLong},
		{"payable exactly the ceiling", pay.PolicyConfig{Limits: base, MaxPayable: 60 * time.Second}, defaultTransfer(), "allowed"},
		{"default ceiling", pay.PolicyConfig{Limits: base}, transfer(84532, usdc, payee, "1", int64(pay.DefaultMaxPayable/time.Second)+1), pay.DetailPayableTooLong},
		{"validBefore beyond int64", pay.PolicyConfig{Limits: base}, withMessage(defaultTransfer(), "validBefore", "99999999999999999999999"), pay.DetailPayableTooLong},
		{"budget smaller than one payment", pay.PolicyConfig{Limits: []pay.Limit{{Network: network, Asset: usdc, MaxAmount: bigInt(10000), Budget: bigInt(9999)}}}, defaultTransfer(), pay.DetailBudgetExhausted},
		{"no limits at all", pay.PolicyConfig{}, defaultTransfer(), pay.DetailNetworkNotAllowed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newPolicy(t, tc.cfg)
			if got := refusal(p.Allow(context.Background(), tc.ps)); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func withMessage(ps gate.PaymentSummary, k, v string) gate.PaymentSummary {
	req := ps.Request.Clone()
	td, _ := req.GetObject("typedData")
	msg, _ := td.GetObject("message")
	msg.Set(k, v)
	ps.Request = req
	return ps
}

func mutate(ps gate.PaymentSummary, f func(td *jsonv.Object)) gate.PaymentSummary {
	req := ps.Request.Clone()
	td, _ := req.GetObject("typedData")
	f(td)
	ps.Request = req
	return ps
}

// Every request the summary cannot state exactly is refused.
func TestPolicyRefusesUnreadableRequests(t *testing.T) {
	p := newPolicy(t, pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(1 << 62)}}})
	ok := defaultTransfer()
	obj := func(ps gate.PaymentSummary, k string) *jsonv.Object {
		td, _ := ps.Request.GetObject("typedData")
		o, _ := td.GetObject(k)
		return o
	}
	cases := map[string]gate.PaymentSummary{
		"nil request":       {Pairing: ok.Pairing},
		"other kind":        {Request: jsonv.Obj("kind", "tempo-call", "typedData", obj(ok, "domain"))},
		"no typed data":     {Request: jsonv.Obj("kind", "eip712")},
		"other primaryType": mutate(ok, func(td *jsonv.Object) { td.Set("primaryType", "Permit") }),
		"receive instead":   mutate(ok, func(td *jsonv.Object) { td.Set("primaryType", "ReceiveWithAuthorization") }),
		"domain without chainId": mutate(ok, func(td *jsonv.Object) {
			types, _ := td.GetObject("types")
			d, _ := types.Get("EIP712Domain")
			list, _ := jsonv.AsArray(d)
			types.Set("EIP712Domain", []jsonv.Value{list[0], list[1], list[3]})
		}),
		"fields reordered": mutate(ok, func(td *jsonv.Object) {
			types, _ := td.GetObject("types")
			d, _ := types.Get("TransferWithAuthorization")
			l, _ := jsonv.AsArray(d)
			types.Set("TransferWithAuthorization", []jsonv.Value{l[1], l[0], l[2], l[3], l[4], l[5]})
		}),
		"salt in domain":     mutate(ok, func(td *jsonv.Object) { d, _ := td.GetObject("domain"); d.Set("salt", "0x00") }),
		"chainId zero":       mutate(ok, func(td *jsonv.Object) { d, _ := td.GetObject("domain"); d.Set("chainId", 0) }),
		"chainId hex":        mutate(ok, func(td *jsonv.Object) { d, _ := td.GetObject("domain"); d.Set("chainId", "0x14a34") }),
		"contract malformed": mutate(ok, func(td *jsonv.Object) { d, _ := td.GetObject("domain"); d.Set("verifyingContract", "USDC") }),
		"value negative":     withMessage(ok, "value", "-1"),
		"value hex":          withMessage(ok, "value", "0x2710"),
		"to malformed":       withMessage(ok, "to", "0x20"),
		"extra message member": mutate(ok, func(td *jsonv.Object) {
			m, _ := td.GetObject("message")
			m.Set("memo", "x")
		}),
		"value as number": mutate(ok, func(td *jsonv.Object) { m, _ := td.GetObject("message"); m.Set("value", 10000) }),
	}
	for name, ps := range cases {
		if got := refusal(p.Allow(context.Background(), ps)); got != pay.DetailRequestUnreadable {
			t.Errorf("%s: %s", name, got)
		}
		if _, err := pay.Summarize(ps); refusal(err) != pay.DetailRequestUnreadable {
			t.Errorf("Summarize %s: %v", name, err)
		}
	}
	// chainId as a decimal string is what apitypes also reads.
	s, err := pay.Summarize(mutate(ok, func(td *jsonv.Object) { d, _ := td.GetObject("domain"); d.Set("chainId", "84532") }))
	if err != nil || s.Network != network {
		t.Fatalf("%+v %v", s, err)
	}
}

func TestSummarize(t *testing.T) {
	s, err := pay.Summarize(defaultTransfer())
	if err != nil {
		t.Fatal(err)
	}
	if s.Amount.String() != "10000" || s.Asset != usdc || s.AssetName != "USDC" || s.Payee != payee || s.Payer != payer ||
		s.Network != network || !s.PayableUntil.Equal(policyNow.Add(time.Minute)) || !s.PayableFrom.Equal(time.Unix(0, 0)) ||
		s.H.String() != hashA || s.Pairing != "x402/exact/eip155/eip3009" {
		t.Fatalf("%+v", s)
	}
	want := "10000 atomic units of USDC " + usdc + " on eip155:84532 from " + payer + " to " + payee +
		", payable until 2026-09-21T14:14:20Z, terms " + hashA + " (x402/exact/eip155/eip3009)"
	if s.String() != want {
		t.Fatalf("%s\n%s", s, want)
	}
}

func TestPolicyBudgetIsAtomicAndReleasable(t *testing.T) {
	p := newPolicy(t, pay.PolicyConfig{Limits: []pay.Limit{{Network: network, Asset: usdc, MaxAmount: bigInt(10), Budget: bigInt(50)}}})
	one := transfer(84532, usdc, payee, "1", 60)
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if p.Allow(context.Background(), one) == nil {
				allowed.Add(1)
			}
		}()
	}
	wg.Wait()
	if allowed.Load() != 50 || p.Spent(network, usdc).String() != "50" {
		t.Fatalf("%d allowed, spent %s", allowed.Load(), p.Spent(network, usdc))
	}
	if got := refusal(p.Allow(context.Background(), one)); got != pay.DetailBudgetExhausted {
		t.Fatal(got)
	}
	p.Release(context.Background(), one)
	if got := refusal(p.Allow(context.Background(), one)); got != "allowed" {
		t.Fatal(got)
	}
	// The budget is per asset: another asset under a wildcard has its own.
	w := newPolicy(t, pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(10), Budget: bigInt(10)}}})
	a := transfer(84532, usdc, payee, "10", 60)
	b := transfer(84532, "0x1111111111111111111111111111111111111111", payee, "10", 60)
	if refusal(w.Allow(context.Background(), a)) != "allowed" || refusal(w.Allow(context.Background(), b)) != "allowed" ||
		refusal(w.Allow(context.Background(), a)) != pay.DetailBudgetExhausted {
		t.Fatal("wildcard budgets are not per asset")
	}
}

func TestNewPolicyRefusesBadConfig(t *testing.T) {
	for name, c := range map[string]pay.PolicyConfig{
		"no network":       {Limits: []pay.Limit{{MaxAmount: bigInt(1)}}},
		"no max":           {Limits: []pay.Limit{{Network: network}}},
		"negative max":     {Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(-1)}}},
		"negative budget":  {Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(1), Budget: bigInt(-1)}}},
		"bad asset":        {Limits: []pay.Limit{{Network: network, Asset: "USDC", MaxAmount: bigInt(1)}}},
		"duplicate":        {Limits: []pay.Limit{{Network: network, Asset: usdc, MaxAmount: bigInt(1)}, {Network: network, Asset: usdc, MaxAmount: bigInt(2)}}},
		"bad payee":        {Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(1)}}, Payees: []string{"bob"}},
		"negative payable": {Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(1)}}, MaxPayable: -time.Second},
	} {
		if _, err := pay.NewPolicy(c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Through the transport: each refusal comes after the ATR was fetched and
// its hash matched, and before any signer call.
func TestPolicyRefusalsThroughTheTransport(t *testing.T) {
	cases := []struct {
		name   string
		cfg    pay.PolicyConfig
		hook   func(context.Context, *http.Request, pay.Summary) error
		detail string
	}{
		{"amount", pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(9999)}}}, nil, pay.DetailAmountAboveMaximum},
		{"network", pay.PolicyConfig{Limits: []pay.Limit{{Network: "eip155:8453", MaxAmount: bigInt(10000)}}}, nil, pay.DetailNetworkNotAllowed},
		{"asset", pay.PolicyConfig{Limits: []pay.Limit{{Network: network, Asset: "0x1111111111111111111111111111111111111111", MaxAmount: bigInt(10000)}}}, nil, pay.DetailAssetNotAllowed},
		{"payee", pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(10000)}}, Payees: []string{payer}}, nil, pay.DetailPayeeNotAllowed},
		{"payable", pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(10000)}}, MaxPayable: 30 * time.Second}, nil, pay.DetailPayableTooLong},
		{"budget", pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(10000), Budget: bigInt(5000)}}}, nil, pay.DetailBudgetExhausted},
		{"vetoed", pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(10000), Budget: bigInt(10000)}}},
			func(context.Context, *http.Request, pay.Summary) error { return errors.New("the operator said no") }, pay.DetailVetoed},
		{"vetoed with a decline", pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(10000)}}},
			func(context.Context, *http.Request, pay.Summary) error {
				return &gate.Decline{Code: gate.NoPayableOption, Detail: "approver/declined"}
			}, "approver/declined"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			policy, err := pay.NewPolicy(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			e.transport.Policy = policy
			e.transport.Hooks.BeforeSign = tc.hook
			_, _, err = get(t, e.client, e.seller.ResourceURL())
			mustDecline(t, err, gate.NoPayableOption, tc.detail)
			if n := e.signer.calls.Load(); n != 0 {
				t.Fatalf("%d signer calls", n)
			}
			if f := e.seller.ATRFetches.Load(); f != 1 || e.seller.Paid.Load()+e.seller.Rejected.Load() != 0 {
				t.Fatalf("%d fetches; a payment was sent", f)
			}
			// A veto gives back what the policy reserved.
			if s := policy.Spent(network, usdc); s.Sign() != 0 {
				t.Fatalf("spent %s", s)
			}
		})
	}
}

// A signed payment the seller refused keeps its reservation: the seller
// holds a valid authorization until validBefore.
func TestRejectedPaymentStaysReserved(t *testing.T) {
	_, c := vectorATRs(t)
	e := newEnv(t, nil)
	policy, _ := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(10000), Budget: bigInt(10000)}}})
	e.transport.Policy = policy
	e.transport.Hooks.AfterSign = func(context.Context, *http.Request, *pay.Result) { e.seller.SetATR(c) }
	resp, _, err := get(t, e.client, e.seller.ResourceURL())
	if err != nil || resp.StatusCode != 402 {
		t.Fatalf("%v %v", err, resp)
	}
	if s := policy.Spent(network, usdc); s.String() != "10000" {
		t.Fatalf("spent %s", s)
	}
	_, _, err = get(t, e.client, e.seller.ResourceURL())
	mustDecline(t, err, gate.NoPayableOption, pay.DetailBudgetExhausted)
}
