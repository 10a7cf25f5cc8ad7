package checkout

// The ACP checkout session readers the two ACP pairings share
// (acp_checkout_delegated.go and acp_checkout_undelegated.go say where H
// goes for each).

import (
	"fmt"
	"strings"
	"time"

	"github.com/termsgate/termsgate/jsonv"
)

// ACP caps the vectors fix.
const (
	MaxACPSession    = 1 << 20
	MaxACPMerchantID = 256
	MaxACPExpiresAt  = 64
	ACPDelegatedID   = "acp/checkout/delegated"
	ACPUndelegatedID = "acp/checkout/undelegated"
)

func acp(code, format string, args ...any) error {
	return &Refusal{Code: "acp/" + code, Detail: fmt.Sprintf(format, args...)}
}

// ACPRead is what a checkout session says: H (its id), the link and the
// agreement URL ("" when it names none).
type ACPRead struct{ H, Link, Agreement string }

func acpSession(v jsonv.Value) (*jsonv.Object, error) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, acp("session-malformed", "the session is not a JSON object")
	}
	if mv, ok := o.Get("metadata"); ok {
		if _, ok := jsonv.AsObject(mv); !ok {
			return nil, acp("session-malformed", "metadata is not an object")
		}
	}
	if len(jsonv.Marshal(o)) > MaxACPSession {
		return nil, acp("too-large", "session over %d bytes", MaxACPSession)
	}
	return o, nil
}

func acpLegalContext(lv jsonv.Value) (string, string, error) {
	lc, ok := jsonv.AsObject(lv)
	typ, _ := lc.GetString("type")
	value, _ := lc.GetString("value")
	link, _ := lc.GetString("legal_context_url")
	h, okH := hash(value)
	if !ok || typ != "sha256" || !okH || link == "" || len(link) > MaxLink {
		return "", "", acp("legal-context-malformed", "legal_context is not {type: sha256, value: 0x+64 hex, legal_context_url}")
	}
	if !strings.HasPrefix(link, "https://") {
		return "", "", acp("link-not-https", "legal_context_url is not https")
	}
	return h, link, nil
}

// ACPReadSession reads a checkout session: its id is H, and
// metadata.legal_context must name the same H.
func ACPReadSession(v jsonv.Value) (ACPRead, error) {
	o, err := acpSession(v)
	if err != nil {
		return ACPRead{}, err
	}
	id, _ := o.GetString("id")
	if len(id) > 66 {
		return ACPRead{}, acp("too-large", "session id of %d characters", len(id))
	}
	h, ok := hash(id)
	if !ok {
		return ACPRead{}, acp("id-not-hash", "the session id is not 0x + 64 hex")
	}
	md, _ := o.GetObject("metadata")
	lv, ok := md.Get("legal_context")
	if md == nil || !ok {
		return ACPRead{}, acp("no-legal-context", "no metadata.legal_context")
	}
	lh, link, err := acpLegalContext(lv)
	if err != nil {
		return ACPRead{}, err
	}
	if lh != h {
		return ACPRead{}, acp("legal-context-conflict", "legal_context names %s, the session id %s", lh, h)
	}
	lo, _ := jsonv.AsObject(lv)
	agreement, fault := agreementIn(lo)
	if fault != "" {
		return ACPRead{}, acp(fault, "legal_context_agreement_url is not an https link")
	}
	return ACPRead{H: h, Link: link, Agreement: agreement}, nil
}

// ACPAdvertise is the seller's side: the session named by H, with its
// legal_context, for an offer {requires_delegate_payment: boolean}.
func ACPAdvertise(doc jsonv.Value, h, link string, offer jsonv.Value) (*jsonv.Object, error) {
	return ACPAdvertiseAgreement(doc, h, link, offer, "")
}

// ACPAdvertiseAgreement is ACPAdvertise with legal_context_agreement_url,
// the agreement URL, after the link ("" for none).
func ACPAdvertiseAgreement(doc jsonv.Value, h, link string, offer jsonv.Value, agreement string) (*jsonv.Object, error) {
	o, err := acpSession(doc)
	if err != nil {
		return nil, err
	}
	of, ok := jsonv.AsObject(offer)
	rd, _ := of.Get("requires_delegate_payment")
	if _, isBool := rd.(bool); !ok || of.Len() != 1 || !isBool {
		return nil, acp("option-malformed", "the offer is not {requires_delegate_payment: boolean}")
	}
	hh, ok := hash(h)
	if !ok || link == "" || len(link) > MaxLink {
		return nil, acp("legal-context-malformed", "H or link out of shape")
	}
	if !strings.HasPrefix(link, "https://") {
		return nil, acp("link-not-https", "link is not https")
	}
	if f := agreementArg(agreement); f != "" {
		return nil, acp(f, "the agreement URL is not an https link")
	}
	if id, ok := o.Get("id"); ok {
		s, _ := jsonv.AsString(id)
		if have, ok := hash(s); !ok || have != hh {
			return nil, acp("id-conflict", "the session already has another id")
		}
	}
	md, _ := o.GetObject("metadata")
	if md == nil {
		md = jsonv.Obj()
	} else {
		md = md.Clone()
	}
	want := jsonv.Obj("type", "sha256", "value", hh, "legal_context_url", link)
	if agreement != "" {
		want.Set(agreementSnake, agreement)
	}
	if lv, ok := md.Get("legal_context"); ok {
		lh, ll, err := acpLegalContext(lv)
		lo, _ := jsonv.AsObject(lv)
		have, _ := agreementIn(lo)
		if err != nil || lh != hh || ll != link || have != agreement {
			return nil, acp("legal-context-conflict", "metadata already carries another legal_context")
		}
	}
	md.Set("legal_context", want)
	out := jsonv.Obj("id", hh)
	for _, m := range o.Members() {
		switch m.Key {
		case "id":
		case "metadata":
			out.Set("metadata", md)
		default:
			out.Set(m.Key, m.Value)
		}
	}
	if !out.Has("metadata") {
		out.Set("metadata", md)
	}
	return out, nil
}

