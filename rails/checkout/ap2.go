// Package checkout holds the agentic checkout pairings (AP2, UCP, ACP, ACK),
// one file each (ap2_checkout_mandate.go, ucp_*.go, acp_*.go,
// ack_payment_request.go), whose first comment says where H goes. None is a
// public proof: the gate runs the agreement exchange first, and the buyer's
// signer signs nothing (docs/checkout.md). This file reads AP2 checkout JWTs
// and closed Checkout Mandates for the AP2 and UCP pairings.
package checkout

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/sdjwt"
)

// Caps the AP2 vectors fix.
const (
	MaxCheckoutID = 256
	MaxLink       = 2048
	CheckoutVct   = "mandate.checkout.1"
)

// Refusal is an ap2/… refusal with its detail.
type Refusal struct{ Code, Detail string }

func (r *Refusal) Error() string { return r.Code + ": " + r.Detail }

// Unwrap lets the gate read the code as any pairing's refusal.
func (r *Refusal) Unwrap() error { return rails.Refuse(r.Code) }

func ap2(code, format string, args ...any) error {
	return &Refusal{Code: "ap2/" + code, Detail: fmt.Sprintf(format, args...)}
}

// LegalContext is what a checkout JWT's payload says of the terms.
type LegalContext struct {
	H         string // 0x + 64 lower-case hex digits
	Link      string
	Checkout  string // the payload's id
	Agreement string // legalContextAgreementUrl, "" when the checkout names none
}

// ReadCheckoutJWT reads a checkout JWT's payload (its signature is the
// merchant's, checked by the credential provider, not here).
func ReadCheckoutJWT(doc string) (LegalContext, error) {
	parts := strings.Split(doc, ".")
	if len(parts) != 3 {
		return LegalContext{}, ap2("jws-malformed", "checkout JWT has %d segments", len(parts))
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(parts[1])
	if err != nil || !utf8.Valid(b) {
		return LegalContext{}, ap2("jws-malformed", "checkout JWT payload is not base64url UTF-8")
	}
	v, err := jsonv.Parse(b)
	if err != nil {
		return LegalContext{}, ap2("jws-malformed", "checkout JWT payload: %v", err)
	}
	p, ok := jsonv.AsObject(v)
	if !ok {
		return LegalContext{}, ap2("jws-malformed", "checkout JWT payload is not an object")
	}
	return readPayload(p)
}

func checkoutID(p *jsonv.Object) (string, error) {
	id, ok := p.GetString("id")
	if !ok || id == "" {
		return "", ap2("checkout-id-missing", "checkout has no id")
	}
	if utf8.RuneCountInString(id) > MaxCheckoutID {
		return "", ap2("too-large", "checkout id over %d characters", MaxCheckoutID)
	}
	return id, nil
}

func readPayload(p *jsonv.Object) (LegalContext, error) {
	id, err := checkoutID(p)
	if err != nil {
		return LegalContext{}, err
	}
	lv, ok := p.Get("legalContext")
	if !ok {
		return LegalContext{}, ap2("no-legal-context", "checkout %s carries no legalContext", id)
	}
	lc, ok := jsonv.AsObject(lv)
	if !ok {
		return LegalContext{}, ap2("legal-context-malformed", "legalContext is not an object")
	}
	typ, _ := lc.GetString("type")
	value, _ := lc.GetString("value")
	link, _ := lc.GetString("legalContextUrl")
	h, ok := hash(value)
	if typ != "sha256" || !ok || link == "" || len(link) > MaxLink {
		return LegalContext{}, ap2("legal-context-malformed", "legalContext is not {type: sha256, value: 0x+64 hex, legalContextUrl}")
	}
	if !strings.HasPrefix(link, "https://") {
		return LegalContext{}, ap2("link-not-https", "legalContextUrl is not https")
	}
	agreement, fault := agreementIn(lc)
	if fault != "" {
		return LegalContext{}, ap2(fault, "legalContextAgreementUrl is not an https link")
	}
	return LegalContext{H: h, Link: link, Checkout: id, Agreement: agreement}, nil
}

// hash reads 0x + 64 hex digits in either case, written back in lower case.
func hash(s string) (string, bool) {
	if len(s) != 66 || s[:2] != "0x" {
		return "", false
	}
	for _, c := range s[2:] {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return "", false
		}
	}
	return strings.ToLower(s), true
}

// Advertise is the seller's side: the checkout payload with H's legalContext
// added, for the offer that names this checkout.
func Advertise(payload, offer *jsonv.Object, h, link string) (*jsonv.Object, error) {
	return AdvertiseAgreement(payload, offer, h, link, "")
}

