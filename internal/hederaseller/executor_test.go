package hederaseller

import (
	"context"
	"crypto/ed25519"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/agreementseller"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// The transfer-executor demo: approval asked with nothing signed, one
// agreement signature and its receipt, one authorization the executor
// accepts, the same one refused a second time.
func TestDemoExecutor(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "hedera-executor", "")
	if err != nil || !strings.HasPrefix(paid, "0.00001 HBAR (1000 atomic units) on "+Testnet+" through a transfer executor") {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"signer calls so far: 0", "agreement signatures: 1", "receipt: agreed to 0x8b1e",
		"an Ed25519 authorization of 72 bytes (signer calls: 1)", "answered 200", "402: the authorization was used before"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// startExecutor serves NewExecutor on loopback and reads its 402.
func startExecutor(t *testing.T, keys map[string]ed25519.PublicKey, now func() time.Time) (*agreementseller.Seller, *http.Client, *jsonv.Object) {
	t.Helper()
	seller := NewExecutor(demo.ATR, []byte(`{"ok":true}`), keys, now)
	srv, err := loopback.Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	resp, _, err := demo.Get(context.Background(), srv.Client(), seller.ResourceURL(), "", "")
	if err != nil || resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("402: %v", err)
	}
	doc, err := x402.DecodeHeader(resp.Header.Get("PAYMENT-REQUIRED"))
	if err != nil {
		t.Fatal(err)
	}
	return seller, srv.Client(), doc
}

// paid is the payment the gate completes after the agreement exchange.
func paid(t *testing.T, client *http.Client, doc *jsonv.Object, key rails.Signer) jsonv.Value {
	t.Helper()
	evmKey, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	opts := &gate.TransactOptions{AgreementSigner: evmKey}
	first, err := g.Transact(context.Background(), doc, hedera.ExecutorID, key, opts)
	if err != nil || first.Approve == nil {
		t.Fatalf("no approval: %v", err)
	}
	opts.Approved = first.Approve
	done, err := g.Transact(context.Background(), doc, hedera.ExecutorID, key, opts)
	if err != nil {
		t.Fatal(err)
	}
	return done.Signed
}

// unagreed is the payment built and signed through the pairing with no
// agreement exchange.
func unagreed(t *testing.T, doc *jsonv.Object, key rails.Signer) jsonv.Value {
	t.Helper()
	p := hedera.Executor{}
	read, err := p.Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Choose(read, key.Account(), nil, time.Now().Unix(), "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(c, demo.ATR, atr.Sum(demo.ATR))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	answer, err := key.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	done, err := p.Complete(u, answer, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	return done.Signed
}

func present(t *testing.T, client *http.Client, seller *agreementseller.Seller, payment jsonv.Value) int {
	t.Helper()
	resp, _, err := demo.Get(context.Background(), client, seller.ResourceURL(), "PAYMENT-SIGNATURE", x402.EncodeHeader(payment))
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode
}

// The executor seller refuses a payment with no agreement paid, one whose
// payer has another key than the one listed, one presented after its
// authorization expired, and one naming another executor; the control
// (listed key, agreement, in time) is served.
func TestExecutorSellerRefuses(t *testing.T) {
	key, _ := signer.NewHedera(Testnet+":"+Payer, signer.HederaDevSeed)
	other, _ := signer.NewHedera(Testnet+":"+Payer, FeePayerSeed)
	listed := map[string]ed25519.PublicKey{Payer: key.PublicKey()}

	seller, client, doc := startExecutor(t, listed, time.Now)
	if code := present(t, client, seller, unagreed(t, doc, key)); code != http.StatusPaymentRequired ||
		!strings.Contains(seller.LastRejection().Error(), "no agreement") {
		t.Fatalf("no agreement: %d, %v", code, seller.LastRejection())
	}
	if code := present(t, client, seller, paid(t, client, doc, other)); code != http.StatusPaymentRequired ||
		!strings.Contains(seller.LastRejection().Error(), "not the payer's") {
		t.Fatalf("other key: %d, %v", code, seller.LastRejection())
	}
	payment := paid(t, client, doc, key)
	moved := jsonv.Clone(payment).(*jsonv.Object)
	payload, _ := moved.GetObject("payload")
	payload.Set("executor", "0.0.7001")
	if code := present(t, client, seller, moved); code != http.StatusPaymentRequired {
		t.Fatalf("other executor: %d", code)
	}
	if code := present(t, client, seller, payment); code != http.StatusOK || seller.Paid.Load() != 1 {
		t.Fatalf("control: %d, %v", code, seller.LastRejection())
	}

	late, client, doc := startExecutor(t, listed, func() time.Time { return time.Now().Add(2 * time.Minute) })
	if code := present(t, client, late, paid(t, client, doc, key)); code != http.StatusPaymentRequired ||
		!strings.Contains(late.LastRejection().Error(), "expired") {
		t.Fatalf("expired: %d, %v", code, late.LastRejection())
	}
}

// The session demo: the opening sent (approve and open in one signer call)
// and its zero voucher signed, the seller reading the receipt itself; two
// vouchers and the close; the lying link declined unsigned.
func TestDemoSession(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "session-hedera", "")
	if err != nil || paid != "50 atomic units of "+SessionToken+" on hedera:testnet in two vouchers, the channel opened and closed" {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"sent and signed (signer calls: 2)", "a voucher for a cumulative 25", "a voucher for a cumulative 50",
		"closed at the recorded charge 50", "the escrow holds the deposit of 1000", "declined hash-mismatch; signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
