package vectors_test

// x402/batch-settlement/cloudflare: EC1 and its buyer rows (run from
// TestX402BatchSettlement), and the agreement exchange's main rows BA1, BA3,
// BA7, BA8 and BA12 through this real pairing and the shipped registry:
// its payment is no public proof, so the agreement is paid (by EIP-3009)
// before the payment, which the gate's signer never signs.

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/termsgate/termsgate/agreement"
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/cloudflare"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
)

// agent is a cloudflare:402 agent: its HTTP message signature stack signs
// the requests, so the gate must never call Sign.
type agent struct {
	account string
	calls   atomic.Int64
}

func (a *agent) Account() string { return a.account }

func (a *agent) Sign(context.Context, rails.Request) (jsonv.Value, error) {
	a.calls.Add(1)
	return nil, errors.New("the agent's key signs HTTP requests, not payments")
}

// ec1 runs EC1: the file's Cloudflare payment reads back H, names the
// pairing, and is what Build makes of a document with its extensions.
func ec1(t *testing.T, f *jsonv.Object) {
	v := obj(t, f, "EC1")
	payload := obj(t, v, "payload")
	p := cloudflare.Batch{}
	if h, err := p.Bound(payload); err != nil || h != str(t, v, "expectBound") {
		t.Fatalf("bound %s (%v)", h, err)
	}
	if n, _ := jsonv.AsSafeInt(get(t, v, "payloadLength")); len(jsonv.Marshal(payload)) != int(n) {
		t.Fatalf("payload length %d, want %d", len(jsonv.Marshal(payload)), n)
	}
	without := payload.Clone()
	without.Delete("extensions")
	_, err := p.Bound(without)
	wantRefusal(t, err, str(t, v, "withoutExtensions"))
	// The option is this pairing's, and no other shipped pairing's.
	accepted := obj(t, payload, "accepted")
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{accepted}, "extensions", get(t, payload, "extensions"))
	read, err := p.Read(doc)
	if err != nil || len(read.Options) != 1 || p.ID() != str(t, v, "expectPairing") {
		t.Fatalf("read %+v (%v)", read, err)
	}
	if _, err := (evm.Batch{}).Read(doc); err == nil {
		t.Fatal("the EVM pairing serves the Cloudflare option")
	}
	choice, err := p.Choose(read, "cloudflare:402:agent.example", nil, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, nil, mustHash(t, str(t, v, "expectBound")))
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Complete(u, nil, rails.Chosen{Pairing: cloudflare.ID, Choice: choice, Ref: rails.NewRef()})
	if err != nil || jsonv.String(c.Signed) != jsonv.String(payload) {
		t.Fatalf("built %s (%v)", jsonv.Marshal(c.Signed), err)
	}
	if _, err := p.Request(u); err == nil {
		t.Fatal("a signing request for a payment the agent's HTTP key signs")
	}
}

// cloudflareLegalContextConflict is agreedRefusals' Cloudflare row: a build
// whose document names another hash than h.
func cloudflareLegalContextConflict(t *testing.T, f *jsonv.Object) []error {
	payload := obj(t, f, "EC1", "payload")
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{get(t, payload, "accepted")}, "extensions", get(t, payload, "extensions"))
	p := cloudflare.Batch{}
	read, _ := p.Read(doc)
	choice, _ := p.Choose(read, "cloudflare:402:agent.example", nil, 0, "")
	_, err := p.Build(choice, nil, mustHash(t, str(t, f, "fixed", "Hprime")))
	return []error{err}
}

// cloudflareBuyerRows runs the file's B2 and B6 for the pairing.
func cloudflareBuyerRows(t *testing.T, f *jsonv.Object) {
	t.Run("B2/"+cloudflare.ID, func(t *testing.T) {
		r := batchRow(t, f, "B2", cloudflare.ID)
		in := obj(t, r, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		a := &agent{account: str(t, in, "account")}
		_, err := s.gateFor(0, nil).Transact(context.Background(), get(t, in, "doc"), cloudflare.ID, a, nil)
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if a.calls.Load() != 0 || s.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", a.calls.Load(), s.fetches.Load())
		}
	})
	t.Run("B6/"+cloudflare.ID, func(t *testing.T) {
		r := batchRow(t, f, "B6", cloudflare.ID)
		presented := get(t, r, "input", "presented")
		checks := get(t, r, "input", "check").([]jsonv.Value)
		expects := get(t, r, "expect").([]jsonv.Value)
		g := &gate.Gate{}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), cloudflare.ID, presented)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), cloudflare.ID, presented)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
	})
}

