package rails

import "github.com/termsgate/termsgate/jsonv"

// Redactor is a pairing whose payment carries a secret the operator gave,
// not a signature: a processor's token (Stripe's Shared Payment Token) or
// card data. Redact returns a copy of a payment fit to keep in a journal or
// a log, each such secret masked; it never changes payment. A journal that
// keeps the redacted copy can no longer present the payment again, and says
// so (docs/paying-client.md, "Payments that carry a secret").
type Redactor interface {
	Redact(payment jsonv.Value) jsonv.Value
}
