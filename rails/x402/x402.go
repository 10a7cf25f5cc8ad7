// Package x402 reads x402 v2 documents for the pairings built on them: the
// PAYMENT-REQUIRED document with its legalContext extension (where the seller
// advertises H, the ATR link and, for pairings that need one, the agreement
// URL), the payment-identifier extension, and the header wire form.
package x402

import (
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// MaxOptions is the most accepts entries a document may list.
const MaxOptions = 32

// Refusal codes of the x402 read, build and read-back.
const (
	CodeNotV2                 = "x402/not-v2"
	CodeOptionMalformed       = "x402/option-malformed"
	CodeNoLegalContext        = "x402/no-legal-context"
	CodeLegalContextMalformed = "x402/legal-context-malformed"
	CodeLinkNotHTTPS          = "x402/link-not-https"
	CodeNoPayableOption       = "x402/no-payable-option"
	CodeOptionNotInDocument   = "x402/option-not-in-document"
	CodeOptionNotThisPairing  = "x402/option-not-this-pairing"
	CodePayloadMalformed      = "x402/payload-malformed"
	CodeSignatureMalformed    = "x402/signature-malformed"
	CodeIdentifierUnwritable  = "x402/payment-identifier-unwritable"
	CodeChoiceMalformed       = "x402/choice-malformed"
)

// Document checks the parts of a PaymentRequired every x402 read and build
// checks first: an object with x402Version 2 and at most 32 accepts.
func Document(doc jsonv.Value) (*jsonv.Object, []jsonv.Value, error) {
	o, ok := jsonv.AsObject(doc)
	if !ok {
		return nil, nil, rails.Refuse(CodeNotV2)
	}
	if v, _ := o.Get("x402Version"); v != jsonv.Number(2) {
		return nil, nil, rails.Refuse(CodeNotV2)
	}
	acc, _ := o.Get("accepts")
	accepts, ok := jsonv.AsArray(acc)
	if !ok || len(accepts) > MaxOptions {
		return nil, nil, rails.Refuse(CodeOptionMalformed)
	}
	return o, accepts, nil
}

// Read reads a PaymentRequired for one pairing, whose serves filter says
// which accepts entries it can pay (docs/protocol.md, "x402").
func Read(doc jsonv.Value, serves func(option *jsonv.Object) bool) (rails.Read, error) {
	o, accepts, err := Document(doc)
	if err != nil {
		return rails.Read{}, err
	}
	h, link, agreement, err := legalContext(o)
	if err != nil {
		return rails.Read{}, err
	}
	var options []jsonv.Value
	for _, a := range accepts {
		if opt, ok := jsonv.AsObject(a); ok && serves(opt) {
			options = append(options, opt)
		}
	}
	if len(options) == 0 {
		return rails.Read{}, rails.Refuse(CodeNoPayableOption)
	}
	return rails.Read{H: h, Link: link, Agreement: agreement, Required: o, Options: options}, nil
}

// legalContext reads extensions.legalContext.info: the advertised hash in
// lowercase, the link, and the agreement URL if any.
func legalContext(doc *jsonv.Object) (h, link, agreement string, err error) {
	ext, _ := doc.GetObject("extensions")
	lc, present := ext.Get("legalContext")
	if !present {
		return "", "", "", rails.Refuse(CodeNoLegalContext)
	}
	malformed := func() error { return rails.Refuse(CodeLegalContextMalformed) } // made only when refused
	lco, ok := jsonv.AsObject(lc)
	if !ok {
		return "", "", "", malformed()
	}
	info, ok := lco.GetObject("info")
	if !ok {
		return "", "", "", malformed()
	}
	if t, _ := info.GetString("type"); t != "sha256" {
		return "", "", "", malformed()
	}
	value, _ := info.GetString("value")
	hash, perr := atr.ParseHash(value)
	if perr != nil {
		return "", "", "", malformed()
	}
	linkValue, ok := eitherSpelling(info, "legalContextUrl", "legal_context_url")
	if !ok || linkValue == nil {
		return "", "", "", malformed()
	}
	if link, err = checkedLink(linkValue); err != nil {
		return "", "", "", err
	}
	agreementValue, ok := eitherSpelling(info, "legalContextAgreementUrl", "legal_context_agreement_url")
	if !ok {
		return "", "", "", malformed()
	}
	// A member that is present is read, null included: null is no link,
	// so malformed, as the reference gates read it.
	if info.Has("legalContextAgreementUrl") || info.Has("legal_context_agreement_url") {
		if agreement, err = checkedLink(agreementValue); err != nil {
			return "", "", "", err
		}
	}
	return lowerHash(value, hash), link, agreement, nil
}

// lowerHash is hash.String(): value itself when it is written so already
// (as sellers write it), which spares the string on every read.
func lowerHash(value string, hash atr.Hash) string {
	for i := 2; i < len(value); i++ {
		if c := value[i]; 'A' <= c && c <= 'F' {
			return hash.String()
		}
	}
	return value // ParseHash took it: "0x" and 64 hex digits, none upper case
}

// eitherSpelling returns the member under the camel or the snake name; ok is
// false when both are present and differ. A nil value means neither is there.
func eitherSpelling(info *jsonv.Object, camel, snake string) (jsonv.Value, bool) {
	a, hasA := info.Get(camel)
	b, hasB := info.Get(snake)
	switch {
	case hasA && hasB:
		return a, jsonv.Equal(a, b)
	case hasA:
		return a, true
	case hasB:
		return b, true
	}
	return nil, true
}

// checkedLink applies the https-link rule with its 2048-unit bound.
func checkedLink(v jsonv.Value) (string, error) {
	s, ok := jsonv.AsString(v)
	if !ok {
		return "", rails.Refuse(CodeLegalContextMalformed)
	}
	switch atr.CheckLink(s) {
	case atr.LinkOK:
		return s, nil
	case atr.LinkOtherScheme:
		return "", rails.Refuse(CodeLinkNotHTTPS)
	default:
		return "", rails.Refuse(CodeLegalContextMalformed)
	}
}

// OptionInDocument reports whether accepted is one of accepts: the same JSON
// in canonical (JCS) form, so member order does not matter.
func OptionInDocument(accepted *jsonv.Object, accepts []jsonv.Value) bool {
	for _, a := range accepts {
		if a == jsonv.Value(accepted) {
			return true // the very option read from the document
		}
	}
	want := string(jsonv.Canonical(accepted))
	for _, a := range accepts {
		if o, ok := jsonv.AsObject(a); ok && string(jsonv.Canonical(o)) == want {
			return true
		}
	}
	return false
}

// Payment assembles a payment in the member order LCP writes:
// {x402Version, resource?, accepted, payload, extensions?}. resource and
// extensions are copies of the document's, so the payment never aliases it.
func Payment(required *jsonv.Object, accepted *jsonv.Object, payload *jsonv.Object) *jsonv.Object {
	// The members are given to Obj at once, so that the object is made at
	// its size rather than grown by Set (three copies of its members).
	var kv [10]any
	n := 0
	add := func(k string, v jsonv.Value) { kv[n], kv[n+1] = k, v; n += 2 }
	add("x402Version", jsonv.Number(2))
	if r, ok := required.Get("resource"); ok {
		add("resource", jsonv.Clone(r))
	}
	add("accepted", accepted.Clone())
	add("payload", payload)
	if e, ok := required.Get("extensions"); ok {
		add("extensions", jsonv.Clone(e))
	}
	return jsonv.Obj(kv[:n]...)
}

// AppendPaymentIdentifier writes id into the payment's
// extensions["payment-identifier"].info when the seller's document advertises
// that extension (docs/protocol.md, "x402"). A client
// may add to info but not overwrite or invent it, so an info that is missing,
// not an object, or already holding an id is unwritable.
func AppendPaymentIdentifier(payment, required *jsonv.Object, id string) error {
	docExt, _ := required.GetObject("extensions")
	if !docExt.Has("payment-identifier") {
		return nil
	}
	ext, _ := payment.GetObject("extensions")
	pi, ok := ext.GetObject("payment-identifier")
	if !ok {
		return rails.Refuse(CodeIdentifierUnwritable)
	}
	info, ok := pi.GetObject("info")
	if !ok || info.Has("id") {
		return rails.Refuse(CodeIdentifierUnwritable)
	}
	info.Set("id", id)
	return nil
}

// MaxHeaderChars bounds a PAYMENT-REQUIRED header the gate will decode.
const MaxHeaderChars = 65536

// ErrUnreadable is wrapped by every DecodeHeader failure.
var ErrUnreadable = errors.New("x402: header is not readable")

// DecodeHeader decodes a PAYMENT-REQUIRED (or PAYMENT-SIGNATURE) header
// strictly: canonical padded standard base64 with zero pad bits and nothing
// else (no whitespace), UTF-8 without a byte-order mark, JSON within the depth
// cap, and an object. This is the Python gate's behaviour, chosen over the
// TypeScript gate's forgiving one: a header two readers could read differently
// is one we refuse (docs/protocol.md, "The agreement exchange"; vectors BA13, BA18, BA19).
func DecodeHeader(header string) (*jsonv.Object, error) {
	if len(header) > MaxHeaderChars {
		return nil, fmt.Errorf("%w: longer than %d characters", ErrUnreadable, MaxHeaderChars)
	}
	for i := 0; i < len(header); i++ {
		if !isBase64Char(header[i]) {
			return nil, fmt.Errorf("%w: byte %d (%q) is not standard base64", ErrUnreadable, i, header[i])
		}
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(header)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	v, err := jsonv.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, fmt.Errorf("%w: not a JSON object", ErrUnreadable)
	}
	return o, nil
}

func isBase64Char(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}

// EncodeHeader writes v as a header value: standard padded base64 of its JSON
// in JSON.stringify form.
func EncodeHeader(v jsonv.Value) string {
	return base64.StdEncoding.EncodeToString(jsonv.Marshal(v))
}

// ChosenOption reads an exact choice, {required, accepted, …}: the seller's
// document and the option chosen from it. It refuses, in this order, a
// choice that is not an object holding both (choice-malformed), a document
// that does not read, an option that is not one of the document's
// (option-not-in-document) and one that serves refuses
// (option-not-this-pairing). Build re-checks all of this because Chosen
// crosses a process boundary.
func ChosenOption(choice jsonv.Value, serves func(*jsonv.Object) bool) (c, required, accepted *jsonv.Object, err error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, nil, nil, rails.Refuse(CodeChoiceMalformed)
	}
	required, ok1 := c.GetObject("required")
	accepted, ok2 := c.GetObject("accepted")
	if !ok1 || !ok2 {
		return nil, nil, nil, rails.Refuse(CodeChoiceMalformed)
	}
	_, accepts, err := Document(required)
	if err != nil {
		return nil, nil, nil, err
	}
	if !OptionInDocument(accepted, accepts) {
		return nil, nil, nil, rails.Refuse(CodeOptionNotInDocument)
	}
	if !serves(accepted) {
		return nil, nil, nil, rails.Refuse(CodeOptionNotThisPairing)
	}
	return c, required, accepted, nil
}

// CodeLegalContextPresent refuses to read, as a document without terms, one
// that has a legalContext extension: terms advertised are paid bound (and
// checked) or not at all.
const CodeLegalContextPresent = "x402/legal-context-present"

// ReadPlain reads a PaymentRequired that publishes no terms, for an unbound
// payment the payer opted into (docs/protocol.md, "Unbound payments"): the
// checks of Read without the legal context, which must be absent.
func ReadPlain(doc jsonv.Value, serves func(option *jsonv.Object) bool) (rails.Read, error) {
	o, accepts, err := Document(doc)
	if err != nil {
		return rails.Read{}, err
	}
	if ext, _ := o.GetObject("extensions"); ext.Has("legalContext") {
		return rails.Read{}, rails.Refuse(CodeLegalContextPresent)
	}
	var options []jsonv.Value
	for _, a := range accepts {
		if opt, ok := jsonv.AsObject(a); ok && serves(opt) {
			options = append(options, opt)
		}
	}
	if len(options) == 0 {
		return rails.Read{}, rails.Refuse(CodeNoPayableOption)
	}
	return rails.Read{Required: o, Options: options}, nil
}
