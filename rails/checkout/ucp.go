// ucp/checkout/ap2-mandate, ucp/checkout/unsigned, ucp/booking/ap2-mandate and
// ucp/booking/unsigned: H goes in the UCP checkout (or booking) as one links[]
// entry {type: "legal_context", url: the ATR's link, title: "lcp:sha256:" + H}.
// Unsigned: that is all (the buyer signs nothing). AP2 mandate: the merchant
// signs the checkout (ap2.merchant_authorization) and the user's closed AP2
// Checkout Mandate names the checkout JWT by checkout_hash, as in
// ap2/checkout-mandate, with H read from the JWT's links entry. None is a
// public proof. Not registered yet.
package checkout

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/sdjwt"
)

// UCP caps the vectors fix.
const MaxUCPLinks = 63

func ucp(code, format string, args ...any) error {
	return &Refusal{Code: "ucp/" + code, Detail: fmt.Sprintf(format, args...)}
}

// UCP is one of the four pairings: Booking for a booking (offer {booking})
// rather than a checkout (offer {checkout}); Mandate for the AP2 mandate form.
type UCP struct{ Booking, Mandate bool }

// UCP pairings.
var (
	UCPCheckoutMandate  = UCP{Mandate: true}
	UCPCheckoutUnsigned = UCP{}
	UCPBookingMandate   = UCP{Booking: true, Mandate: true}
	UCPBookingUnsigned  = UCP{Booking: true}
)

func (u UCP) ID() string {
	kind, form := "checkout", "unsigned"
	if u.Booking {
		kind = "booking"
	}
	if u.Mandate {
		form = "ap2-mandate"
	}
	return "ucp/" + kind + "/" + form
}

func (u UCP) Pattern() rails.Pattern {
	if u.Mandate {
		return rails.Pattern{Name: "opaque-challenge"}
	}
	return rails.Pattern{Name: "http-advisory"}
}

func (u UCP) optionKey() string {
	if u.Booking {
		return "booking"
	}
	return "checkout"
}

// ucpLinks is the checkout's links list (nil when absent).
func ucpLinks(o *jsonv.Object) ([]jsonv.Value, bool, error) {
	lv, ok := o.Get("links")
	if !ok {
		return nil, false, nil
	}
	links, ok := jsonv.AsArray(lv)
	if !ok {
		return nil, true, ucp("checkout-malformed", "links is not a list")
	}
	return links, true, nil
}

func isLegalContextLink(v jsonv.Value) bool {
	o, ok := jsonv.AsObject(v)
	t, _ := o.GetString("type")
	return ok && t == "legal_context"
}

// UCPRead reads the legal_context link of a checkout or booking.
func UCPRead(doc jsonv.Value) (ACPRead, error) {
	o, ok := jsonv.AsObject(doc)
	if !ok {
		return ACPRead{}, ucp("checkout-malformed", "the checkout is not an object")
	}
	links, _, err := ucpLinks(o)
	if err != nil {
		return ACPRead{}, err
	}
	if len(links) > MaxUCPLinks+1 {
		return ACPRead{}, ucp("too-large", "%d links", len(links))
	}
	var entry *jsonv.Object
	for _, l := range links {
		if isLegalContextLink(l) {
			if entry != nil {
				return ACPRead{}, ucp("legal-context-conflict", "two legal_context links")
			}
			entry, _ = jsonv.AsObject(l)
		}
	}
	if entry == nil {
		return ACPRead{}, ucp("no-legal-context", "no legal_context link")
	}
	url, _ := entry.GetString("url")
	title, _ := entry.GetString("title")
	h, okH := hash(strings.TrimPrefix(title, ACKIDPrefix))
	if !strings.HasPrefix(title, ACKIDPrefix) || !okH || url == "" || len(url) > MaxLink {
		return ACPRead{}, ucp("legal-context-malformed", "the legal_context link is not {url, title: lcp:sha256:<H>}")
	}
	if !strings.HasPrefix(url, "https://") {
		return ACPRead{}, ucp("link-not-https", "the legal_context url is not https")
	}
	return ACPRead{H: h, Link: url}, nil
}

