package card

import (
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

var _ rails.Redactor = MPPCharge{}

// Redact keeps of a card credential's payload only what Inspect shows
// (masked: the members known to carry no card data, the last four digits).
func (MPPCharge) Redact(payment jsonv.Value) jsonv.Value {
	out := jsonv.Clone(payment)
	o, _ := jsonv.AsObject(out)
	if p, ok := o.GetObject("payload"); ok {
		o.Set("payload", masked(p))
	}
	return out
}
