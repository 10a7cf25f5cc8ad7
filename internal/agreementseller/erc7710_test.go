package agreementseller

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/permit2seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

type erc7710Run struct {
	seller *Seller
	srv    *loopback.Server
	wallet *demo.Counting
}

func startERC7710(t *testing.T, w rails.Signer) *erc7710Run {
	t.Helper()
	seller := NewERC7710(demo.ATR, []byte("ok"))
	srv, err := loopback.Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &erc7710Run{seller: seller, srv: srv, wallet: demo.Count(w)}
}

func anvilDelegator(t *testing.T, issue signer.DelegationIssuer) *signer.Local {
	t.Helper()
	l, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	return l.WithDelegations(issue)
}

// pay runs the agreement exchange and the main payment through the gate,
// and presents it: the status and the payment.
func (r *erc7710Run) pay(t *testing.T) (int, jsonv.Value) {
	t.Helper()
	ctx := context.Background()
	resp, _, err := demo.Get(ctx, r.srv.Client(), r.seller.ResourceURL(), "", "")
	if err != nil || resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("unpaid GET: %v", err)
	}
	doc, err := x402.DecodeHeader(resp.Header.Get("PAYMENT-REQUIRED"))
	if err != nil {
		t.Fatal(err)
	}
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: r.srv.Client()}}
	opts := &gate.TransactOptions{}
	first, err := g.Transact(ctx, doc, evm.ExactERC7710ID, r.wallet, opts)
	if err != nil || first.Approve == nil {
		t.Fatalf("no approval asked: %v", err)
	}
	if r.wallet.Calls() != 0 {
		t.Fatalf("%d signer calls before approval", r.wallet.Calls())
	}
	opts.Approved = first.Approve
	paid, err := g.Transact(ctx, doc, evm.ExactERC7710ID, r.wallet, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r.present(t, paid.Signed), paid.Signed
}

func (r *erc7710Run) present(t *testing.T, payment jsonv.Value) int {
	t.Helper()
	resp, _, err := demo.Get(context.Background(), r.srv.Client(), r.seller.ResourceURL(), "PAYMENT-SIGNATURE", x402.EncodeHeader(payment))
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode
}

// The seller serves a delegation through its manager once an agreement was
// paid: two signatures (the agreement's EIP-3009, then the delegation), the
// terms fetched by the gate, the payment inspected as the unsigned level;
// the same delegation again is refused, as the manager refuses a redeemed
// one.
func TestERC7710SellerRedeemsOnceAfterTheAgreement(t *testing.T) {
	r := startERC7710(t, otherManagerWallet{anvilDelegator(t, permit2seller.DemoIssuer)})
	status, payment := r.pay(t)
	if status != http.StatusOK {
		t.Fatalf("refused: %v", r.seller.LastRejection())
	}
	if r.wallet.Calls() != 2 || r.seller.Agreements.Paid.Load() != 1 || r.seller.Paid.Load() != 1 {
		t.Fatalf("signer calls %d, agreements %d, paid %d", r.wallet.Calls(), r.seller.Agreements.Paid.Load(), r.seller.Paid.Load())
	}
	if n := r.seller.Agreements.ATRFetches.Load(); n < 1 {
		t.Fatalf("the terms were fetched %d times", n)
	}
	if !strings.EqualFold(r.seller.LastPayer(), "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266") {
		t.Fatalf("payer %s", r.seller.LastPayer())
	}
	if got := evm.PairingOfERC7710(payment); got != evm.ExactERC7710ID {
		t.Fatalf("the payment reads as %s", got)
	}
	if r.present(t, payment) == http.StatusOK || !strings.Contains(r.seller.LastRejection().Error(), "redeemed before") {
		t.Fatalf("a redeemed delegation was served again: %v", r.seller.LastRejection())
	}
}

// Each part the seller checks, broken, is refused.
func TestERC7710SellerRefuses(t *testing.T) {
	// No agreement paid to this seller: the payment made to another with
	// the same terms is refused.
	_, payment := startAndPay(t, otherManagerWallet{anvilDelegator(t, permit2seller.DemoIssuer)})
	fresh := startERC7710(t, nil)
	if fresh.present(t, payment) == http.StatusOK || !strings.Contains(fresh.seller.LastRejection().Error(), "no agreement") {
		t.Fatalf("served without an agreement: %v", fresh.seller.LastRejection())
	}

	for name, c := range map[string]struct {
		wallet rails.Signer
		want   string
	}{
		// MetaMask's manager: not the manager this seller redeems through.
		"another manager": {anvilDelegator(t, permit2seller.DemoIssuer), "not " + OtherManager},
		"another amount": {otherManagerWallet{anvilDelegator(t, func(req rails.Request) (string, []evm.Caveat, error) {
			token, _ := req.GetString("token")
			d, cv, err := permit2seller.DemoIssuer(req)
			cv[0].Terms = permit2seller.TransferTerms(token, "10001")
			return d, cv, err
		})}, "caveat"},
		"another delegate": {otherManagerWallet{anvilDelegator(t, func(req rails.Request) (string, []evm.Caveat, error) {
			_, cv, err := permit2seller.DemoIssuer(req)
			return "0x90F79bf6EB2c4f870365E785982E1f101E93b906", cv, err
		})}, "facilitator"},
	} {
		t.Run(name, func(t *testing.T) {
			r := startERC7710(t, c.wallet)
			if status, _ := r.pay(t); status == http.StatusOK || !strings.Contains(r.seller.LastRejection().Error(), c.want) {
				t.Fatalf("status %d, rejection %v", status, r.seller.LastRejection())
			}
			if r.seller.Paid.Load() != 0 {
				t.Fatal("served")
			}
		})
	}
}

func startAndPay(t *testing.T, w rails.Signer) (*erc7710Run, jsonv.Value) {
	t.Helper()
	r := startERC7710(t, w)
	status, payment := r.pay(t)
	if status != http.StatusOK {
		t.Fatal(r.seller.LastRejection())
	}
	return r, payment
}

// The demo row: approval with nothing signed, the agreement, the
// delegation the seller redeemed.
func TestDemoERC7710PaysEndToEnd(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), evm.ExactERC7710ID, "")
	if err != nil || paid == "" {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"signer calls so far: 0", "agreement payments: 1", "signer calls: 2", "answered 200",
		"delegator 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