// cloudflareCase is an agreement case whose main payment is a Cloudflare
// one, with the shipped registry.
type cloudflareCase struct {
	*agreementCase
	agent *agent
}

func newCloudflareCase(t *testing.T, f *buyerFixture, s *atrSeller, agreementURL string) *cloudflareCase {
	t.Helper()
	c := newAgreementCase(t, f, s, nil)
	c.g.Pairings = nil // the shipped registry
	link := str(t, f.D, "extensions", "legalContext", "info", "legalContextUrl")
	option := jsonv.Obj("scheme", "batch-settlement", "network", cloudflare.Network, "amount", "5", "asset", "USD",
		"payTo", "merchant", "maxTimeoutSeconds", 30, "extra", jsonv.Obj("version", "1.0.0"))
	doc, err := x402.Advertise(jsonv.Obj("x402Version", 2, "resource", get(t, f.D, "resource"), "accepts", []jsonv.Value{option}),
		atr.Sum(f.A), link, agreementURL)
	if err != nil {
		t.Fatal(err)
	}
	c.doc = doc
	return &cloudflareCase{agreementCase: c, agent: &agent{account: "cloudflare:402:agent.example"}}
}

// pay is the agent's flow: a first Transact; if it asks for approval and
// approve is true, a second with that approval unchanged, under ctx2.
func (c *cloudflareCase) pay(t *testing.T, approve bool, ctx2 context.Context) (*gate.Transacted, error) {
	t.Helper()
	opts := &gate.TransactOptions{AgreementSigner: c.signer}
	res, err := c.g.Transact(context.Background(), c.doc, cloudflare.ID, c.agent, opts)
	if err != nil || res.Approve == nil {
		return res, err
	}
	c.approvals = append(c.approvals, res.Approve)
	if c.signer.calls.Load() != 0 {
		t.Fatal("signed before approval")
	}
	if !approve {
		return res, nil
	}
	opts.Approved = res.Approve
	return c.g.Transact(ctx2, c.doc, cloudflare.ID, c.agent, opts)
}

