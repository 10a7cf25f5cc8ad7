package checkout

import (
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
)

// The agreement URL's members beside the link in a legal context object:
// camel case where the link is legalContextUrl (AP2, ACK), snake case where it
// is legal_context_url (ACP). A reader takes either spelling; both present
// and different is refused. UCP has its own links entry instead
// (ucpAgreementLinkType).
const (
	agreementCamel = "legalContextAgreementUrl"
	agreementSnake = "legal_context_agreement_url"
)

// agreementFault is the refusal suffix for a value in an agreement URL's
// place that is no https link: link-not-https for an absolute URL of another
// scheme, legal-context-malformed for anything else (docs/checkout.md,
// "Where the agreement URL is").
func agreementFault(v jsonv.Value) string {
	s, ok := jsonv.AsString(v)
	if ok && atr.CheckLink(s) == atr.LinkOtherScheme {
		return "link-not-https"
	}
	return "legal-context-malformed"
}

// isAgreementURL is a string the link rule admits.
func isAgreementURL(v jsonv.Value) (string, bool) {
	s, ok := jsonv.AsString(v)
	return s, ok && atr.CheckLink(s) == atr.LinkOK
}

// agreementIn reads the agreement URL of a legal context object: "" when it
// names none, else the URL; a fault (the refusal's suffix) when the two
// spellings disagree or the value is no agreement URL.
func agreementIn(lc *jsonv.Object) (url, fault string) {
	if lc == nil {
		return "", ""
	}
	camel, hasCamel := lc.Get(agreementCamel)
	snake, hasSnake := lc.Get(agreementSnake)
	if !hasCamel && !hasSnake {
		return "", ""
	}
	v := camel
	if !hasCamel {
		v = snake
	}
	if hasCamel && hasSnake && !jsonv.Equal(camel, snake) {
		return "", "legal-context-malformed"
	}
	s, ok := isAgreementURL(v)
	if !ok {
		return "", agreementFault(v)
	}
	return s, ""
}

// agreementArg checks the agreement URL an Advertise is given: "" (none) or
// an https link; else the refusal's suffix.
func agreementArg(url string) string {
	if url == "" {
		return ""
	}
	if _, ok := isAgreementURL(url); !ok {
		return agreementFault(url)
	}
	return ""
}
