package pay_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/pay"
)

// A Transport without a Policy (and without Gate.Policy) pays nothing: the
// 402 is declined before the terms are fetched or the signer asked, and the
// error says how to opt in. pay.NoLimits() is that opt-in, and pays.
func TestTransportWithoutPolicyPaysNothing(t *testing.T) {
	t.Run("no policy", func(t *testing.T) {
		e := newEnv(t, nil)
		e.transport.Policy = nil
		var declined *gate.Decline
		e.transport.Hooks.Declined = func(_ context.Context, _ *http.Request, d *gate.Decline) { declined = d }
		_, _, err := get(t, e.client, e.seller.ResourceURL())
		d := mustDecline(t, err, gate.NoPayableOption, pay.DetailNoPolicy)
		if d.Detail != pay.DetailNoPolicy || declined != d {
			t.Fatalf("detail %q, hook saw %v", d.Detail, declined)
		}
		for _, want := range []string{"no-payable-option", pay.DetailNoPolicy, "Transport.Policy", "pay.NewPolicy", "pay.NoLimits()"} {
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("the message %q does not say %q", err, want)
			}
		}
		if n := e.signer.calls.Load(); n != 0 {
			t.Fatalf("%d signer calls", n)
		}
		if got := [3]int64{e.seller.Unpaid.Load(), e.seller.Paid.Load(), e.seller.ATRFetches.Load()}; got != [3]int64{1, 0, 0} {
			t.Fatalf("seller saw unpaid, paid, ATR fetches %v, want one unpaid request only", got)
		}
	})
	t.Run("Gate.Policy is a policy", func(t *testing.T) {
		e := newEnv(t, nil)
		policy := e.transport.Policy
		e.transport.Policy = nil
		g := *e.transport.Gate
		g.Policy = policy
		e.transport.Gate = &g
		resp, body, err := get(t, e.client, e.seller.ResourceURL())
		if err != nil || resp.StatusCode != 200 || string(body) != paidBody || e.signer.calls.Load() != 1 {
			t.Fatalf("%v %v %q, %d signer calls", err, resp, body, e.signer.calls.Load())
		}
	})
	t.Run("NoLimits pays", func(t *testing.T) {
		e := newEnv(t, nil)
		e.transport.Policy = pay.NoLimits()
		resp, body, err := get(t, e.client, e.seller.ResourceURL())
		if err != nil || resp.StatusCode != 200 || string(body) != paidBody {
			t.Fatalf("%v %v %q (seller: %v)", err, resp, body, e.seller.LastRejection())
		}
		if r := pay.ResultOf(resp); r == nil || r.Summary.Amount.String() != "10000" || e.signer.calls.Load() != 1 {
			t.Fatalf("result %+v, %d signer calls", r, e.signer.calls.Load())
		}
	})
}