func TestAgreementCloudflare(t *testing.T) {
	f := loadBuyer(t)
	s := newATRSeller(t)
	h := atr.Sum(f.A)
	steps := func(t *testing.T, c *cloudflareCase, name string) *jsonv.Object {
		r := f.row(t, name)
		for _, e := range get(t, r, "input", "agreement").([]jsonv.Value) {
			o, _ := jsonv.AsObject(e)
			n, _ := jsonv.AsSafeInt(get(t, o, "status"))
			st := agreementStep{status: int(n), repeats: o.Has("repeats")}
			if v, ok := o.GetString("paymentRequired"); ok {
				st.paymentRequired = c.header(t, v)
			}
			if v, ok := o.GetString("retryAfter"); ok {
				st.retryAfter = retry(v)
			}
			if v, ok := o.GetString("body"); ok {
				st.body = jsonv.Marshal(get(t, c.fixtures, v))
			}
			c.script.steps = append(c.script.steps, st)
		}
		return obj(t, r, "expect")
	}
	paid := func(t *testing.T, name string) {
		c := newCloudflareCase(t, f, s, str(t, f.file, "fixed", "agreement", "url"))
		exp := steps(t, c, name)
		res, err := c.pay(t, true, context.Background())
		if err != nil {
			t.Fatal(err)
		}
		c.wantApproval(t, get(t, exp, "approval"))
		// One signature, the agreement's; the agent's key signs the request.
		if c.signer.calls.Load() != 1 || c.agent.calls.Load() != 0 {
			t.Fatalf("%d agreement signatures, %d agent calls", c.signer.calls.Load(), c.agent.calls.Load())
		}
		c.wantAgreementSigned(t, exp)
		if got, err := (cloudflare.Batch{}).Bound(res.Signed); err != nil || got != h.String() {
			t.Fatalf("the payment carries %s (%v)", got, err)
		}
		if str(t, res.Signed, "payload", "asset") != "USD" || res.H != h {
			t.Fatalf("payment %s", jsonv.Marshal(res.Signed))
		}
		if res.Agreement == nil || jsonv.String(res.Agreement.JSON()) != jsonv.String(get(t, c.fixtures, "receipt")) {
			t.Fatalf("receipt %v", res.Agreement)
		}
		if exp.Has("paidRequests") {
			n, _ := jsonv.AsSafeInt(get(t, exp, "paidRequests"))
			if _, p := c.script.counts(); p != int(n) {
				t.Fatalf("%d paid requests", p)
			}
		}
	}
	t.Run("BA1", func(t *testing.T) { paid(t, "BA1") })
	t.Run("BA7", func(t *testing.T) { paid(t, "BA7") })
	t.Run("BA3", func(t *testing.T) {
		c := newCloudflareCase(t, f, s, str(t, f.file, "fixed", "agreement", "url"))
		exp := steps(t, c, "BA3")
		_, err := c.pay(t, true, context.Background())
		d := wantDecline(t, err, gate.AgreementPending, "The agreement payment was sent and is not yet recorded.")
		if d.Moved == nil {
			t.Fatal("the sent agreement payment is not kept as moved")
		}
		n, _ := jsonv.AsSafeInt(get(t, exp, "paidRequests"))
		c.wantCounts(t, 1, 1, int(n))
		if end := c.clock.Now().Unix() - f.now; end != 240 || c.agent.calls.Load() != 0 {
			t.Fatalf("pending at %d s, %d agent calls", end, c.agent.calls.Load())
		}
		c.wantApproval(t, get(t, exp, "approval"))
	})
	t.Run("BA8", func(t *testing.T) {
		c := newCloudflareCase(t, f, s, str(t, f.file, "fixed", "agreement", "url"))
		exp := steps(t, c, "BA8")
		res, err := c.pay(t, false, nil)
		if err != nil || res.Approve == nil || res.Signed != nil {
			t.Fatalf("want an approval request, got %v, %v", res, err)
		}
		c.wantApproval(t, get(t, exp, "approval"))
		c.wantCounts(t, 0, 1, 0)
		if jsonv.String(res.Approve.Required) != jsonv.String(get(t, c.fixtures, "required")) {
			t.Fatal("the approval does not carry the whole PAYMENT-REQUIRED document")
		}
	})
	t.Run("BA12", func(t *testing.T) {
		c := newCloudflareCase(t, f, s, "")
		_, err := c.pay(t, true, context.Background())
		wantDecline(t, err, gate.AgreementNotOffered, gate.DetailAgreementNotOffered)
		if s.fetches.Load() != 1 {
			t.Fatalf("%d ATR fetches, want 1 (the link is fetched and compared first)", s.fetches.Load())
		}
		c.wantCounts(t, 0, 0, 0)
		s.serveBytes(f.C)
		_, err = c.pay(t, true, context.Background())
		wantDecline(t, err, gate.HashMismatch, gate.DetailHashMismatch)
		c.wantCounts(t, 0, 0, 0)
	})

	// The reference gates' own tests: an approved second Transact whose
	// context is already cancelled ends before the agreement payment is
	// sent, agreement-failed; and an agreement URL present as null is a
	// malformed legal context, not an absent one.
	t.Run("approved and cancelled", func(t *testing.T) {
		c := newCloudflareCase(t, f, s, str(t, f.file, "fixed", "agreement", "url"))
		steps(t, c, "BA1")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := c.pay(t, true, ctx)
		wantDecline(t, err, gate.AgreementFailed, agreement.DetailSignalBefore)
		c.wantCounts(t, 0, 1, 0)
	})
	t.Run("agreement URL null", func(t *testing.T) {
		c := newCloudflareCase(t, f, s, str(t, f.file, "fixed", "agreement", "url"))
		obj(t, c.doc, "extensions", "legalContext", "info").Set("legalContextAgreementUrl", nil)
		s.serveBytes(f.A)
		_, err := c.pay(t, true, context.Background())
		wantDecline(t, err, gate.OfferUnreadable, x402.CodeLegalContextMalformed)
		if s.fetches.Load() != 0 {
			t.Fatal("fetched for an unreadable offer")
		}
		c.wantCounts(t, 0, 0, 0)
	})
}
