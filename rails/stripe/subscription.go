package stripe

import (
	"regexp"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Subscription is mpp/subscription/stripe. Where H goes: as the Stripe
// charge, the challenge's id and opaque and the request's
// methodDetails.metadata.legal_context, which the seller copies into the
// Subscription's metadata. The credential's payload is the reusable
// PaymentMethod the operator set up with Stripe ({paymentMethod,
// customer?}); the first invoice and every renewal are Stripe's own
// charges, none carrying H, so the agreement exchange runs first and Bound
// answers mpp/no-signed-place.
type Subscription struct{}

// SubscriptionID is the pairing id.
const SubscriptionID = mpp.PairingStripeSubscription

var (
	_ rails.Pairing    = Subscription{}
	_ rails.Summarizer = Subscription{}
	_ rails.Inspector  = Subscription{}
)

// The subscription's buyer inputs.
const (
	InputPaymentMethod = "paymentMethod"
	InputCustomer      = "customer"
)

var subscriptionInputs = []mpp.Input{
	{Name: InputPaymentMethod, Pattern: pmPattern, Optional: true},
	{Name: InputCustomer, Pattern: customerPattern, Optional: true},
}

var (
	positive       = regexp.MustCompile(`^[1-9][0-9]{0,15}$`)
	positiveAmount = regexp.MustCompile(`^[1-9][0-9]{0,77}$`)
)

func (Subscription) ID() string { return SubscriptionID }

func (Subscription) Pattern() rails.Pattern {
	return rails.Pattern{Name: "opaque-challenge", PublicProof: false}
}

func (Subscription) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

func (Subscription) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	return choose(read, account, inputs, now, SubscriptionID, subscriptionInputs)
}

// terms are what a subscription request states, checked as Stripe's
// subscription profile asks: amount and periodCount positive integers
// without leading zeros, currency three lowercase letters, periodUnit day,
// week or month, no recipient and no subscriptionExpires, and a non-empty
// list of payment method types. Anything else is mpp/request-malformed.
type terms struct {
	amount   string
	currency string
	unit     string
	count    int64
	types    []jsonv.Value
}

func subscriptionTerms(c *mpp.Checked) (terms, error) {
	r, d := c.Request, c.Details
	bad := rails.Refuse(mpp.CodeRequestMalformed)
	t := terms{amount: mpp.String(r, "amount"), currency: mpp.String(r, "currency"), unit: mpp.String(r, "periodUnit")}
	if !positive.MatchString(mpp.String(r, "periodCount")) || !positiveAmount.MatchString(t.amount) {
		return terms{}, bad
	}
	if !currencyPattern.MatchString(t.currency) || r.Has("recipient") || r.Has("subscriptionExpires") {
		return terms{}, bad
	}
	if t.unit != "day" && t.unit != "week" && t.unit != "month" {
		return terms{}, bad
	}
	t.count, _ = strconv.ParseInt(mpp.String(r, "periodCount"), 10, 64)
	types, ok := d.Get("paymentMethodTypes")
	list, isList := jsonv.AsArray(types)
	if !ok || !isList || len(list) == 0 || len(list) > 32 {
		return terms{}, bad
	}
	for _, v := range list {
		if s, ok := v.(string); !ok || s == "" {
			return terms{}, bad
		}
	}
	t.types = list
	return t, nil
}

// Build checks the chosen challenge and writes the credential {challenge,
// payload: {paymentMethod, customer?}} once the request reads as Stripe's
// subscription profile; without the PaymentMethod it refuses
// mpp/no-signed-place.
func (Subscription) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	var termsErr error
	u, err := build(choice, h, SubscriptionID, func(c *jsonv.Object) (*jsonv.Object, bool) {
		pm, ok := c.GetString(InputPaymentMethod)
		if !ok || !pmPattern.MatchString(pm) {
			return nil, false
		}
		challenge, _ := c.GetObject("challenge")
		chk, _ := mpp.CheckChallenge(challenge, true)
		if _, termsErr = subscriptionTerms(chk); termsErr != nil {
			return nil, true
		}
		p := jsonv.Obj(InputPaymentMethod, pm)
		if cus, ok := c.GetString(InputCustomer); ok {
			p.Set(InputCustomer, cus)
		}
		return p, true
	})
	if err != nil {
		return nil, err
	}
	if termsErr != nil {
		return nil, termsErr
	}
	return u, nil
}

func (Subscription) Request(u rails.Unsigned) (rails.Request, error) { return request(u) }

func (Subscription) Complete(u rails.Unsigned, _ jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	return complete(u)
}

func subscriptionToken(p *jsonv.Object) bool {
	pm, ok := p.GetString(InputPaymentMethod)
	if !ok || !pmPattern.MatchString(pm) {
		return false
	}
	if cus, has := p.Get(InputCustomer); has {
		s, ok := cus.(string)
		if !ok || !customerPattern.MatchString(s) {
			return false
		}
	}
	return true
}

// Bound refuses mpp/no-signed-place once the echoed challenge, its carrier
// and the PaymentMethod read.
func (Subscription) Bound(presented jsonv.Value) (string, error) {
	if _, _, err := echoed(presented, SubscriptionID, subscriptionToken); err != nil {
		return "", err
	}
	return "", rails.Refuse(CodeNoSignedPlace)
}

func (Subscription) Summarize(rails.Request) (rails.Grant, error) {
	return rails.Grant{}, errNothingSigned
}

// Inspect states what the credential lets the seller charge: the amount of
// the currency every period (Period for days and weeks; a month is no
// fixed duration and is said in Details), to the seller's Stripe profile;
// H as the echoed id names it; the PaymentMethod masked.
func (Subscription) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	e, chk, err := echoed(payment, SubscriptionID, subscriptionToken)
	if err != nil {
		return rails.Inspection{}, err
	}
	// What the request states, read as it is: a credential the gate did
	// not write may answer a request that names no period.
	r := chk.Request
	amount, ok := mpp.Uint256(mpp.String(r, "amount"))
	if !ok {
		return rails.Inspection{}, rails.Refuse(mpp.CodeRequestMalformed)
	}
	currency := mpp.String(r, "currency")
	g := rails.Grant{Network: Network, Asset: currency, Decimals: decimalsOf(currency), Amount: amount, Payee: chk.networkID}
	details := jsonv.Obj("paymentMethod", Mask(mpp.String(e.Payload, InputPaymentMethod)),
		"realm", mpp.String(e.Challenge, "realm"), "challengeExpires", unix(chk.Expires).Format(time.RFC3339))
	if t, err := subscriptionTerms(chk.Checked); err == nil {
		switch t.unit {
		case "day":
			g.Period = time.Duration(t.count) * 24 * time.Hour
		case "week":
			g.Period = time.Duration(t.count) * 7 * 24 * time.Hour
		}
		details.Set("period", strconv.FormatInt(t.count, 10)+" "+t.unit)
		details.Set("paymentMethodTypes", t.types)
	} else {
		details.Set("period", nil) // the request names no period Stripe's profile accepts
	}
	if cus, ok := e.Payload.GetString(InputCustomer); ok {
		details.Set(InputCustomer, Mask(cus))
	}
	return rails.Inspection{Pairing: SubscriptionID, Kind: "credential", H: e.H.String(), Grant: g,
		WhereH: whereH, Details: details}, nil
}

// Advertise is the seller's side, as the charge's.
func (Subscription) Advertise(doc []jsonv.Value, h atr.Hash, link string, offer *jsonv.Object, agreement string) ([]jsonv.Value, error) {
	return advertise(SubscriptionID, doc, h, link, offer, agreement)
}
