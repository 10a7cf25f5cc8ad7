package checkout

import (
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

func totals(n any) []jsonv.Value { return []jsonv.Value{jsonv.Obj("type", "total", "amount", n)} }

func acpSessionFor(t *testing.T, h atr.Hash, extra ...any) *jsonv.Object {
	t.Helper()
	s, err := ACPAdvertise(jsonv.Obj(append([]any{"currency", "usd"}, extra...)...), h.String(), "https://atr.seller.example/"+h.String(),
		jsonv.Obj("requires_delegate_payment", true))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func acpInputs(max any, currency string) *jsonv.Object {
	return jsonv.Obj("max_amount", max, "currency", currency, "merchant_id", "acct_1", "expires_at", "2026-09-21T14:23:20Z")
}

// ACP's max_amount bounds what the confirm may commit to: a session, or
// terms, whose total is over it are refused (acp/total-above-max-amount),
// one in another currency too (acp/currency-mismatch); at the total, or
// with no total stated, the allowance is built.
func TestACPMaxAmount(t *testing.T) {
	terms := []byte(`{"atrVersion":"1","totals":[{"type":"total","amount":19900}]}`)
	for _, c := range []struct {
		name    string
		session []any
		inputs  *jsonv.Object
		terms   []byte
		choose  string // the code Choose refuses with, "" for none
		build   string // the code Build refuses with, "" for none
	}{
		{"at the total", []any{"totals", totals(19900)}, acpInputs(19900, "usd"), terms, "", ""},
		{"over the session's total", []any{"totals", totals(19901)}, acpInputs(19900, "usd"), terms, "acp/total-above-max-amount", "acp/total-above-max-amount"},
		{"over the terms' total", nil, acpInputs(19899, "usd"), terms, "", "acp/total-above-max-amount"},
		{"no total anywhere", nil, acpInputs(1, "usd"), []byte(`{"atrVersion":"1"}`), "", ""},
		{"terms not JSON", nil, acpInputs(1, "usd"), []byte("plain text terms"), "", ""},
		{"another currency", []any{"currency", "eur"}, acpInputs(19900, "usd"), terms, "acp/currency-mismatch", "acp/currency-mismatch"},
		{"a total that is no integer", []any{"totals", totals(199.5)}, acpInputs(19900, "usd"), terms, "acp/total-malformed", "acp/total-malformed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			th := atr.Sum(c.terms)
			extra := c.session
			if len(extra) >= 2 && extra[0] == "currency" {
				extra = extra[2:]
			}
			s := acpSessionFor(t, th, extra...)
			if len(c.session) >= 2 && c.session[0] == "currency" {
				s.Set("currency", c.session[1])
			}
			read, err := ACPDelegated{}.Read(s)
			if err != nil {
				t.Fatal(err)
			}
			choice, err := ACPDelegated{}.Choose(read, "", c.inputs, 0, "")
			if code(err) != c.choose {
				t.Fatalf("choose: %v, want %q", err, c.choose)
			}
			if choice == nil {
				choice = jsonv.Obj("session", s, "max_amount", mustGet(c.inputs, "max_amount"), "currency", mustGet(c.inputs, "currency"),
					"merchant_id", "acct_1", "expires_at", "2026-09-21T14:23:20Z")
			}
			_, err = ACPDelegated{}.Build(choice, c.terms, th)
			if code(err) != c.build {
				t.Fatalf("build: %v, want %q", err, c.build)
			}
		})
	}
}

func mustGet(o *jsonv.Object, k string) jsonv.Value {
	v, _ := o.Get(k)
	return v
}

// Each checkout states what its confirm commits to: the total (or ACP's
// max_amount, or ACK's option) in the currency, on the protocol's network;
// a checkout that states no total is refused.
func TestSummarizeConfirm(t *testing.T) {
	h := atr.Sum([]byte(`{"atrVersion":"1"}`))
	sess := acpSessionFor(t, h, "totals", totals(19900))
	jwt := "eyJhbGciOiJFUzI1NiJ9." + b64(jsonv.Marshal(jsonv.Obj("currency", "USD", "totals", totals(500)))) + ".AA"
	for _, c := range []struct {
		name    string
		p       rails.ConfirmSummarizer
		choice  jsonv.Value
		network string
		amount  int64
		payee   string
		refused string
	}{
		{"acp delegated", ACPDelegated{}, jsonv.Obj("session", sess, "max_amount", 20000, "currency", "usd", "merchant_id", "acct_1",
			"expires_at", "2026-09-21T14:23:20Z"), ACPNetwork, 20000, "acct_1", ""},
		{"acp undelegated", ACPUndelegated{}, jsonv.Obj("session", sess), ACPNetwork, 19900, "", ""},
		{"acp undelegated without a total", ACPUndelegated{}, jsonv.Obj("session", acpSessionFor(t, h)), "", 0, "", "checkout/total-unstated"},
		{"ap2", AP2{}, jsonv.Obj("checkout_jwt", jwt), AP2Network, 500, "", ""},
		{"ap2 not a JWT", AP2{}, jsonv.Obj("checkout_jwt", "x"), "", 0, "", "ap2/jws-malformed"},
		{"ucp checkout", UCPCheckoutUnsigned, jsonv.Obj("checkout", jsonv.Obj("currency", "USD", "totals", totals(7))), UCPNetwork, 7, "", ""},
		{"ucp booking without one", UCPBookingUnsigned, jsonv.Obj("checkout", jsonv.Obj()), "", 0, "", "ucp/checkout-malformed"},
		{"ack", ACK{}, jsonv.Obj("option", jsonv.Obj("id", "o", "currency", "USD", "network", "card", "amount", "19900", "recipient", "m_1")), "ack:card", 19900, "m_1", ""},
		{"ack on a chain", ACK{}, jsonv.Obj("option", jsonv.Obj("id", "o", "currency", "USDC", "network", "eip155:8453", "amount", "5", "recipient", "0x1")), "eip155:8453", 5, "0x1", ""},
		{"ack without an amount", ACK{}, jsonv.Obj("option", jsonv.Obj("currency", "USD", "network", "card", "recipient", "m_1")), "", 0, "", "ack/option-malformed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := c.p.SummarizeConfirm(rails.Chosen{Choice: c.choice}, h)
			if c.refused != "" {
				if code(err) != c.refused {
					t.Fatalf("%v, want %s", err, c.refused)
				}
				return
			}
			if err != nil || g.Network != c.network || g.Amount == nil || g.Amount.Int64() != c.amount || g.Payee != c.payee {
				t.Fatalf("%+v, %v", g, err)
			}
		})
	}
}
