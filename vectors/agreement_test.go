package vectors_test

// buyer.json BA1–BA11 and BE2, and the newer rows BA12–BA19 that
// the published vector reference
// (https://agenticterms.integraledger.com/reference/vectors) specifies in words, built with buyer.json's fixtures.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
)

// agreementCase is one exchange: the stub pairing (no public proof) reads D
// with the agreement URL, the link serves A, the agreement URL answers steps.
type agreementCase struct {
	f         *buyerFixture
	s         *atrSeller
	script    *agreementScript
	clock     *fakeClock
	signer    *countingSigner
	g         *gate.Gate
	reg       *rails.Registry
	agreeURL  string
	doc       jsonv.Value
	fixtures  *jsonv.Object // fixed.agreement
	approvals []*gate.AgreementPayment
}

func newAgreementCase(t *testing.T, f *buyerFixture, s *atrSeller, steps []agreementStep) *agreementCase {
	t.Helper()
	fx := obj(t, f.file, "fixed", "agreement")
	url := str(t, fx, "url")
	noProof := false
	st := &stub{id: unprovenID, publicProof: &noProof, read: func(r rails.Read) rails.Read { r.Agreement = url; return r }}
	c := &agreementCase{
		f: f, s: s, fixtures: fx, agreeURL: url, doc: f.D,
		clock:  &fakeClock{now: time.Unix(f.now, 0)},
		signer: newCountingSigner(t, f.key, f.network),
		// The agreement option is paid with the real public-proof pairing.
		reg: rails.NewRegistry(evm.ExactEIP3009{}, st),
	}
	c.script = &agreementScript{steps: steps, clock: c.clock}
	s.mu.Lock()
	s.agreement = c.script
	s.mu.Unlock()
	t.Cleanup(func() { s.mu.Lock(); s.agreement = nil; s.mu.Unlock() })
	s.serveBytes(f.A)
	g := s.gateFor(f.now, c.reg)
	g.Now, g.Sleep = c.clock.Now, c.clock.Sleep
	c.g = g
	return c
}

// header is PAYMENT-REQUIRED for one of the fixtures.
func (c *agreementCase) header(t *testing.T, name string) string {
	return x402.EncodeHeader(get(t, c.fixtures, name))
}

// transact runs the agent's flow: a first Transact; if it asks for approval
// and approve is true, a second with that approval unchanged.
func (c *agreementCase) transact(t *testing.T, approve bool) (*gate.Transacted, error) {
	t.Helper()
	res, err := c.g.Transact(context.Background(), c.doc, unprovenID, c.signer, nil)
	if err != nil || res.Approve == nil {
		return res, err
	}
	c.approvals = append(c.approvals, res.Approve)
	if n := c.signer.calls.Load(); n != 0 {
		t.Fatalf("%d signer calls before approval", n)
	}
	if !approve {
		return res, nil
	}
	return c.g.Transact(context.Background(), c.doc, unprovenID, c.signer, &gate.TransactOptions{Approved: res.Approve})
}

func (c *agreementCase) wantCounts(t *testing.T, signs, unpaid, paid int) {
	t.Helper()
	u, p := c.script.counts()
	if got := int(c.signer.calls.Load()); got != signs || u != unpaid || p != paid {
		t.Fatalf("signer calls %d, unpaid %d, paid %d; want %d, %d, %d", got, u, p, signs, unpaid, paid)
	}
}

// wantApproval checks what the agent was shown against a row's approval.
func (c *agreementCase) wantApproval(t *testing.T, want jsonv.Value) {
	t.Helper()
	if len(c.approvals) == 0 {
		t.Fatal("the gate asked for no approval")
	}
	opt := c.approvals[0].Option
	for _, k := range []string{"amount", "asset", "payTo", "network"} {
		g, _ := opt.GetString(k)
		if g != str(t, want, k) {
			t.Fatalf("approval %s = %q, want %q", k, g, str(t, want, k))
		}
	}
	if c.approvals[0].URL != c.agreeURL {
		t.Fatalf("approval url %s", c.approvals[0].URL)
	}
}

