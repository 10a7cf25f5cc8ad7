package stripe

import (
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

var (
	_ rails.Redactor = Charge{}
	_ rails.Redactor = Subscription{}
)

// Redact masks the Shared Payment Token of a charge credential.
func (Charge) Redact(payment jsonv.Value) jsonv.Value { return redact(payment, "spt") }

// Redact masks the PaymentMethod and Customer of a subscription credential.
func (Subscription) Redact(payment jsonv.Value) jsonv.Value {
	return redact(payment, InputPaymentMethod, InputCustomer)
}

// redact returns a copy of a credential {…, payload: {…}} with each named
// string member of its payload masked (Mask).
func redact(payment jsonv.Value, members ...string) jsonv.Value {
	out := jsonv.Clone(payment)
	o, _ := jsonv.AsObject(out)
	p, ok := o.GetObject("payload")
	if !ok {
		return out
	}
	for _, m := range members {
		if s, ok := p.GetString(m); ok {
			p.Set(m, Mask(s))
		}
	}
	return out
}
