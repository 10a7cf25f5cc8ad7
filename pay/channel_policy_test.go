package pay_test

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/signer"
)

// A v2 session on Tempo Moderato with the vectors' development key and
// H = SHA-256("abc"), opened without fetching (Finish, as after Confirm).
const sessionRequest = `{"amount":"100","currency":"0x20c0000000000000000000000000000000000000","methodDetails":{"chainId":42431,"escrowContract":"0x4D50500000000000000000000000000000000000","sessionProtocol":"v2"},"recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00"}`

var abc = []byte("abc")

// batchSigner counts its calls and signs a batch request by request.
type batchSigner struct {
	*signer.Local
	calls int
}

func (b *batchSigner) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	b.calls++
	if mpp.String(req, "kind") != rails.KindBatch {
		return b.Local.Sign(ctx, req)
	}
	list, _ := req.Get("requests")
	var out []jsonv.Value
	for _, r := range list.([]jsonv.Value) {
		a, err := b.Local.Sign(ctx, r.(*jsonv.Object))
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func sessionChallenge(t *testing.T, amount string) *jsonv.Object {
	t.Helper()
	req := strings.Replace(sessionRequest, `"amount":"100"`, `"amount":"`+amount+`"`, 1)
	c := jsonv.Obj("realm", "api.seller.example", "method", "tempo", "intent", "session",
		"request", mpp.EncodeB64URL([]byte(req)), "expires", "2026-09-21T14:14:20Z")
	h := atr.Sum(abc)
	d, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	return d[0].(*jsonv.Object)
}

// openSession returns the opening's funding request (what the policy is
// asked about when the channel opens) and the hold of the opened channel.
func openSession(t *testing.T, key *signer.Local) (gate.PaymentSummary, *gate.Hold) {
	t.Helper()
	p := tempo.Session{}
	read, err := p.Read([]jsonv.Value{sessionChallenge(t, "100")})
	if err != nil {
		t.Fatal(err)
	}
	choice, err := p.Choose(read, key.Account(), jsonv.Obj("deposit", "10000000"), 1790000000, "ref")
	if err != nil {
		t.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: tempo.SessionID, Choice: choice, Ref: "ref"}
	u, _ := p.Build(choice, abc, atr.Sum(abc))
	funding, _ := p.Request(u)
	ctx := context.Background()
	g := &gate.Gate{Now: func() time.Time { return time.Unix(1790000000, 0) }} // before the challenge expires
	tx, _ := key.Sign(ctx, funding)
	next, err := g.Finish(abc, tempo.SessionID, chosen, tx)
	if err != nil || next.Next == nil {
		t.Fatalf("step 1: %v", err)
	}
	sig, _ := key.Sign(ctx, next.Next)
	done, err := g.Finish(abc, tempo.SessionID, chosen, []jsonv.Value{tx, sig})
	if err != nil {
		t.Fatal(err)
	}
	hold, err := g.OpenChannel(abc, tempo.SessionID, done.Signed, nil)
	if err != nil {
		t.Fatal(err)
	}
	return gate.PaymentSummary{Pairing: tempo.SessionID, H: atr.Sum(abc), Request: funding, Chosen: chosen}, hold
}

// The opening counts its deposit; each voucher counts what it adds to the
// channel's signed amount, against the maximum and the budget, with no
// signer call when refused; the close adds nothing.
func TestPolicyInAChannel(t *testing.T) {
	key, err := signer.FromHex(signer.AnvilKey, tempoNetwork)
	if err != nil {
		t.Fatal(err)
	}
	opening, hold := openSession(t, key)
	policy := newPolicy(t, pay.PolicyConfig{Now: time.Now, MaxPayable: time.Hour, Limits: []pay.Limit{
		{Network: tempoNetwork, Asset: pathUSD, MaxAmount: big.NewInt(150), Budget: big.NewInt(250)},
	}})
	ctx := context.Background()
	// The deposit, 10000000, is above the maximum: the channel would not
	// have been opened.
	if got := refusal(policy.Allow(ctx, opening)); got != pay.DetailAmountAboveMaximum {
		t.Fatalf("the opening: %s", got)
	}
	g := &gate.Gate{Policy: policy}
	s := &batchSigner{Local: key}
	within := func(hold *gate.Hold, amount string, refund *gate.Refund) (*gate.WithinResult, error) {
		return g.Within(ctx, []jsonv.Value{sessionChallenge(t, amount)}, hold, tempo.SessionID, s, refund, nil)
	}
	r, err := within(hold, "100", nil) // cumulative 100, adds 100
	if err != nil {
		t.Fatal(err)
	}
	h, _ := gate.RecordCharge(r.Hold, "100")
	r, err = within(h, "100", nil) // cumulative 200, adds 100: 200 of 250 spent
	if err != nil {
		t.Fatal(err)
	}
	if s.calls != 2 || policy.Spent(tempoNetwork, pathUSD).String() != "200" {
		t.Fatalf("%d signer calls, spent %s", s.calls, policy.Spent(tempoNetwork, pathUSD))
	}
	h, _ = gate.RecordCharge(r.Hold, "200")
	_, err = within(h, "200", nil) // adds 200 > 150
	mustDecline(t, err, gate.NoPayableOption, pay.DetailAmountAboveMaximum)
	_, err = within(h, "100", nil) // adds 100: 300 > 250
	mustDecline(t, err, gate.NoPayableOption, pay.DetailBudgetExhausted)
	if s.calls != 2 {
		t.Fatalf("%d signer calls after two refusals", s.calls)
	}
	// The close at the charge recorded adds nothing and is signed.
	if _, err := within(h, "1", &gate.Refund{}); err != nil {
		t.Fatal(err)
	}
	if s.calls != 3 || policy.Spent(tempoNetwork, pathUSD).String() != "200" {
		t.Fatalf("%d signer calls, spent %s", s.calls, policy.Spent(tempoNetwork, pathUSD))
	}
}

// A subscription's key authorization counts its limit for every period
// that starts before it expires.
func TestPolicyCountsEverySubscriptionPeriod(t *testing.T) {
	const reqSub = `{"amount":"10000000","currency":"0x20c0000000000000000000000000000000000000","methodDetails":{"accessKey":{"accessKeyAddress":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","keyType":"secp256k1"},"chainId":42431},"periodCount":"30","periodUnit":"day","recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00","subscriptionExpires":"2026-12-20T00:00:00Z"}`
	c := jsonv.Obj("realm", "api.seller.example", "method", "tempo", "intent", "subscription",
		"request", mpp.EncodeB64URL([]byte(reqSub)), "expires", "2026-09-21T14:14:20Z")
	h := atr.Sum(abc)
	d, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	p := tempo.Subscription{}
	read, _ := p.Read(d)
	choice, err := p.Choose(read, "eip155:42431:"+payer, &jsonv.Object{}, 1790000000, "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, abc, h)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	ps := gate.PaymentSummary{Pairing: tempo.SubscriptionID, H: h, Request: req, Chosen: rails.Chosen{Pairing: tempo.SubscriptionID, Choice: choice}}
	// On 1 October, 80 days are left: three 30-day periods start before
	// the expiry, 30000000 in all.
	october := func() time.Time { return time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC) }
	tight := newPolicy(t, pay.PolicyConfig{Now: october, MaxPayable: 100 * 24 * time.Hour, Limits: []pay.Limit{{Network: tempoNetwork, MaxAmount: big.NewInt(29_999_999)}}})
	err = tight.Allow(context.Background(), ps)
	if dec := asDecline(err); dec == nil || !strings.HasPrefix(dec.Detail, pay.DetailAmountAboveMaximum+": 30000000 of eip155:42431 ") {
		t.Fatalf("%v", err)
	}
	enough := newPolicy(t, pay.PolicyConfig{Now: october, MaxPayable: 100 * 24 * time.Hour, Limits: []pay.Limit{{Network: tempoNetwork, MaxAmount: big.NewInt(30_000_000)}}})
	if err := enough.Allow(context.Background(), ps); err != nil {
		t.Fatal(err)
	}
	// The default ceiling (ten minutes) refuses an authorization that
	// lasts months.
	short := newPolicy(t, pay.PolicyConfig{Now: october, Limits: []pay.Limit{{Network: tempoNetwork, MaxAmount: big.NewInt(1 << 40)}}})
	if got := refusal(short.Allow(context.Background(), ps)); got != pay.DetailPayableTooLong {
		t.Fatal(got)
	}
}
