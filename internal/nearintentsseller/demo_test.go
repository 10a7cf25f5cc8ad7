package nearintentsseller

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/near"
	"github.com/termsgate/termsgate/signer"
)

// The demo: approval asked with no deposit, one agreement signature, then
// one deposit, and the seller's 200.
func TestDemoPaysEndToEnd(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "nearintents", "")
	if err != nil || paid == "" {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"deposits so far: 0", "(agreement signatures: 1)", "deposit sent (signer calls: 1)", ": 200, "} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// The seller takes a deposit once, only the one its challenge asked for,
// and only after an agreement.
func TestSellerRefuses(t *testing.T) {
	s := New(demo.ATR, []byte("ok\n"))
	srv, err := loopback.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	key, _ := signer.FromHex(signer.AnvilKey, Network)
	agreer, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	wallet := demo.Count(signer.NewEVM(key, s.Node))
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}}
	ctx := context.Background()
	send := func(cred jsonv.Value) int {
		o, _ := jsonv.AsObject(cred)
		name, value := mpp.Header(o)
		resp, _, err := demo.Get(ctx, srv.Client(), s.ResourceURL(), name, value)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode
	}
	_, doc, _, err := demo.MPPOffer(ctx, srv.Client(), g, s.ResourceURL(), near.NearIntentsID)
	if err != nil {
		t.Fatal(err)
	}
	// Confirm and finish without the agreement: the deposit is sent, the seller refuses it.
	conf, err := g.Confirm(ctx, doc, near.NearIntentsID, wallet.Account(), nil)
	if err != nil || conf.Request == nil {
		t.Fatalf("confirm: %v", err)
	}
	answer, err := wallet.Sign(ctx, conf.Request)
	if err != nil {
		t.Fatal(err)
	}
	f, err := g.Finish(conf.Bytes, near.NearIntentsID, conf.Chosen, answer)
	if err != nil {
		t.Fatal(err)
	}
	if code := send(f.Signed); code != http.StatusPaymentRequired || !strings.Contains(s.LastRejection().Error(), "no agreement") {
		t.Fatalf("before the agreement: %d %v", code, s.LastRejection())
	}
	// After the agreement the same kind of payment is taken, once.
	opts := &gate.TransactOptions{AgreementSigner: agreer}
	first, err := g.Transact(ctx, doc, near.NearIntentsID, wallet, opts)
	if err != nil || first.Approve == nil {
		t.Fatalf("approval: %v", err)
	}
	opts.Approved = first.Approve
	paid, err := g.Transact(ctx, doc, near.NearIntentsID, wallet, opts)
	if err != nil {
		t.Fatal(err)
	}
	if code := send(paid.Signed); code != http.StatusOK {
		t.Fatalf("paid: %d %v", code, s.LastRejection())
	}
	if code := send(paid.Signed); code != http.StatusPaymentRequired || !strings.Contains(s.LastRejection().Error(), "already used") {
		t.Fatalf("replay: %d %v", code, s.LastRejection())
	}
	// A credential naming a transaction the chain does not have is refused.
	c, _ := jsonv.AsObject(paid.Signed)
	c = c.Clone()
	c.Set("payload", jsonv.Obj("type", "hash", "hash", "0x"+strings.Repeat("cd", 32)))
	if code := send(c); code != http.StatusPaymentRequired || !strings.Contains(s.LastRejection().Error(), "not on the chain") {
		t.Fatalf("unknown deposit: %d %v", code, s.LastRejection())
	}
	if wallet.Calls() != 2 || s.Node.Deposits() != 2 {
		t.Fatalf("signer calls %d, deposits %d: want 2 and 2", wallet.Calls(), s.Node.Deposits())
	}
}
