// acp/checkout/delegated: H goes in the ACP checkout session's id (the seller
// names the session by the ATR's hash), with metadata.legal_context {type:
// "sha256", value: H, legal_context_url} beside it (and
// legal_context_agreement_url, the agreement URL); the two must agree. The
// payment handler requires delegate_payment, so the buyer's allowance names
// the session by checkout_session_id, and H is read back from it. What the
// buyer finishes is that allowance, {allowance: {reason: "one_time",
// max_amount, currency, checkout_session_id: H, merchant_id, expires_at}},
// with its limits from the buyer's own inputs: the agent sends it with the
// payment method to the PSP's delegate_payment endpoint, and the vault token
// the PSP answers is the processor's, never the gate's (docs/checkout.md). No
// signer is asked (confirm-only); the agreement payment made first is the
// proof.
package checkout

import (
	"math/big"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// ACPDelegated is acp/checkout/delegated.
type ACPDelegated struct{}

var (
	_ rails.Pairing    = ACPDelegated{}
	_ rails.Summarizer = ACPDelegated{}
	_ rails.Inspector  = ACPDelegated{}
)

func (ACPDelegated) ID() string { return ACPDelegatedID }

// Pattern: H is the session's own id (native-field) in the delegated
// allowance, which no public record shows.
func (ACPDelegated) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field"} }

func (ACPDelegated) Read(doc jsonv.Value) (rails.Read, error) { return acpRead(doc) }

func acpRead(doc jsonv.Value) (rails.Read, error) {
	r, err := ACPReadSession(doc)
	if err != nil {
		return rails.Read{}, err
	}
	return rails.Read{H: r.H, Link: r.Link, Agreement: r.Agreement, Required: doc, Options: []jsonv.Value{doc}}, nil
}

// Choose takes the allowance's terms from the buyer's inputs {max_amount,
// currency, merchant_id, expires_at}.
func (ACPDelegated) Choose(read rails.Read, _ string, inputs *jsonv.Object, _ int64, _ string) (jsonv.Value, error) {
	if len(read.Options) != 1 || inputs == nil {
		return nil, acp("input-missing", "max_amount, currency, merchant_id and expires_at are the buyer's inputs")
	}
	c := jsonv.Obj("session", read.Options[0])
	for _, k := range []string{"max_amount", "currency", "merchant_id", "expires_at"} {
		v, ok := inputs.Get(k)
		if !ok {
			return nil, acp("input-missing", "no %s", k)
		}
		c.Set(k, v)
	}
	// Declined here, before the terms are fetched, when the session's
	// own total is over the buyer's max_amount (Build checks it again, and
	// the terms' total).
	so, _ := jsonv.AsObject(read.Options[0])
	mv, _ := inputs.Get("max_amount")
	cur, _ := inputs.GetString("currency")
	if max, ok := jsonv.AsSafeInt(mv); ok && isCurrency(cur) {
		if err := ACPWithinMaxAmount(so, "the session", max, cur); err != nil {
			return nil, err
		}
	}
	return c, nil
}

type acpUnsigned struct{ payment *jsonv.Object }

// Build writes the allowance, which is itself what the buyer finishes. The
// terms agreed to (the ATR) must not state a total over max_amount either:
// the buyer would agree to pay what its allowance cannot.
func (ACPDelegated) Build(choice jsonv.Value, atrBytes []byte, h atr.Hash) (rails.Unsigned, error) {
	p, err := ACPBuildAllowance(choice, h.String())
	if err != nil {
		return nil, err
	}
	if err := acpTermsWithin(atrBytes, p); err != nil {
		return nil, err
	}
	return &acpUnsigned{payment: p}, nil
}

// acpTermsWithin checks the ATR's totals, when it is a JSON object that
// states them, against the allowance built.
func acpTermsWithin(atrBytes []byte, p *jsonv.Object) error {
	if len(atrBytes) == 0 {
		return nil
	}
	v, err := jsonv.Parse(atrBytes)
	terms, ok := jsonv.AsObject(v)
	if err != nil || !ok || !terms.Has("totals") {
		return nil // terms that state no total: the session's was checked
	}
	a, _ := p.GetObject("allowance")
	mv, _ := a.Get("max_amount")
	max, _ := jsonv.AsSafeInt(mv)
	cur, _ := a.GetString("currency")
	return ACPWithinMaxAmount(terms, "the terms", max, cur)
}

// Request: the allowance goes to the delegate-payment provider, not to the
// buyer's signer.
func (ACPDelegated) Request(rails.Unsigned) (rails.Request, error) {
	return nil, rails.Refuse("acp/nothing-to-sign")
}

// Complete returns the allowance built, unsigned: {allowance}.
func (ACPDelegated) Complete(u rails.Unsigned, _ jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	b, ok := u.(*acpUnsigned)
	if !ok || b == nil {
		return rails.Completion{}, rails.Refuse("acp/nothing-to-sign")
	}
	return rails.Completion{Signed: b.payment.Clone()}, nil
}

func (ACPDelegated) Bound(presented jsonv.Value) (string, error) { return ACPBound(presented) }

// Summarize: the gate builds no signing request (errNothingSigned); Grant
// states what an allowance lets the PSP charge.
func (ACPDelegated) Summarize(rails.Request) (rails.Grant, error) {
	return rails.Grant{}, errNothingSigned
}

// Grant is what an allowance lets be charged: at most max_amount of its
// currency's minor units, to merchant_id, until expires_at.
func (ACPDelegated) Grant(payment jsonv.Value) (rails.Grant, error) {
	if _, err := ACPBound(payment); err != nil {
		return rails.Grant{}, err
	}
	o, _ := jsonv.AsObject(payment)
	a, _ := o.GetObject("allowance")
	mv, _ := a.Get("max_amount")
	amount, ok := jsonv.AsSafeInt(mv)
	cur, _ := a.GetString("currency")
	merchant, _ := a.GetString("merchant_id")
	expires, _ := a.GetString("expires_at")
	until, err := time.Parse(time.RFC3339Nano, expires)
	if !ok || amount < 0 || !isCurrency(cur) || merchant == "" || len(merchant) > MaxACPMerchantID || err != nil {
		return rails.Grant{}, acp("allowance-malformed", "max_amount, currency, merchant_id or expires_at out of shape")
	}
	return rails.Grant{Asset: upper(cur), Decimals: currencyDecimals(cur), Amount: big.NewInt(amount),
		Payee: merchant, PayableUntil: until.UTC()}, nil
}

// Inspect reads an allowance {allowance, …}: what it lets be charged (Grant)
// and H, its checkout_session_id. Only the allowance is read: a payment
// method or vault token beside it is never shown.
func (p ACPDelegated) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	g, err := p.Grant(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	return rails.Inspection{Pairing: ACPDelegatedID, Kind: "allowance", Grant: g, H: h,
		WhereH: "allowance.checkout_session_id: the session's id, which is H",
		Details: jsonv.Obj("reason", "one_time", "signedBy",
			"nobody: the PSP's vault token answers the allowance; the buyer's gate signed nothing", "proof", noProof)}, nil
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}