// ap2Active: the checkout carries ap2.merchant_authorization, a detached
// compact JWS (header..signature) whose header is a JSON object.
func ap2Active(o *jsonv.Object) bool {
	a, _ := o.GetObject("ap2")
	ma, _ := a.GetString("merchant_authorization")
	parts := strings.Split(ma, ".")
	if a == nil || len(parts) != 3 || parts[1] != "" || parts[0] == "" || parts[2] == "" {
		return false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(parts[0])
	if err != nil {
		return false
	}
	v, err := jsonv.Parse(b)
	h, ok := jsonv.AsObject(v)
	alg, _ := h.GetString("alg")
	return err == nil && ok && alg != ""
}

// ReadDoc is the pairing's read: the AP2 forms need the merchant's
// authorization on the checkout.
func (u UCP) ReadDoc(doc jsonv.Value) (ACPRead, error) {
	r, err := UCPRead(doc)
	if err != nil {
		return ACPRead{}, err
	}
	if u.Mandate {
		o, _ := jsonv.AsObject(doc)
		if !ap2Active(o) {
			return ACPRead{}, ucp("ap2-not-active", "the checkout carries no merchant_authorization")
		}
	}
	return r, nil
}

// Advertise adds H's legal_context link to a checkout (or booking) for the
// offer naming it; a checkout already signed by the merchant cannot change.
func (u UCP) Advertise(doc jsonv.Value, h, link string, offer jsonv.Value) (*jsonv.Object, error) {
	o, ok := jsonv.AsObject(doc)
	if !ok {
		return nil, ucp("checkout-malformed", "the checkout is not an object")
	}
	of, _ := jsonv.AsObject(offer)
	want, okW := of.GetString(u.optionKey())
	if of == nil || of.Len() != 1 || !okW || want == "" {
		return nil, ucp("option-malformed", "the offer is not {%s: id}", u.optionKey())
	}
	id, ok := o.GetString("id")
	if !ok || id == "" {
		return nil, ucp("checkout-malformed", "the checkout has no id")
	}
	links, _, err := ucpLinks(o)
	if err != nil {
		return nil, err
	}
	if want != id {
		return nil, ucp("option-not-this-checkout", "the offer names %q, the checkout is %q", want, id)
	}
	hh, ok := hash(h)
	if !ok || link == "" || len(link) > MaxLink {
		return nil, ucp("legal-context-malformed", "H or link out of shape")
	}
	if !strings.HasPrefix(link, "https://") {
		return nil, ucp("link-not-https", "link is not https")
	}
	if o.Has("ap2") {
		if a, _ := o.GetObject("ap2"); a != nil && a.Has("merchant_authorization") {
			return nil, ucp("already-signed", "the merchant already signed this checkout")
		}
	}
	for _, l := range links {
		if isLegalContextLink(l) {
			r, err := UCPRead(o)
			if err != nil || r.H != hh || r.Link != link {
				return nil, ucp("legal-context-conflict", "the checkout already carries another legal_context")
			}
			return o, nil
		}
	}
	if len(links) >= MaxUCPLinks+1 {
		return nil, ucp("too-large", "the checkout already holds %d links", len(links))
	}
	out := o.Clone()
	next := append(append([]jsonv.Value{}, links...), jsonv.Obj("type", "legal_context", "url", link, "title", ACKIDPrefix+hh))
	out.Set("links", next)
	return out, nil
}

// BuildCheck is the AP2 forms' build check of the checkout against the hash
// the gate computed.
func (u UCP) BuildCheck(checkout jsonv.Value, h string) error {
	o, ok := jsonv.AsObject(checkout)
	if !ok || !ap2Active(o) {
		return ucp("ap2-not-active", "the checkout carries no merchant_authorization")
	}
	r, err := UCPRead(checkout)
	if err != nil {
		return err
	}
	if hh, ok := hash(h); !ok || hh != r.H {
		return ucp("hash-not-in-checkout", "the checkout carries %s", r.H)
	}
	return nil
}

// MandateBound reads H from {checkout_mandate, checkout_jwt}: the AP2
// mandate's checks, then the checkout JWT's legal_context link.
func MandateBound(mandate, checkoutJWT string) (string, error) {
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
	parts := strings.Split(checkoutJWT, ".")
	if len(parts) != 3 {
		return "", ucp("checkout-malformed", "the checkout JWT has %d segments", len(parts))
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(parts[1])
	if err != nil {
		return "", ucp("checkout-malformed", "the checkout JWT payload is not base64url")
	}
	v, err := jsonv.Parse(b)
	if err != nil {
		return "", ucp("checkout-malformed", "the checkout JWT payload: %v", err)
	}
	r, err := UCPRead(v)
	if err != nil {
		return "", err
	}
	return r.H, nil
}

func (u UCP) Read(doc jsonv.Value) (rails.Read, error) {
	r, err := u.ReadDoc(doc)
	if err != nil {
		return rails.Read{}, err
	}
	return rails.Read{H: r.H, Link: r.Link, Required: doc, Options: []jsonv.Value{doc}}, nil
}

func (u UCP) Choose(read rails.Read, _ string, _ *jsonv.Object, _ int64, _ string) (jsonv.Value, error) {
	if len(read.Options) != 1 {
		return nil, ucp("no-payable-option", "no checkout")
	}
	return jsonv.Obj(u.optionKey(), read.Options[0]), nil
}

// Build: nothing for the buyer's signer (the AP2 forms check the checkout
// first; the mandate is the user's trusted surface's).
func (u UCP) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	if u.Mandate {
		c, _ := jsonv.AsObject(choice)
		doc, _ := c.Get(u.optionKey())
		if err := u.BuildCheck(doc, h.String()); err != nil {
			return nil, err
		}
	}
	return nil, rails.Refuse("ucp/nothing-to-sign")
}

func (UCP) Request(rails.Unsigned) (rails.Request, error) {
	return nil, rails.Refuse("ucp/nothing-to-sign")
}

func (UCP) Complete(rails.Unsigned, jsonv.Value, rails.Chosen) (rails.Completion, error) {
	return rails.Completion{}, rails.Refuse("ucp/nothing-to-sign")
}

// Bound: the AP2 forms read {checkout_mandate, checkout_jwt}; the unsigned
// forms have no buyer-signed payment.
func (u UCP) Bound(presented jsonv.Value) (string, error) {
	if !u.Mandate {
		return "", ucp("not-buyer-signed", "the unsigned form has no buyer-signed payment")
	}
	o, _ := jsonv.AsObject(presented)
	m, okM := o.GetString("checkout_mandate")
	j, okJ := o.GetString("checkout_jwt")
	if !okM || !okJ {
		return "", ap2("mandate-malformed", "the payment is not {checkout_mandate, checkout_jwt}")
	}
	return MandateBound(m, j)
}
