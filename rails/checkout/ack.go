package checkout

// The ACK payment request readers (ack_payment_request.go says where H goes).

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/termsgate/termsgate/jsonv"
)

// ACK caps the vectors fix.
const (
	MaxACKBody    = 64 << 10
	MaxACKToken   = 16 << 10
	MaxACKOptions = 16
	ACKIDPrefix   = "lcp:sha256:"
	ACKID         = "ack/payment-request"
)

func ack(code, format string, args ...any) error {
	return &Refusal{Code: "ack/" + code, Detail: fmt.Sprintf(format, args...)}
}

// ACKRead is what a payment request body says: H and the link from the
// legalContext, checked against the token's signed id, and the token's
// payment options.
type ACKRead struct {
	H, Link   string
	Agreement string // legalContextAgreementUrl, "" when the body names none
	Options   []jsonv.Value
}

// ACKAdvertise is the seller's side: the payment request id and legalContext
// for H, for an offer that is one payment option.
func ACKAdvertise(doc *jsonv.Object, h, link string, offer *jsonv.Object) (*jsonv.Object, error) {
	return ACKAdvertiseAgreement(doc, h, link, offer, "")
}

// ACKAdvertiseAgreement is ACKAdvertise with legalContextAgreementUrl, the
// agreement URL, after the link ("" for none).
func ACKAdvertiseAgreement(doc *jsonv.Object, h, link string, offer *jsonv.Object, agreement string) (*jsonv.Object, error) {
	hh, ok := hash(h)
	if !ok || link == "" || len(link) > MaxLink {
		return nil, ack("legal-context-malformed", "H or link out of shape")
	}
	if !strings.HasPrefix(link, "https://") {
		return nil, ack("link-not-https", "link is not https")
	}
	if id, ok := offer.GetString("id"); !ok || id == "" {
		return nil, ack("option-malformed", "the option has no id")
	}
	if f := agreementArg(agreement); f != "" {
		return nil, ack(f, "the agreement URL is not an https link")
	}
	lc := jsonv.Obj("type", "sha256", "value", hh, "legalContextUrl", link)
	if agreement != "" {
		lc.Set(agreementCamel, agreement)
	}
	out := doc.Clone()
	out.Set("paymentRequestId", ACKIDPrefix+hh)
	out.Set("legalContext", lc)
	return out, nil
}

// ackToken reads the token's payload: its id's H and its payment options.
func ackToken(tok string) (string, []jsonv.Value, error) {
	if len(tok) > MaxACKToken {
		return "", nil, ack("too-large", "token over %d bytes", MaxACKToken)
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return "", nil, ack("token-malformed", "token has %d segments", len(parts))
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(parts[1])
	if err != nil || !utf8.Valid(b) {
		return "", nil, ack("token-malformed", "token payload is not base64url UTF-8")
	}
	v, err := jsonv.Parse(b)
	p, ok := jsonv.AsObject(v)
	if err != nil || !ok {
		return "", nil, ack("token-malformed", "token payload is not a JSON object")
	}
	id, _ := p.GetString("id")
	h, ok := hash(strings.TrimPrefix(id, ACKIDPrefix))
	if !strings.HasPrefix(id, ACKIDPrefix) || !ok {
		return "", nil, ack("id-not-lcp", "token id is not lcp:sha256:<H>")
	}
	ov, _ := p.Get("paymentOptions")
	opts, ok := jsonv.AsArray(ov)
	if !ok {
		return "", nil, ack("token-malformed", "token payload has no paymentOptions list")
	}
	if len(opts) > MaxACKOptions {
		return "", nil, ack("too-large", "%d payment options (cap %d)", len(opts), MaxACKOptions)
	}
	return h, opts, nil
}

// ACKReadBody reads a payment request body {paymentRequest,
// paymentRequestToken, legalContext}. The token's signature is not verified
// here; its signed id must name the same H as the legalContext.
func ACKReadBody(body jsonv.Value) (ACKRead, error) {
	o, ok := jsonv.AsObject(body)
	if !ok {
		return ACKRead{}, ack("token-malformed", "the body is not a JSON object")
	}
	if len(jsonv.Marshal(o)) > MaxACKBody {
		return ACKRead{}, ack("too-large", "body over %d bytes", MaxACKBody)
	}
	tok, ok := o.GetString("paymentRequestToken")
	if !ok {
		return ACKRead{}, ack("token-malformed", "no paymentRequestToken")
	}
	th, opts, err := ackToken(tok)
	if err != nil {
		return ACKRead{}, err
	}
	lv, ok := o.Get("legalContext")
	if !ok {
		return ACKRead{}, ack("no-legal-context", "the body carries no legalContext")
	}
	lc, _ := jsonv.AsObject(lv)
	typ, _ := lc.GetString("type")
	value, _ := lc.GetString("value")
	link, _ := lc.GetString("legalContextUrl")
	h, ok := hash(value)
	if lc == nil || typ != "sha256" || !ok || link == "" || len(link) > MaxLink {
		return ACKRead{}, ack("legal-context-malformed", "legalContext is not {type: sha256, value: 0x+64 hex, legalContextUrl}")
	}
	if !strings.HasPrefix(link, "https://") {
		return ACKRead{}, ack("link-not-https", "legalContextUrl is not https")
	}
	if h != th {
		return ACKRead{}, ack("legal-context-conflict", "the token's signed id names %s, the legalContext %s", th, h)
	}
	agreement, fault := agreementIn(lc)
	if fault != "" {
		return ACKRead{}, ack(fault, "legalContextAgreementUrl is not an https link")
	}
	return ACKRead{H: h, Link: link, Agreement: agreement, Options: opts}, nil
}

// ACKFromReceipt reads H from a receipt's credentialSubject, through the
// payment request token it carries.
func ACKFromReceipt(subject jsonv.Value) (string, error) {
	o, ok := jsonv.AsObject(subject)
	if !ok {
		return "", ack("receipt-malformed", "credentialSubject is not an object")
	}
	if len(jsonv.Marshal(o)) > MaxACKBody {
		return "", ack("too-large", "credentialSubject over %d bytes", MaxACKBody)
	}
	tok, _ := o.GetString("paymentRequestToken")
	h, _, err := ackToken(tok)
	if err != nil {
		return "", ack("receipt-malformed", "%v", err)
	}
	return h, nil
}
