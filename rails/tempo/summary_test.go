package tempo_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
)

// grantIs fails t unless g states amount of pathUSD on Tempo Moderato to
// the vectors' recipient.
func grantIs(t *testing.T, g rails.Grant, err error, amount string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if g.Network != "eip155:42431" || !strings.EqualFold(g.Asset, pathUSD) || g.Decimals != 6 || g.Amount.String() != amount ||
		common.HexToAddress(g.Payee) != common.HexToAddress(recipient) {
		t.Fatalf("grant %+v, want %s of %s to %s", g, amount, pathUSD, recipient)
	}
}

// Memo and push summarize the transferWithMemo they build, to the second.
func TestChargeSummaries(t *testing.T) {
	for _, p := range []rails.Pairing{tempo.Memo{}, tempo.Push{}} {
		_, req := built(t, p, doc(t, "tempo", "charge", reqBoth), nil)
		g, err := p.(rails.Summarizer).Summarize(req)
		grantIs(t, g, err, "1000000")
		vb, _ := req.Get("validBefore")
		before, _ := jsonv.AsSafeInt(vb)
		if !g.PayableUntil.Equal(time.Unix(before, 0)) || g.Period != 0 {
			t.Fatalf("%s: payable until %s, want %d", p.ID(), g.PayableUntil, before)
		}
		unreadable(t, p.(rails.Summarizer), req)
	}
}

// unreadable: the request with a member added, or its call's data cut, is
// no longer read.
func unreadable(t *testing.T, s rails.Summarizer, req rails.Request) {
	t.Helper()
	extra := req.Clone()
	extra.Set("value", "1")
	if _, err := s.Summarize(extra); code(err) != tempo.CodeRequestUnreadable {
		t.Errorf("an extra member: %v", err)
	}
	other := req.Clone()
	other.Set("kind", "eip712")
	if _, err := s.Summarize(other); code(err) != tempo.CodeRequestUnreadable {
		t.Errorf("another kind: %v", err)
	}
	if _, err := s.Summarize(nil); code(err) != tempo.CodeRequestUnreadable {
		t.Errorf("nil: %v", err)
	}
}

// The session's opening grants its deposit, v1 and v2; a voucher in the
// channel grants its cumulative amount, and only in the channel it names.
func TestSessionSummaries(t *testing.T) {
	p := tempo.Session{}
	for _, version := range []string{"v2", "v1"} {
		t.Run(version, func(t *testing.T) {
			req := strings.Replace(reqV2, "v2", version, 1)
			_, funding := built(t, p, doc(t, "tempo", "session", req), jsonv.Obj("deposit", "10000000"))
			g, err := p.Summarize(funding)
			grantIs(t, g, err, "10000000")
			unreadable(t, p, funding)

			open := opened(t, req)
			channel := mpp.String(mustGet(open, "payload").(*jsonv.Object), "channelId")
			built, err := p.BuildWithin(within(open, withinChallenge(req, channel), 250, rails.WithinVoucher), h)
			if err != nil {
				t.Fatal(err)
			}
			batch := jsonv.Obj("kind", rails.KindBatch, "requests", []jsonv.Value{built.Requests()[0]})
			g, err = p.SummarizeWithin(batch, open)
			grantIs(t, g, err, "250")
			if !g.PayableUntil.IsZero() {
				t.Fatalf("a voucher payable until %s", g.PayableUntil)
			}
			// Another channel's opening, or a voucher changed in any member,
			// is not read.
			other := opened(t, strings.Replace(req, recipient, "0x1111111111111111111111111111111111111111", 1))
			if _, err := p.SummarizeWithin(batch, other); code(err) != tempo.CodeRequestUnreadable {
				t.Errorf("another opening: %v", err)
			}
			changed := jsonv.Clone(batch).(*jsonv.Object)
			rv, _ := changed.Get("requests")
			td, _ := rv.([]jsonv.Value)[0].(*jsonv.Object).GetObject("typedData")
			msg, _ := td.GetObject("message")
			msg.Set("extra", "1")
			if _, err := p.SummarizeWithin(changed, open); code(err) != tempo.CodeRequestUnreadable {
				t.Errorf("a voucher with an extra member: %v", err)
			}
			if _, err := p.SummarizeWithin(jsonv.Obj("kind", rails.KindBatch, "requests", []jsonv.Value{built.Requests()[0], built.Requests()[0]}), open); code(err) != tempo.CodeRequestUnreadable {
				t.Errorf("two vouchers: %v", err)
			}
		})
	}
}

// The subscription's key authorization grants its limit every period until
// it expires.
func TestSubscriptionSummary(t *testing.T) {
	p := tempo.Subscription{}
	_, req := built(t, p, doc(t, "tempo", "subscription", reqSub), nil)
	g, err := p.Summarize(req)
	grantIs(t, g, err, "10000000")
	if g.Period != 30*24*time.Hour || !g.PayableUntil.Equal(time.Date(2026, 12, 20, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("period %s, until %s", g.Period, g.PayableUntil)
	}
	unreadable(t, p, req)
	// A digest that is not the authorization's, or an authorization with
	// a member the summary does not read, is refused.
	wrong := req.Clone()
	wrong.Set("digest", "0x"+strings.Repeat("11", 32))
	if _, err := p.Summarize(wrong); code(err) != tempo.CodeRequestUnreadable {
		t.Errorf("another digest: %v", err)
	}
	more := req.Clone()
	auth, _ := more.GetObject("authorization")
	auth = auth.Clone()
	auth.Set("admin", true)
	more.Set("authorization", auth)
	if _, err := p.Summarize(more); code(err) != tempo.CodeRequestUnreadable {
		t.Errorf("an extra authorization member: %v", err)
	}
}