// ACPBuildAllowance writes the delegated payment's allowance from the choice
// {session, max_amount, currency, merchant_id, expires_at} and the hash the
// gate computed, which must be the session's id.
func ACPBuildAllowance(choice jsonv.Value, h string) (*jsonv.Object, error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, acp("choice-malformed", "the choice is not an object")
	}
	sv, _ := c.Get("session")
	so, _ := jsonv.AsObject(sv)
	sid, _ := so.GetString("id")
	if have, ok := hash(sid); so != nil && ok {
		if hh, ok := hash(h); !ok || hh != have {
			return nil, acp("hash-not-session", "the session id is not the ATR's hash")
		}
	}
	r, err := ACPReadSession(sv)
	if err != nil {
		return nil, err
	}
	mv, _ := c.Get("max_amount")
	amount, okA := jsonv.AsSafeInt(mv)
	currency, _ := c.GetString("currency")
	merchant, _ := c.GetString("merchant_id")
	expires, _ := c.GetString("expires_at")
	if len(merchant) > MaxACPMerchantID || len(expires) > MaxACPExpiresAt {
		return nil, acp("too-large", "merchant_id or expires_at over its cap")
	}
	if !okA || amount < 0 || !isCurrency(currency) || merchant == "" {
		return nil, acp("choice-malformed", "max_amount, currency or merchant_id out of shape")
	}
	if _, err := time.Parse(time.RFC3339Nano, expires); err != nil {
		return nil, acp("choice-malformed", "expires_at is not an RFC 3339 date-time")
	}
	if err := ACPWithinMaxAmount(so, "the session", amount, currency); err != nil {
		return nil, err
	}
	return jsonv.Obj("allowance", jsonv.Obj("reason", "one_time", "max_amount", mv, "currency", currency,
		"checkout_session_id", r.H, "merchant_id", merchant, "expires_at", expires)), nil
}

// ACPWithinMaxAmount refuses a checkout (the session, or the ATR's own
// terms) whose stated total the allowance could not pay: the PSP charges at
// most max_amount, so a confirm over it is declined rather than left to fail
// at the PSP, or to commit the buyer to terms it cannot meet. A checkout
// that states its currency must state the allowance's, else the two amounts
// are not comparable. One that states no total is left to the PSP.
func ACPWithinMaxAmount(o *jsonv.Object, what string, maxAmount int64, currency string) error {
	if o == nil {
		return nil
	}
	if cur, ok := o.GetString("currency"); ok && !strings.EqualFold(cur, currency) {
		return acp("currency-mismatch", "%s is in %q, the allowance in %q", what, cur, currency)
	}
	if t := total(o); t != nil && t.Int64() > maxAmount {
		return acp("total-above-max-amount", "%s's total %d is over the allowance's max_amount %d", what, t.Int64(), maxAmount)
	}
	if tv, ok := o.Get("totals"); ok && total(o) == nil && hasTotalEntry(tv) {
		return acp("total-malformed", "%s's total is no non-negative integer", what)
	}
	return nil
}

// hasTotalEntry: a totals list with an entry of type "total".
func hasTotalEntry(tv jsonv.Value) bool {
	list, _ := jsonv.AsArray(tv)
	for _, e := range list {
		eo, _ := jsonv.AsObject(e)
		if t, _ := eo.GetString("type"); t == "total" {
			return true
		}
	}
	return false
}

// isCurrency: ISO 4217 in lower case, as ACP writes it.
func isCurrency(s string) bool {
	if len(s) != 3 {
		return false
	}
	for _, c := range s {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

var allowanceMembers = []string{"reason", "max_amount", "currency", "checkout_session_id", "merchant_id", "expires_at"}

// ACPBound reads H back from a delegated payment {allowance, …}.
func ACPBound(presented jsonv.Value) (string, error) {
	o, _ := jsonv.AsObject(presented)
	a, _ := o.GetObject("allowance")
	if a == nil || a.Len() != len(allowanceMembers) {
		return "", acp("allowance-malformed", "the payment has no allowance of six members")
	}
	for _, k := range allowanceMembers {
		if !a.Has(k) {
			return "", acp("allowance-malformed", "the allowance has no %s", k)
		}
	}
	if r, _ := a.GetString("reason"); r != "one_time" {
		return "", acp("allowance-malformed", "the allowance's reason is not one_time")
	}
	id, _ := a.GetString("checkout_session_id")
	h, ok := hash(id)
	if !ok {
		return "", acp("id-not-hash", "checkout_session_id is not 0x + 64 hex")
	}
	return h, nil
}

// ACPAllowanceUnchanged is the check of a presented allowance against the one
// built: any change (another session, amount, merchant) is refused.
func ACPAllowanceUnchanged(built, presented *jsonv.Object) error {
	if !jsonv.Equal(built, presented) {
		return acp("allowance-changed", "the allowance presented is not the one built")
	}
	return nil
}