// AdvertiseAgreement is Advertise with the agreement URL the buyer pays
// first, legalContextAgreementUrl after the link ("" for none).
func AdvertiseAgreement(payload, offer *jsonv.Object, h, link, agreement string) (*jsonv.Object, error) {
	if c, ok := offer.GetString("checkout"); !ok || c == "" {
		return nil, ap2("option-malformed", "offer has no checkout")
	}
	id, err := checkoutID(payload)
	if err != nil {
		return nil, err
	}
	if c, _ := offer.GetString("checkout"); c != id {
		return nil, ap2("option-not-this-checkout", "offer names checkout %q, the payload is %q", c, id)
	}
	hh, ok := hash(h)
	if !ok || link == "" || len(link) > MaxLink {
		return nil, ap2("legal-context-malformed", "H or link out of shape")
	}
	if !strings.HasPrefix(link, "https://") {
		return nil, ap2("link-not-https", "link is not https")
	}
	if f := agreementArg(agreement); f != "" {
		return nil, ap2(f, "the agreement URL is not an https link")
	}
	if payload.Has("legalContext") {
		have, err := readPayload(payload)
		if err != nil || have.H != hh || have.Link != link || have.Agreement != agreement {
			return nil, ap2("legal-context-conflict", "the payload already carries another legalContext")
		}
		return payload, nil
	}
	lc := jsonv.Obj("type", "sha256", "value", hh, "legalContextUrl", link)
	if agreement != "" {
		lc.Set(agreementCamel, agreement)
	}
	out := payload.Clone()
	out.Set("legalContext", lc)
	return out, nil
}

// mandateRefusal maps the SD-JWT reader's codes to AP2's.
func mandateRefusal(err error) error {
	switch sdjwt.Code(err) {
	case sdjwt.AlgUnsupported:
		return ap2("sd-alg-unsupported", "%v", err)
	case sdjwt.Unreferenced:
		return ap2("disclosure-unreferenced", "%v", err)
	case sdjwt.TooLarge:
		return ap2("too-large", "%v", err)
	}
	return ap2("mandate-malformed", "%v", err)
}

// CheckoutMandate is the one object of the mandate with vct mandate.checkout.1.
func CheckoutMandate(m string) (*jsonv.Object, error) {
	p, err := sdjwt.Parse(m)
	if err != nil {
		return nil, mandateRefusal(err)
	}
	var found []*jsonv.Object
	collect(p.Claims, &found, 0)
	switch {
	case len(found) == 0:
		return nil, ap2("no-checkout-mandate", "no object with vct %s", CheckoutVct)
	case len(found) > 1:
		return nil, ap2("mandate-ambiguous", "%d objects with vct %s", len(found), CheckoutVct)
	}
	ch, ok := found[0].GetString("checkout_hash")
	if !ok || len(ch) != 43 {
		return nil, ap2("mandate-malformed", "checkout_hash is not 43 base64url characters")
	}
	if _, err := base64.RawURLEncoding.Strict().DecodeString(ch); err != nil {
		return nil, ap2("mandate-malformed", "checkout_hash is not base64url")
	}
	return found[0], nil
}

func collect(v jsonv.Value, found *[]*jsonv.Object, depth int) {
	if depth > 1024 { // the reader's caps keep a resolved payload well under this
		return
	}
	switch x := v.(type) {
	case *jsonv.Object:
		if vct, _ := x.GetString("vct"); vct == CheckoutVct {
			*found = append(*found, x)
		}
		for _, m := range x.Members() {
			collect(m.Value, found, depth+1)
		}
	case []jsonv.Value:
		for _, e := range x {
			collect(e, found, depth+1)
		}
	}
}

// CheckoutJWTOf is the checkout JWT the mandate discloses.
func CheckoutJWTOf(m string) (string, error) {
	o, err := CheckoutMandate(m)
	if err != nil {
		return "", err
	}
	j, ok := o.GetString("checkout_jwt")
	if !ok {
		return "", ap2("mandate-malformed", "the mandate does not disclose checkout_jwt")
	}
	return j, nil
}

// Bound reads H from a mandate and the checkout JWT presented with it: the
// mandate's checkout_hash must be that JWT's digest (and the digest of the
// checkout_jwt it discloses, if it does), and the JWT must carry H.
func Bound(mandate, checkoutJWT string) (string, error) {
	o, err := CheckoutMandate(mandate)
	if err != nil {
		return "", err
	}
	ch, _ := o.GetString("checkout_hash")
	if j, ok := o.GetString("checkout_jwt"); ok && sdjwt.Digest(j) != ch {
		return "", ap2("checkout-hash-mismatch", "the disclosed checkout_jwt is not the one checkout_hash names")
	}
	if sdjwt.Digest(checkoutJWT) != ch {
		return "", ap2("checkout-not-latest", "checkout_hash does not name the checkout JWT presented")
	}
	lc, err := ReadCheckoutJWT(checkoutJWT)
	if err != nil {
		return "", err
	}
	return lc.H, nil
}

// CheckBound is Bound against the H the buyer agreed to.
func CheckBound(mandate, checkoutJWT, h string) error {
	got, err := Bound(mandate, checkoutJWT)
	if err != nil {
		return err
	}
	if want, ok := hash(h); !ok || got != want {
		return ap2("hash-not-in-checkout", "the checkout carries %s, not %s", got, h)
	}
	return nil
}

// CheckoutID is a checkout JWT's id, whether or not it carries a legalContext.
func CheckoutID(doc string) (string, error) {
	_, err := ReadCheckoutJWT(doc)
	var r *Refusal
	if err != nil && (!errors.As(err, &r) || r.Code != "ap2/no-legal-context") {
		return "", err
	}
	parts := strings.Split(doc, ".")
	b, _ := base64.RawURLEncoding.Strict().DecodeString(parts[1])
	v, _ := jsonv.Parse(b)
	p, _ := jsonv.AsObject(v)
	return checkoutID(p)
}
