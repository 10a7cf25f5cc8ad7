// ap2/checkout-mandate: H goes in the merchant-signed checkout JWT's payload
// as its legalContext member {type: "sha256", value: H, legalContextUrl}
// (with legalContextAgreementUrl, the agreement URL, beside it); the user's
// closed AP2 Checkout Mandate (an SD-JWT, vct mandate.checkout.1) names that
// JWT by checkout_hash, its base64url SHA-256, and H is read back from the JWT
// the mandate names. The buyer's gate signs nothing (confirm-only): the
// mandate is signed by the user's trusted surface, and the proof is the
// agreement payment made first.
package checkout

import (
	"encoding/base64"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// AP2ID is the pairing id.
const AP2ID = "ap2/checkout-mandate"

// AP2 is ap2/checkout-mandate: the seller's document is the checkout JWT (a
// JSON string), the payment {checkout_mandate, checkout_jwt}.
type AP2 struct{}

var (
	_ rails.Pairing    = AP2{}
	_ rails.Summarizer = AP2{}
	_ rails.Inspector  = AP2{}
)

func (AP2) ID() string { return AP2ID }

// Pattern: the checkout's hash rides in a challenge the buyer's signer does
// not read, so the payment is no public proof.
func (AP2) Pattern() rails.Pattern {
	return rails.Pattern{Name: "opaque-challenge", PublicProof: false}
}

// Read reads the checkout JWT the seller sent: H, the link and the
// agreement URL from its legalContext.
func (AP2) Read(doc jsonv.Value) (rails.Read, error) {
	j, ok := jsonv.AsString(doc)
	if !ok {
		return rails.Read{}, ap2("jws-malformed", "the document is not a checkout JWT string")
	}
	lc, err := ReadCheckoutJWT(j)
	if err != nil {
		return rails.Read{}, err
	}
	return rails.Read{H: lc.H, Link: lc.Link, Agreement: lc.Agreement, Required: doc, Options: []jsonv.Value{j}}, nil
}

// Choose keeps the checkout JWT: the mandate the user signs names it.
func (AP2) Choose(read rails.Read, _ string, _ *jsonv.Object, _ int64, _ string) (jsonv.Value, error) {
	if len(read.Options) != 1 {
		return nil, ap2("no-payable-option", "no checkout JWT")
	}
	return jsonv.Obj("checkout_jwt", read.Options[0]), nil
}

// Build: nothing for the buyer's signer to sign.
func (AP2) Build(jsonv.Value, []byte, atr.Hash) (rails.Unsigned, error) {
	return nil, rails.Refuse("ap2/nothing-to-sign")
}

// Request: none (Build already said so).
func (AP2) Request(rails.Unsigned) (rails.Request, error) {
	return nil, rails.Refuse("ap2/nothing-to-sign")
}

// Complete: none.
func (AP2) Complete(rails.Unsigned, jsonv.Value, rails.Chosen) (rails.Completion, error) {
	return rails.Completion{}, rails.Refuse("ap2/nothing-to-sign")
}

// Bound reads H from a presented {checkout_mandate, checkout_jwt}.
func (AP2) Bound(presented jsonv.Value) (string, error) {
	m, j, err := mandatePresented(presented)
	if err != nil {
		return "", err
	}
	return Bound(m, j)
}

// mandatePresented is the two strings of {checkout_mandate, checkout_jwt}.
func mandatePresented(presented jsonv.Value) (mandate, checkoutJWT string, err error) {
	o, _ := jsonv.AsObject(presented)
	m, okM := o.GetString("checkout_mandate")
	j, okJ := o.GetString("checkout_jwt")
	if !okM || !okJ {
		return "", "", ap2("mandate-malformed", "the payment is not {checkout_mandate, checkout_jwt}")
	}
	return m, j, nil
}

// Summarize: the gate builds no signing request (errNothingSigned).
func (AP2) Summarize(rails.Request) (rails.Grant, error) { return rails.Grant{}, errNothingSigned }

// Inspect reads a presented mandate: H through Bound, what the user approved
// (the checkout's currency and total) from the checkout JWT the mandate
// names, and the mandate's own validity (iat, exp).
func (p AP2) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	m, j, _ := mandatePresented(payment)
	return inspectMandate(AP2ID, m, j, h, "the checkout JWT's legalContext.value, the JWT named by the mandate's checkout_hash")
}

// inspectMandate is the inspection of a closed Checkout Mandate over a
// checkout JWT whose H was read back.
func inspectMandate(id, m, j, h, whereH string) (rails.Inspection, error) {
	mo, err := CheckoutMandate(m)
	if err != nil {
		return rails.Inspection{}, err
	}
	payload, ok := jwtPayload(j)
	if !ok {
		return rails.Inspection{}, ap2("jws-malformed", "the checkout JWT's payload")
	}
	g, err := checkoutGrant(payload)
	if err != nil {
		return rails.Inspection{}, err
	}
	g.PayableFrom, g.PayableUntil = unixClaim(mo, "iat"), unixClaim(mo, "exp")
	ch, _ := mo.GetString("checkout_hash")
	cid, _ := payload.GetString("id")
	return rails.Inspection{Pairing: id, Kind: "checkout-mandate", Grant: g, H: h, WhereH: whereH,
		Details: jsonv.Obj("checkout", cid, "checkoutHash", ch, "signedBy",
			"the user's trusted surface (the mandate) over the merchant's checkout JWT; the buyer's gate signed nothing",
			"proof", noProof)}, nil
}

// jwtPayload is a compact JWS's payload object; its signature is not read.
func jwtPayload(j string) (*jsonv.Object, bool) {
	parts := strings.Split(j, ".")
	if len(parts) != 3 {
		return nil, false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(parts[1])
	if err != nil {
		return nil, false
	}
	v, err := jsonv.Parse(b)
	if err != nil {
		return nil, false
	}
	return jsonv.AsObject(v)
}