// wantAgreementSigned checks the agreement signature and the payment order.
func (c *agreementCase) wantAgreementSigned(t *testing.T, expect *jsonv.Object) {
	t.Helper()
	c.signer.mu.Lock()
	seen := append([]rails.Request(nil), c.signer.seen...)
	c.signer.mu.Unlock()
	if len(seen) < 1 {
		t.Fatal("nothing signed")
	}
	td := obj(t, seen[0], "typedData")
	if expect.Has("agreementMessage") {
		if got, want := jsonv.String(get(t, td, "message")), jsonv.String(get(t, expect, "agreementMessage")); got != want {
			t.Fatalf("agreement message\n got %s\nwant %s", got, want)
		}
	}
	if expect.Has("agreementDigest") {
		d, err := evm.TypedDataDigest(td)
		if err != nil || "0x"+hexOf(d[:]) != str(t, expect, "agreementDigest") {
			t.Fatalf("agreement digest %x (%v)", d, err)
		}
	}
	if expect.Has("agreementSignature") {
		c.script.mu.Lock()
		first := c.script.payments[0]
		c.script.mu.Unlock()
		p, err := x402.DecodeHeader(first)
		if err != nil {
			t.Fatal(err)
		}
		if got := str(t, p, "payload", "signature"); got != str(t, expect, "agreementSignature") {
			t.Fatalf("agreement signature %s", got)
		}
	}
	if len(seen) == 2 {
		// order: agreement (amount 1) then the payment (amount 10000).
		if v := str(t, seen[1], "typedData", "message", "value"); v != "10000" {
			t.Fatalf("second signature is not the payment: value %s", v)
		}
	}
}

func retry(s string) *string { return &s }

// unprovenID names the stub: x402/exact/eip155/eip3009's build and read-back
// under a pattern whose payment is no public proof.
const unprovenID = "x402/stub/no-public-proof"

