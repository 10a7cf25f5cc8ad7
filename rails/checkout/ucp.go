package checkout

// The UCP readers the four UCP pairings share (ucp_checkout_ap2_mandate.go,
// ucp_checkout_unsigned.go, ucp_booking_ap2_mandate.go,
// ucp_booking_unsigned.go say where H goes for each).

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

// ucpAgreementLinkType is the links[] entry naming the agreement URL beside
// the legal_context one.
const ucpAgreementLinkType = "legal_context_agreement"

func ucp(code, format string, args ...any) error {
	return &Refusal{Code: "ucp/" + code, Detail: fmt.Sprintf(format, args...)}
}

// UCP is one of the four pairings: Booking for a booking (offer {booking})
// rather than a checkout (offer {checkout}); Mandate for the AP2 mandate form.
type UCP struct{ Booking, Mandate bool }

var (
	_ rails.Pairing    = UCP{}
	_ rails.Summarizer = UCP{}
	_ rails.Inspector  = UCP{}
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

// UCPAgreement is the url of the checkout's one legal_context_agreement
// link, "" when it has none: two such links are ucp/legal-context-conflict, a
// url that is no https link ucp/link-not-https or ucp/legal-context-malformed.
func UCPAgreement(doc jsonv.Value) (string, error) {
	o, _ := jsonv.AsObject(doc)
	links, _, _ := ucpLinks(o)
	url := ""
	found := false
	for _, l := range links {
		lo, _ := jsonv.AsObject(l)
		if t, _ := lo.GetString("type"); t != ucpAgreementLinkType {
			continue
		}
		if found {
			return "", ucp("legal-context-conflict", "two legal_context_agreement links")
		}
		found = true
		v, _ := lo.Get("url")
		s, ok := isAgreementURL(v)
		if !ok {
			return "", ucp(agreementFault(v), "the legal_context_agreement url is not an https link")
		}
		url = s
	}
	return url, nil
}

// Advertise adds H's legal_context link to a checkout (or booking) for the
// offer naming it; a checkout already signed by the merchant cannot change.
func (u UCP) Advertise(doc jsonv.Value, h, link string, offer jsonv.Value) (*jsonv.Object, error) {
	return u.AdvertiseAgreement(doc, h, link, offer, "")
}

// AdvertiseAgreement is Advertise followed by a legal_context_agreement link
// to the agreement URL ("" for none).
func (u UCP) AdvertiseAgreement(doc jsonv.Value, h, link string, offer jsonv.Value, agreement string) (*jsonv.Object, error) {
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
	if f := agreementArg(agreement); f != "" {
		return nil, ucp(f, "the agreement URL is not an https link")
	}
	for _, l := range links {
		if isLegalContextLink(l) {
			r, err := UCPRead(o)
			if err != nil || r.H != hh || r.Link != link {
				return nil, ucp("legal-context-conflict", "the checkout already carries another legal_context")
			}
			if agreement != "" {
				if have, err := UCPAgreement(o); err != nil || have != agreement {
					return nil, ucp("legal-context-conflict", "the checkout names another agreement URL, or none")
				}
			}
			return o, nil
		}
	}
	add := []jsonv.Value{jsonv.Obj("type", "legal_context", "url", link, "title", ACKIDPrefix+hh)}
	if agreement != "" {
		have, err := UCPAgreement(o)
		switch {
		case err != nil || have != "" && have != agreement:
			return nil, ucp("legal-context-conflict", "the checkout names another agreement URL")
		case have == "":
			add = append(add, jsonv.Obj("type", ucpAgreementLinkType, "url", agreement))
		}
	}
	if len(links)+len(add) > MaxUCPLinks+1 {
		return nil, ucp("too-large", "the checkout already holds %d links", len(links))
	}
	out := o.Clone()
	next := append(append([]jsonv.Value{}, links...), add...)
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

// Read reads the checkout's legal_context link (H and the link), its
// legal_context_agreement link (the agreement URL) and, for the AP2 forms,
// that the merchant signed it.
func (u UCP) Read(doc jsonv.Value) (rails.Read, error) {
	r, err := u.ReadDoc(doc)
	if err != nil {
		return rails.Read{}, err
	}
	agreement, err := UCPAgreement(doc)
	if err != nil {
		return rails.Read{}, err
	}
	return rails.Read{H: r.H, Link: r.Link, Agreement: agreement, Required: doc, Options: []jsonv.Value{doc}}, nil
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
	m, j, err := mandatePresented(presented)
	if err != nil {
		return "", err
	}
	return MandateBound(m, j)
}

// Summarize: the gate builds no signing request (errNothingSigned).
func (UCP) Summarize(rails.Request) (rails.Grant, error) { return rails.Grant{}, errNothingSigned }

// Inspect reads, for the AP2 forms, a presented {checkout_mandate,
// checkout_jwt} (H through Bound, the approved currency and total from the
// checkout the mandate names); for the unsigned forms, the checkout as
// completed, {checkout: …} or {booking: …} (what Choose keeps), whose
// legal_context link names H and which nobody signed. A checkout and a
// booking mandate read alike; a presentation may name which it completes
// ({…, booking: id} or {…, checkout: id}), and each form refuses one naming
// the other.
func (u UCP) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	o, _ := jsonv.AsObject(payment)
	other := "booking"
	if u.Booking {
		other = "checkout"
	}
	if !u.Mandate {
		doc, ok := o.Get(u.optionKey())
		if !ok || o.Len() != 1 {
			return rails.Inspection{}, ucp("checkout-malformed", "the completed %s is not {%s: …}", u.optionKey(), u.optionKey())
		}
		r, err := UCPRead(doc)
		if err != nil {
			return rails.Inspection{}, err
		}
		d, _ := jsonv.AsObject(doc)
		g, err := checkoutGrant(d)
		if err != nil {
			return rails.Inspection{}, err
		}
		id, _ := d.GetString("id")
		return rails.Inspection{Pairing: u.ID(), Kind: u.optionKey(), Grant: g, H: r.H,
			WhereH: "the " + u.optionKey() + "'s legal_context link, its title lcp:sha256:<H>",
			Details: jsonv.Obj(u.optionKey(), id, "signedBy", "nobody: UCP without the AP2 Mandates extension has no buyer signature",
				"proof", noProof)}, nil
	}
	if o.Has(other) {
		return rails.Inspection{}, ucp("not-this-pairing", "the presentation completes a %s", other)
	}
	h, err := u.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	m, j, _ := mandatePresented(payment)
	return inspectMandate(u.ID(), m, j, h, "the "+u.optionKey()+"'s legal_context link (title lcp:sha256:<H>) in the checkout JWT the mandate's checkout_hash names")
}
