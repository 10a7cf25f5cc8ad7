package mpp

import (
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
)

// The Stripe method's pairings (docs/stripe.md). Their request carries H in
// methodDetails.metadata.legal_context, which the seller's settlement copies
// into the PaymentIntent (or the Subscription) it creates; rails/stripe
// builds them.
const (
	PairingStripeCharge       = "mpp/charge/stripe"
	PairingStripeSubscription = "mpp/subscription/stripe"
)

// Codes of the Stripe checks.
const (
	CodeMetadataMalformed = "mpp/metadata-malformed" // metadata outside Stripe's bounds, or no room for legal_context
	CodeCarrierOccupied   = "mpp/carrier-occupied"   // the issued carrier holds another value than H's
)

// Stripe's metadata bounds: at most 50 keys, key names of 1 to 40
// characters without square brackets, string values of at most 500
// characters (https://docs.stripe.com/api/metadata).
const (
	StripeMetadataKeys        = 50
	StripeMetadataKeyLength   = 40
	StripeMetadataValueLength = 500
)

// StripeLegalContextKey is the metadata key the seller writes H's LCP
// string under.
const StripeLegalContextKey = "legal_context"

func init() {
	methodChecks["charge/stripe"] = stripeCharge
	methodChecks["subscription/stripe"] = stripeSubscription
}

// StripeMetadataValid checks a metadata value against Stripe's bounds with
// extra more keys still to be added: absent (nil) is valid; anything else
// is mpp/metadata-malformed. Lengths count UTF-16 units, as Stripe's and
// the reference's do.
func StripeMetadataValid(m jsonv.Value, present bool, extra int) error {
	if !present {
		return nil
	}
	o, ok := jsonv.AsObject(m)
	if !ok || o.Len()+extra > StripeMetadataKeys {
		return refuse(CodeMetadataMalformed)
	}
	for _, mem := range o.Members() {
		n := atr.UTF16Len(mem.Key)
		if n == 0 || n > StripeMetadataKeyLength || strings.ContainsAny(mem.Key, "[]") {
			return refuse(CodeMetadataMalformed)
		}
		s, ok := mem.Value.(string)
		if !ok || atr.UTF16Len(s) > StripeMetadataValueLength {
			return refuse(CodeMetadataMalformed)
		}
	}
	return nil
}

// stripeCharge: amount a decimal below 2^256, currency a non-empty string,
// externalId a string where present (mpp/request-malformed), and the
// metadata within Stripe's bounds.
func stripeCharge(r, d *jsonv.Object) ([]string, error) {
	if cur, _ := r.GetString("currency"); !isDecimalAt(r, "amount") || cur == "" {
		return nil, refuse(CodeRequestMalformed)
	}
	if x, has := r.Get("externalId"); has {
		if _, ok := x.(string); !ok {
			return nil, refuse(CodeRequestMalformed)
		}
	}
	m, has := d.Get("metadata")
	if err := StripeMetadataValid(m, has, 0); err != nil {
		return nil, err
	}
	return []string{PairingStripeCharge}, nil
}

// stripeSubscription: the metadata within Stripe's bounds (the build reads
// the rest).
func stripeSubscription(_, d *jsonv.Object) ([]string, error) {
	m, has := d.Get("metadata")
	if err := StripeMetadataValid(m, has, 0); err != nil {
		return nil, err
	}
	return []string{PairingStripeSubscription}, nil
}