func TestAgreement(t *testing.T) {
	f := loadBuyer(t)
	s := newATRSeller(t)
	rows := func(name string) *jsonv.Object { return f.row(t, name) }
	b6sig := str(t, f.vectorB6, "signature")
	receiptJSON := func(c *agreementCase, name string) []byte { return jsonv.Marshal(get(t, c.fixtures, name)) }

	// stepsOf turns a row's agreement list into script steps.
	stepsOf := func(t *testing.T, c *agreementCase, list jsonv.Value) []agreementStep {
		var steps []agreementStep
		for _, e := range list.([]jsonv.Value) {
			o, _ := jsonv.AsObject(e)
			n, _ := jsonv.AsSafeInt(get(t, o, "status"))
			st := agreementStep{status: int(n)}
			if v, ok := o.GetString("paymentRequired"); ok {
				st.paymentRequired = c.header(t, v)
			}
			if v, ok := o.GetString("paymentRequiredText"); ok {
				st.paymentRequired = base64.StdEncoding.EncodeToString([]byte(str(t, c.fixtures, v)))
			}
			if v, ok := o.GetString("retryAfter"); ok {
				st.retryAfter = retry(v)
			}
			if v, ok := o.GetString("body"); ok {
				st.body = receiptJSON(c, v)
			}
			if v, ok := o.GetString("contentEncoding"); ok {
				st.contentEncoding = v
				if v == "gzip" && st.body != nil {
					var b bytes.Buffer
					z := gzip.NewWriter(&b)
					_, _ = z.Write(st.body)
					_ = z.Close()
					st.body = b.Bytes()
				}
			}
			st.repeats = o.Has("repeats")
			steps = append(steps, st)
		}
		return steps
	}
	run := func(t *testing.T, name string) (*agreementCase, *gate.Transacted, *jsonv.Object, error) {
		r := rows(name)
		c := newAgreementCase(t, f, s, nil)
		c.script.steps = stepsOf(t, c, get(t, r, "input", "agreement"))
		approve := false
		if in := obj(t, r, "input"); in.Has("approve") {
			approve = get(t, in, "approve") == true
		}
		res, err := c.transact(t, approve)
		return c, res, obj(t, r, "expect"), err
	}
	paidLikeBA1 := func(t *testing.T, name string) {
		c, res, exp, err := run(t, name)
		if err != nil {
			t.Fatal(err)
		}
		c.wantApproval(t, get(t, exp, "approval"))
		signs := int64(2) // one agreement signature, then the payment's
		if exp.Has("signCalls") {
			signs, _ = jsonv.AsSafeInt(get(t, exp, "signCalls"))
		}
		if int(c.signer.calls.Load()) != int(signs) {
			t.Fatalf("%d signer calls", c.signer.calls.Load())
		}
		c.wantAgreementSigned(t, exp)
		if got := signedSignature(t, res.Signed); got != b6sig {
			t.Fatalf("payment signature %s is not B6's", got)
		}
		if res.Agreement == nil || jsonv.String(res.Agreement.JSON()) != jsonv.String(get(t, c.fixtures, "receipt")) {
			t.Fatalf("receipt %v", res.Agreement)
		}
		if exp.Has("paidRequests") {
			paid, _ := jsonv.AsSafeInt(get(t, exp, "paidRequests"))
			if _, p := c.script.counts(); p != int(paid) {
				t.Fatalf("%d paid requests", p)
			}
			c.script.mu.Lock()
			defer c.script.mu.Unlock()
			for _, p := range c.script.payments {
				if p != c.script.payments[0] {
					t.Fatal("the paid requests carry different PAYMENT-SIGNATUREs")
				}
			}
		}
	}

	t.Run("BA1", func(t *testing.T) { paidLikeBA1(t, "BA1") })
	t.Run("BA2", func(t *testing.T) {
		c, _, _, err := run(t, "BA2")
		wantDecline(t, err, gate.HashMismatch, "The agreement challenge advertises another ATR hash.")
		c.wantCounts(t, 0, 1, 0)
	})
	pendingAt240 := func(t *testing.T, name string) {
		c, _, exp, err := run(t, name)
		d := wantDecline(t, err, gate.AgreementPending, "The agreement payment was sent and is not yet recorded.")
		if d.Moved == nil {
			t.Fatal("the sent agreement payment is not kept as moved")
		}
		paid, _ := jsonv.AsSafeInt(get(t, exp, "paidRequests"))
		c.wantCounts(t, 1, 1, int(paid))
		for i, at := range c.script.paidAt {
			if want := f.now + int64(2*i); at.Unix() != want {
				t.Fatalf("paid request %d at %d s, want %d s", i, at.Unix()-f.now, want-f.now)
			}
		}
		if end := c.clock.Now().Unix() - f.now; end != 240 {
			t.Fatalf("pending at %d s", end)
		}
		if exp.Has("approval") {
			c.wantApproval(t, get(t, exp, "approval"))
		}
	}
	t.Run("BA3", func(t *testing.T) { pendingAt240(t, "BA3") })
	t.Run("BA4", func(t *testing.T) {
		c, _, exp, err := run(t, "BA4")
		d := wantDecline(t, err, gate.AgreementFailed, "The agreement receipt names another ATR hash.")
		c.wantCounts(t, 1, 1, 1)
		c.wantApproval(t, get(t, exp, "approval"))
		if d.Moved == nil {
			t.Fatal("no moved after the agreement payment was sent")
		}
	})
	t.Run("BA5", func(t *testing.T) {
		r := rows("BA5")
		httpURL := str(t, r, "input", "agreementUrl")
		noProof := false
		c := newAgreementCase(t, f, s, nil)
		c.g.Pairings = rails.NewRegistry(&stub{id: unprovenID, publicProof: &noProof, read: func(rd rails.Read) rails.Read { rd.Agreement = httpURL; return rd }})
		_, err := c.g.Transact(context.Background(), f.D, unprovenID, c.signer, nil)
		wantDecline(t, err, gate.LinkNotHTTPS, "x402/link-not-https")
		c.wantCounts(t, 0, 0, 0)
		_, err = c.g.Agree(context.Background(), f.A, httpURL, c.signer, nil)
		wantDecline(t, err, gate.LinkNotHTTPS, "The agreement URL is not an https URL.")
		c.wantCounts(t, 0, 0, 0)
	})
	t.Run("BA6", func(t *testing.T) {
		c := newAgreementCase(t, f, s, nil)
		doc := f.D.Clone()
		obj(t, doc, "extensions", "legalContext", "info").Set("legalContextAgreementUrl", c.agreeURL)
		res, err := s.gateFor(f.now, nil).Transact(context.Background(), doc, pairing, c.signer, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.wantCounts(t, 1, 0, 0)
		if signedSignature(t, res.Signed) != b6sig || res.Agreement != nil {
			t.Fatalf("not paid as B6: %s", jsonv.String(res.Signed))
		}
	})
	t.Run("BA7", func(t *testing.T) { paidLikeBA1(t, "BA7") })
	t.Run("BA8", func(t *testing.T) {
		c, res, exp, err := run(t, "BA8")
		if err != nil || res.Approve == nil || res.Signed != nil {
			t.Fatalf("want an approval request, got %v, %v", res, err)
		}
		c.wantApproval(t, get(t, exp, "approval"))
		c.wantCounts(t, 0, 1, 0)
		if jsonv.String(res.Approve.Required) != jsonv.String(get(t, c.fixtures, "required")) {
			t.Fatal("the approval does not carry the whole PAYMENT-REQUIRED document")
		}
	})
	t.Run("BA9", func(t *testing.T) { paidLikeBA1(t, "BA9") })
	t.Run("BA10", func(t *testing.T) { pendingAt240(t, "BA10") })
	t.Run("BA11", func(t *testing.T) { paidLikeBA1(t, "BA11") })

	t.Run("BA12", func(t *testing.T) {
		noProof := false
		c := newAgreementCase(t, f, s, nil)
		c.g.Pairings = rails.NewRegistry(&stub{id: unprovenID, publicProof: &noProof})
		_, err := c.g.Transact(context.Background(), f.D, unprovenID, c.signer, nil)
		wantDecline(t, err, gate.AgreementNotOffered, gate.DetailAgreementNotOffered)
		if s.fetches.Load() != 1 {
			t.Fatalf("%d ATR fetches, want 1 (the link is fetched and compared first)", s.fetches.Load())
		}
		c.wantCounts(t, 0, 0, 0)
		s.serveBytes(f.C)
		_, err = c.g.Transact(context.Background(), f.D, unprovenID, c.signer, nil)
		wantDecline(t, err, gate.HashMismatch, gate.DetailHashMismatch)
		c.wantCounts(t, 0, 0, 0)
	})

	// unreadable runs one unpaid request answered 402 with a header that must
	// not be read.
	unreadable := func(t *testing.T, header string) {
		c := newAgreementCase(t, f, s, []agreementStep{{status: 402, paymentRequired: header}})
		_, err := c.transact(t, true)
		wantDecline(t, err, gate.AgreementFailed, "The agreement URL answered 402 without a readable PAYMENT-REQUIRED.")
		c.wantCounts(t, 0, 1, 0)
	}
	requiredJSON := func() []byte { return jsonv.Marshal(get(t, f.file, "fixed", "agreement", "required")) }
	t.Run("BA13", func(t *testing.T) {
		unpadded := base64.RawStdEncoding.EncodeToString(requiredJSON())
		if unpadded == base64.StdEncoding.EncodeToString(requiredJSON()) {
			t.Fatal("the fixture's base64 has no padding to drop")
		}
		unreadable(t, unpadded)
	})
	t.Run("BA14", func(t *testing.T) {
		c := newAgreementCase(t, f, s, []agreementStep{{status: 202}})
		res, err := c.transact(t, true)
		wantDecline(t, err, gate.AgreementPending, "An agreement payment for this ATR is already settling.")
		c.wantCounts(t, 0, 1, 0)
		if res != nil || len(c.approvals) != 0 {
			t.Fatal("an approval was returned")
		}
	})
	t.Run("BA15", func(t *testing.T) {
		forms := map[string]struct {
			header *string
			wait   int64
		}{
			"absent": {nil, 2}, "1": {retry("1"), 1}, "0 waits at least 1": {retry("0"), 1}, "7": {retry("7"), 7},
			"nine digits": {retry("000000003"), 3}, "padded": {retry("  5 "), 5}, "ten digits": {retry("0000000003"), 2},
			"fraction": {retry("2.5"), 2}, "negative": {retry("-1"), 2}, "HTTP-date": {retry("Wed, 21 Oct 2026 07:28:00 GMT"), 2},
			"empty": {retry(""), 2}, "huge": {retry("999999999"), 240},
		}
		for name, form := range forms {
			t.Run(name, func(t *testing.T) {
				c := newAgreementCase(t, f, s, nil)
				c.script.steps = []agreementStep{
					{status: 402, paymentRequired: c.header(t, "required")},
					{status: 202, retryAfter: form.header, repeats: true},
				}
				_, err := c.transact(t, true)
				wantDecline(t, err, gate.AgreementPending, "The agreement payment was sent and is not yet recorded.")
				want := (240 + form.wait - 1) / form.wait
				if _, p := c.script.counts(); int64(p) != want {
					t.Fatalf("%d paid requests, want %d", p, want)
				}
				for i, at := range c.script.paidAt {
					if got := at.Unix() - f.now; got != int64(i)*form.wait || got >= 240 {
						t.Fatalf("paid request %d at %d s", i, got)
					}
				}
			})
		}
	})
	t.Run("BA16", func(t *testing.T) {
		c := newAgreementCase(t, f, s, []agreementStep{{status: 402, paymentRequired: ""}})
		for _, bad := range []jsonv.Value{"x", []jsonv.Value{}, jsonv.Number(1), true} {
			_, err := c.g.Agree(context.Background(), f.A, c.agreeURL, c.signer, &gate.AgreeOptions{Inputs: bad})
			wantDecline(t, err, gate.NoPayableOption, "x402/input-malformed")
		}
		c.wantCounts(t, 0, 0, 0)
	})
	t.Run("BA17", func(t *testing.T) {
		c := newAgreementCase(t, f, s, nil)
		c.script.steps = []agreementStep{
			{status: 402, paymentRequired: c.header(t, "required")},
			{status: 200, body: append([]byte("\xef\xbb\xbf"), receiptJSON(c, "receipt")...)},
		}
		_, err := c.transact(t, true)
		d := wantDecline(t, err, gate.AgreementFailed, "The agreement URL answered 200 without a JSON receipt.")
		if d.Moved == nil || str(t, d.Moved.Signed, "accepted", "amount") != "1" {
			t.Fatal("the sent agreement payment is not kept as moved")
		}
		c.wantCounts(t, 1, 1, 1)
	})
	t.Run("BA18", func(t *testing.T) {
		t.Run("byte order mark", func(t *testing.T) {
			unreadable(t, base64.StdEncoding.EncodeToString(append([]byte("\xef\xbb\xbf"), requiredJSON()...)))
		})
		t.Run("space inside", func(t *testing.T) {
			h := base64.StdEncoding.EncodeToString(requiredJSON())
			unreadable(t, h[:40]+" "+h[40:])
		})
	})
	t.Run("BA19", func(t *testing.T) {
		h := base64.StdEncoding.EncodeToString(requiredJSON())
		i := strings.IndexByte(h, '=') - 1
		if i < 0 {
			t.Fatal("the fixture's base64 has no padding")
		}
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
		withPadBit := h[:i] + string(alphabet[strings.IndexByte(alphabet, h[i])+1]) + h[i+1:]
		if dec, err := base64.StdEncoding.DecodeString(withPadBit); err != nil || !bytes.Equal(dec, requiredJSON()) {
			t.Fatal("the mutation changed more than a pad bit")
		}
		unreadable(t, withPadBit)
	})

	t.Run("BE2", func(t *testing.T) {
		r := rows("BE2")
		for _, cs := range get(t, r, "input", "cases").([]jsonv.Value) {
			t.Run(str(t, cs, "case"), func(t *testing.T) {
				c := newAgreementCase(t, f, s, nil)
				c.script.steps = stepsOf(t, c, get(t, cs, "agreement"))
				_, err := c.transact(t, true)
				wantDecline(t, err, gate.AgreementFailed, "The agreement URL served a content coding other than identity.")
				exp := obj(t, cs, "expect")
				signs, _ := jsonv.AsSafeInt(get(t, exp, "signCalls"))
				if int(c.signer.calls.Load()) != int(signs) {
					t.Fatalf("%d signer calls, want %d", c.signer.calls.Load(), signs)
				}
				c.script.mu.Lock()
				defer c.script.mu.Unlock()
				for _, h := range c.script.headers {
					if v := h.Values("Accept-Encoding"); len(v) != 1 || v[0] != "identity" {
						t.Fatalf("Accept-Encoding %q", v)
					}
				}
			})
		}
	})
}
