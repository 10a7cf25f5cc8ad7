package stripe

import (
	"errors"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Charge is mpp/charge/stripe. Where H goes: the challenge's id and opaque,
// which the seller's server binds, and the request's
// methodDetails.metadata.legal_context, which the seller copies into the
// PaymentIntent's metadata. The credential's payload is the Shared Payment
// Token the operator obtained from Stripe ({spt}); nothing signed carries
// H, so the agreement exchange runs first and Bound answers
// mpp/no-signed-place.
type Charge struct{}

// ChargeID is the pairing id.
const ChargeID = mpp.PairingStripeCharge

var (
	_ rails.Pairing    = Charge{}
	_ rails.Summarizer = Charge{}
	_ rails.Inspector  = Charge{}
)

// InputSPT is the buyer input holding the Shared Payment Token.
const InputSPT = "spt"

var chargeInputs = []mpp.Input{{Name: InputSPT, Pattern: sptPattern, Optional: true}}

func (Charge) ID() string { return ChargeID }

func (Charge) Pattern() rails.Pattern {
	return rails.Pattern{Name: "opaque-challenge", PublicProof: false}
}

func (Charge) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// Choose takes the first challenge offering the pairing, with the token
// input when given.
func (Charge) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	return choose(read, account, inputs, now, ChargeID, chargeInputs)
}

// Build checks the chosen challenge and writes the credential {challenge,
// payload: {spt}}; without the token it refuses mpp/no-signed-place.
func (Charge) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	return build(choice, h, ChargeID, func(c *jsonv.Object) (*jsonv.Object, bool) {
		spt, ok := c.GetString(InputSPT)
		if !ok || !sptPattern.MatchString(spt) {
			return nil, false
		}
		return jsonv.Obj("spt", spt), true
	})
}

// Request: nothing is signed (mpp/no-signed-place); the gate completes the
// credential without a signer.
func (Charge) Request(u rails.Unsigned) (rails.Request, error) { return request(u) }

func (Charge) Complete(u rails.Unsigned, _ jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	return complete(u)
}

func chargeToken(p *jsonv.Object) bool {
	spt, ok := p.GetString("spt")
	if !ok || !sptPattern.MatchString(spt) {
		return false
	}
	if x, has := p.Get("externalId"); has {
		if _, ok := x.(string); !ok {
			return false
		}
	}
	return true
}

// Bound refuses mpp/no-signed-place once the echoed challenge, its carrier
// and the token read.
func (Charge) Bound(presented jsonv.Value) (string, error) {
	if _, _, err := echoed(presented, ChargeID, chargeToken); err != nil {
		return "", err
	}
	return "", rails.Refuse(CodeNoSignedPlace)
}

var errNothingSigned = errors.New("stripe: the gate signs nothing for this pairing; Stripe's token pays")

// Summarize: there is no signing request to summarize.
func (Charge) Summarize(rails.Request) (rails.Grant, error) { return rails.Grant{}, errNothingSigned }

// Inspect states what the credential charges: the request's amount of its
// currency to the seller's Stripe profile, until the challenge expires; H
// as the echoed id names it; the token masked.
func (Charge) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	e, chk, err := echoed(payment, ChargeID, chargeToken)
	if err != nil {
		return rails.Inspection{}, err
	}
	amount, ok := mpp.Uint256(mpp.String(chk.Request, "amount"))
	if !ok {
		return rails.Inspection{}, rails.Refuse(mpp.CodeRequestMalformed)
	}
	currency := mpp.String(chk.Request, "currency")
	details := jsonv.Obj("spt", Mask(mpp.String(e.Payload, "spt")), "realm", mpp.String(e.Challenge, "realm"))
	if x, ok := chk.Request.GetString("externalId"); ok {
		details.Set("externalId", x)
	}
	return rails.Inspection{Pairing: ChargeID, Kind: "credential", H: e.H.String(),
		Grant:   rails.Grant{Network: Network, Asset: currency, Decimals: decimalsOf(currency), Amount: amount, Payee: chk.networkID, PayableUntil: unix(chk.Expires)},
		WhereH:  whereH,
		Details: details}, nil
}

const whereH = "challenge.id and challenge.opaque (legalContext), bound by the seller's server; also challenge.request.methodDetails.metadata.legal_context, copied into Stripe's metadata; nothing signed carries it"

// Advertise is the seller's side: the challenge placed, legal_context set
// to H's LCP string (mpp/carrier-occupied when the seller's metadata holds
// another value; mpp/metadata-malformed when it has no room).
func (Charge) Advertise(doc []jsonv.Value, h atr.Hash, link string, offer *jsonv.Object, agreement string) ([]jsonv.Value, error) {
	return advertise(ChargeID, doc, h, link, offer, agreement)
}
