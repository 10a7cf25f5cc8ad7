package mcpserver_test

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/x402"
)

// withOption is D with its one option's members changed.
func withOption(t *testing.T, d *jsonv.Object, members ...any) *jsonv.Object {
	t.Helper()
	doc := d.Clone()
	v, _ := doc.Get("accepts")
	list := jsonv.Clone(v).([]jsonv.Value)
	o := list[0].(*jsonv.Object)
	for i := 0; i+1 < len(members); i += 2 {
		o.Set(members[i].(string), members[i+1])
	}
	doc.Set("accepts", list)
	return doc
}

// TestTransactWithinLimits: the server's wallet signs only within its
// limits. The offer, 1,000,000 USDC payable for a year, is declined
// with no signature; a payable window above the ceiling too; a payment
// within them is signed once, and its result says what to send, what was
// granted and the limits.
func TestTransactWithinLimits(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.A)
	sg := newSigner(t, f)
	policy, err := pay.NewPolicy(pay.PolicyConfig{
		Now:    func() time.Time { return f.now },
		Limits: []pay.Limit{{Network: "eip155:84532", Asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", MaxAmount: big.NewInt(10000), Budget: big.NewInt(10000)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, f, s, mcpserver.Config{Signer: sg, Policy: policy})
	cs := connectHTTP(t, srv, nil)
	listTools(t, cs)
	huge := withOption(t, f.D, "amount", "1000000000000", "maxTimeoutSeconds", jsonv.Number(31536000))
	r := call(t, cs, "atr_transact", jsonv.Obj("pairing", pairing, "document", huge))
	wantDecline(t, r, string(gate.NoPayableOption), "")
	detail := strAt(t, r.value, "decline", "detail")
	if !strings.HasPrefix(detail, "policy/amount-above-maximum: 1000000000000 of eip155:84532 ") {
		t.Fatalf("detail %q", detail)
	}
	long := withOption(t, f.D, "maxTimeoutSeconds", jsonv.Number(31536000))
	r = call(t, cs, "atr_transact", jsonv.Obj("pairing", pairing, "document", long))
	if d := strAt(t, r.value, "decline", "detail"); !strings.HasPrefix(d, pay.DetailPayableTooLong+": ") {
		t.Fatalf("detail %q", d)
	}
	if sg.calls.Load() != 0 {
		t.Fatalf("%d signer calls on refusals", sg.calls.Load())
	}
	ok := wantOK(t, call(t, cs, "atr_transact", jsonv.Obj("pairing", pairing, "document", f.D)))
	if sg.calls.Load() != 1 {
		t.Fatalf("%d signer calls", sg.calls.Load())
	}
	signed, _ := ok.Get("signed")
	if strAt(t, ok, "header", "name") != "PAYMENT-SIGNATURE" || strAt(t, ok, "header", "value") != x402.EncodeHeader(signed) {
		t.Fatalf("header %s", jsonv.Marshal(ok))
	}
	if strAt(t, ok, "summary", "amount") != "10000" || strAt(t, ok, "summary", "units") != "0.01" || strAt(t, ok, "summary", "network") != "eip155:84532" {
		t.Fatalf("summary %s", jsonv.Marshal(ok))
	}
	limits, _ := ok.GetObject("limits")
	if l, _ := limits.Get("limits"); !strings.Contains(jsonv.String(l), `"spent":"10000"`) {
		t.Fatalf("limits %s", jsonv.Marshal(limits))
	}
	// The budget is spent: the same payment again is refused, unsigned.
	r = call(t, cs, "atr_transact", jsonv.Obj("pairing", pairing, "document", f.D))
	if d := strAt(t, r.value, "decline", "detail"); !strings.HasPrefix(d, pay.DetailBudgetExhausted+": ") || sg.calls.Load() != 1 {
		t.Fatalf("detail %q, %d signer calls", d, sg.calls.Load())
	}
	// atr_confirm states the summary and the limits before anything is
	// signed; atr_finish returns the header.
	c := wantOK(t, call(t, cs, "atr_confirm", f.confirmArgs()))
	if strAt(t, c, "summary", "payee") == "" || !c.Has("limits") {
		t.Fatalf("confirm %s", jsonv.Marshal(c))
	}
}

// TestServerWithAWalletNeedsLimits: safe by default.
func TestServerWithAWalletNeedsLimits(t *testing.T) {
	f := loadFixture(t)
	if _, err := mcpserver.New(mcpserver.Config{Signer: newSigner(t, f)}); err == nil || !strings.Contains(err.Error(), "Config.Policy") {
		t.Fatalf("a wallet without limits: %v", err)
	}
	if _, err := mcpserver.New(mcpserver.Config{AgreementSigner: newSigner(t, f)}); err == nil {
		t.Fatal("an agreement wallet without limits was accepted")
	}
}

// TestHeaderInput: atr_read and atr_confirm take the seller's header text
// as sent.
func TestHeaderInput(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.A)
	cs := connectHTTP(t, newServer(t, f, s, mcpserver.Config{}), nil)
	listTools(t, cs)
	header := x402.EncodeHeader(f.D)
	r := wantOK(t, call(t, cs, "atr_read", jsonv.Obj("pairing", pairing, "header", header)))
	if strAt(t, r, "atrHash") != hashOf(f.A) {
		t.Fatalf("read %s", jsonv.Marshal(r))
	}
	args := f.confirmArgs()
	args.Delete("document")
	args.Set("header", header)
	c := wantOK(t, call(t, cs, "atr_confirm", args))
	if strAt(t, c, "atrHash") != hashOf(f.A) || strAt(t, c, "summary", "amount") == "" {
		t.Fatalf("confirm %s", jsonv.Marshal(c))
	}
	wantDecline(t, callUnchecked(t, cs, "atr_read", jsonv.Obj("pairing", pairing, "header", "not base64!")), string(gate.OfferUnreadable), pay.DetailRequiredUnreadable)
	if r := callUnchecked(t, cs, "atr_read", jsonv.Obj("pairing", pairing, "header", header, "document", f.D)); !strings.Contains(r.text, "not both") {
		t.Fatalf("both: %s", r.text)
	}
}
