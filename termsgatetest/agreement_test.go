package termsgatetest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/cloudflare"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/termsgatetest"
)

// agent is the cloudflare:402 identity: the gate must never ask it to sign.
type agent struct{ calls int }

func (*agent) Account() string { return termsgatetest.AgentAccount }
func (a *agent) Sign(context.Context, rails.Request) (jsonv.Value, error) {
	a.calls++
	return nil, errors.New("an agent identity signs requests, not payments")
}

type counting struct {
	gate.Signer
	calls int
}

func (c *counting) Sign(ctx context.Context, r rails.Request) (jsonv.Value, error) {
	c.calls++
	return c.Signer.Sign(ctx, r)
}

// An Agreement seller needs the agreement exchange: the gate asks for
// approval of the agreement payment (nothing signed), pays it once approved
// (one EIP-3009 signature with nonce H, to the agreement URL), and the main
// payment it then releases is accepted by the seller; the same payment
// before any agreement was paid is refused.
func TestAgreementSellerNeedsTheExchange(t *testing.T) {
	s, err := termsgatetest.Start(termsgatetest.Config{Agreement: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	client := s.Client()
	resp, err := client.Get(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	doc, err := x402.DecodeHeader(resp.Header.Get("PAYMENT-REQUIRED"))
	if resp.StatusCode != http.StatusPaymentRequired || err != nil {
		t.Fatalf("%d, %v", resp.StatusCode, err)
	}
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	offer, err := g.Read(doc, cloudflare.ID)
	if err != nil || offer.PublicProof || offer.Agreement != s.AgreementURL() || offer.H != s.Hash() {
		t.Fatalf("offer %+v (%v), agreement URL %s", offer, err, s.AgreementURL())
	}
	w, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	payer, who := &counting{Signer: w}, &agent{}

	// A payment echoing the terms, sent before any agreement, is refused.
	early, err := cloudflare.Batch{}.Build(mustChoice(t, doc), nil, atr.Sum(termsgatetest.DefaultATR))
	if err != nil {
		t.Fatal(err)
	}
	done, err := cloudflare.Batch{}.Complete(early, nil, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	if code := send(t, client, s.URL, done.Signed); code != http.StatusPaymentRequired || s.LastRejection() == nil {
		t.Fatalf("a payment before the agreement answered %d (%v)", code, s.LastRejection())
	}

	opts := &gate.TransactOptions{AgreementSigner: payer}
	first, err := g.Transact(t.Context(), doc, cloudflare.ID, who, opts)
	if err != nil || first.Approve == nil || payer.calls != 0 {
		t.Fatalf("first call: %+v, %v, %d signer calls", first, err, payer.calls)
	}
	if first.Approve.URL != s.AgreementURL() {
		t.Fatalf("approval for %s", first.Approve.URL)
	}
	opts.Approved = first.Approve
	paid, err := g.Transact(t.Context(), doc, cloudflare.ID, who, opts)
	if err != nil || paid.Agreement == nil || paid.Signed == nil {
		t.Fatalf("second call: %+v, %v", paid, err)
	}
	if paid.Agreement.ATRHash != s.Hash() || payer.calls != 1 || who.calls != 0 {
		t.Fatalf("receipt for %s, %d payer signatures, %d agent signatures", paid.Agreement.ATRHash, payer.calls, who.calls)
	}
	if code := send(t, client, s.URL, paid.Signed); code != http.StatusOK {
		t.Fatalf("the paid request answered %d: %v", code, s.LastRejection())
	}
	if c := s.Counts(); c.Agreements != 1 || c.Paid != 1 || c.Rejected != 1 {
		t.Fatalf("counts %+v", c)
	}
}

func mustChoice(t *testing.T, doc *jsonv.Object) jsonv.Value {
	t.Helper()
	read, err := cloudflare.Batch{}.Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cloudflare.Batch{}.Choose(read, termsgatetest.AgentAccount, nil, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func send(t *testing.T, c *http.Client, url string, payment jsonv.Value) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("PAYMENT-SIGNATURE", x402.EncodeHeader(payment))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
