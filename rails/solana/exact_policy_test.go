package solana_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	spend "github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/x402"
)

// An x402/exact/solana request states validUntil, the choice's now plus
// BlockhashPayableSeconds, which its summary reads as its deadline: the
// default spend policy (ten minutes at most) allows it within its amount
// limit; a shorter MaxPayable, a request whose validUntil is later than the
// policy allows or that states none are refused; a validUntil that is no
// positive safe integer is unreadable, and a choice without a usable now
// is not built.
func TestExactStatesPayableUntil(t *testing.T) {
	const now = 1_800_000_000
	s := devSigner(t)
	p := solana.Exact{}
	read, err := p.Read(doc(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Choose(read, s.Account(), inputs, now, "")
	if err != nil {
		t.Fatal(err)
	}
	h := atr.Sum(atrBytes)
	u, err := p.Build(c, atrBytes, h)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	if got, _ := jsonv.AsSafeInt(mustGet(req, "validUntil")); got != now+solana.BlockhashPayableSeconds {
		t.Fatalf("validUntil %d, want %d", got, now+solana.BlockhashPayableSeconds)
	}
	g, err := p.Summarize(req)
	if err != nil || !g.PayableUntil.Equal(time.Unix(now+solana.BlockhashPayableSeconds, 0)) || g.Amount.Int64() != 1000 {
		t.Fatalf("grant %+v (%v)", g, err)
	}
	allow := func(req rails.Request, maxPayable time.Duration) string {
		policy, err := spend.NewPolicy(spend.PolicyConfig{Limits: []spend.Limit{{Network: devnet, MaxAmount: big.NewInt(1000)}},
			MaxPayable: maxPayable, Now: func() time.Time { return time.Unix(now, 0) }})
		if err != nil {
			t.Fatal(err)
		}
		err = policy.Allow(context.Background(), gate.PaymentSummary{Pairing: solana.ExactID, H: h, Request: req, Rail: p})
		var d *gate.Decline
		if errors.As(err, &d) {
			return d.Detail
		}
		if err != nil {
			return err.Error()
		}
		return ""
	}
	if d := allow(req, 0); d != "" {
		t.Fatalf("the default policy refuses a payment within its limits: %s", d)
	}
	if d := allow(req, solana.BlockhashPayableSeconds*time.Second-time.Second); !strings.HasPrefix(d, spend.DetailPayableTooLong) {
		t.Fatalf("a MaxPayable below the blockhash's lifetime: %q", d)
	}
	tooLong := req.Clone()
	tooLong.Set("validUntil", jsonv.Number(now+int64(spend.DefaultMaxPayable/time.Second)+1))
	if d := allow(tooLong, 0); !strings.HasPrefix(d, spend.DetailPayableTooLong) {
		t.Fatalf("a validUntil past the default maximum: %q", d)
	}
	none := req.Clone()
	none.Delete("validUntil")
	if d := allow(none, 0); !strings.HasPrefix(d, spend.DetailPayableTooLong) {
		t.Fatalf("no validUntil: %q", d)
	}
	for _, v := range []jsonv.Value{"soon", jsonv.Number(0), jsonv.Number(-1), jsonv.Number(1.5), jsonv.Number(1 << 60)} {
		bad := req.Clone()
		bad.Set("validUntil", v)
		if _, err := p.Summarize(bad); err == nil {
			t.Fatalf("validUntil %v summarized", v)
		}
	}
	for _, v := range []jsonv.Value{nil, "0", jsonv.Number(-1), jsonv.Number(1 << 53)} {
		bad := c.(*jsonv.Object).Clone()
		if v == nil {
			bad.Delete("now")
		} else {
			bad.Set("now", v)
		}
		if _, err := p.Build(bad, atrBytes, h); refusal(err) != x402.CodeChoiceMalformed {
			t.Fatalf("now %v: %v", v, err)
		}
	}
}
