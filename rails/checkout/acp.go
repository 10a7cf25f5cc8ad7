// acp/checkout/delegated and acp/checkout/undelegated: H goes in the ACP
// checkout session's id (the seller names the session by the ATR's hash),
// with metadata.legal_context {type: "sha256", value: H, legal_context_url}
// beside it; the two must agree. Delegated: the buyer's delegate-payment
// allowance names the session by checkout_session_id, so H is read back from
// it; undelegated: the buyer signs nothing. Neither is a public proof (the
// agreement exchange comes first). Not registered yet.
package checkout

import (
	"fmt"
	"strings"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
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

// ACPRead is what a checkout session says: H (its id) and the link.
type ACPRead struct{ H, Link string }

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
	return ACPRead{H: h, Link: link}, nil
}

// ACPAdvertise is the seller's side: the session named by H, with its
// legal_context, for an offer {requires_delegate_payment: boolean}.
func ACPAdvertise(doc jsonv.Value, h, link string, offer jsonv.Value) (*jsonv.Object, error) {
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
	if lv, ok := md.Get("legal_context"); ok {
		lh, ll, err := acpLegalContext(lv)
		if err != nil || lh != hh || ll != link {
			return nil, acp("legal-context-conflict", "metadata already carries another legal_context")
		}
	}
	md.Set("legal_context", jsonv.Obj("type", "sha256", "value", hh, "legal_context_url", link))
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
	return jsonv.Obj("allowance", jsonv.Obj("reason", "one_time", "max_amount", mv, "currency", currency,
		"checkout_session_id", r.H, "merchant_id", merchant, "expires_at", expires)), nil
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

// ACPDelegated is acp/checkout/delegated; ACPUndelegated the same session
// with nothing for the buyer to sign.
type (
	ACPDelegated   struct{}
	ACPUndelegated struct{}
)

func (ACPDelegated) ID() string   { return ACPDelegatedID }
func (ACPUndelegated) ID() string { return ACPUndelegatedID }

// Patterns: H is the session's own id (native-field) in the delegated
// allowance; undelegated it is only what the seller's HTTP answer says.
func (ACPDelegated) Pattern() rails.Pattern   { return rails.Pattern{Name: "native-field"} }
func (ACPUndelegated) Pattern() rails.Pattern { return rails.Pattern{Name: "http-advisory"} }

func acpRead(doc jsonv.Value) (rails.Read, error) {
	r, err := ACPReadSession(doc)
	if err != nil {
		return rails.Read{}, err
	}
	return rails.Read{H: r.H, Link: r.Link, Required: doc, Options: []jsonv.Value{doc}}, nil
}

func (ACPDelegated) Read(doc jsonv.Value) (rails.Read, error)   { return acpRead(doc) }
func (ACPUndelegated) Read(doc jsonv.Value) (rails.Read, error) { return acpRead(doc) }

// Choose (delegated) takes the allowance's terms from the buyer's inputs
// {max_amount, currency, merchant_id, expires_at}.
func (ACPDelegated) Choose(read rails.Read, _ string, inputs *jsonv.Object, _ int64, _ string) (jsonv.Value, error) {
	if len(read.Options) != 1 || inputs == nil {
		return nil, acp("input-missing", "max_amount, currency, merchant_id and expires_at are the buyer's inputs")
	}
	c := jsonv.Obj("session", read.Options[0])
	for _, k := range []string{"max_amount", "currency", "merchant_id", "expires_at"} {
		v, ok := inputs.Get(k)
		if !ok {
			return nil, acp("input-missing", "no %s", k)
		}
		c.Set(k, v)
	}
	return c, nil
}

func (ACPUndelegated) Choose(read rails.Read, _ string, _ *jsonv.Object, _ int64, _ string) (jsonv.Value, error) {
	if len(read.Options) != 1 {
		return nil, acp("no-payable-option", "no session")
	}
	return jsonv.Obj("session", read.Options[0]), nil
}

type acpUnsigned struct{ payment *jsonv.Object }

// Build (delegated) writes the allowance, which is itself the payment.
func (ACPDelegated) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	p, err := ACPBuildAllowance(choice, h.String())
	if err != nil {
		return nil, err
	}
	return &acpUnsigned{payment: p}, nil
}

func (ACPUndelegated) Build(jsonv.Value, []byte, atr.Hash) (rails.Unsigned, error) {
	return nil, rails.Refuse("acp/nothing-to-sign")
}

// Request: the allowance goes to the delegate-payment provider, not to the
// buyer's signer.
func (ACPDelegated) Request(rails.Unsigned) (rails.Request, error) {
	return nil, rails.Refuse("acp/nothing-to-sign")
}

func (ACPUndelegated) Request(rails.Unsigned) (rails.Request, error) {
	return nil, rails.Refuse("acp/nothing-to-sign")
}

func (ACPDelegated) Complete(rails.Unsigned, jsonv.Value, rails.Chosen) (rails.Completion, error) {
	return rails.Completion{}, rails.Refuse("acp/nothing-to-sign")
}

func (ACPUndelegated) Complete(rails.Unsigned, jsonv.Value, rails.Chosen) (rails.Completion, error) {
	return rails.Completion{}, rails.Refuse("acp/nothing-to-sign")
}

func (ACPDelegated) Bound(presented jsonv.Value) (string, error) { return ACPBound(presented) }

// Bound (undelegated): the buyer signed nothing that could carry H.
func (ACPUndelegated) Bound(jsonv.Value) (string, error) {
	return "", acp("not-buyer-signed", "the undelegated checkout has no buyer-signed payment")
}

// ACPAllowanceUnchanged is the check of a presented allowance against the one
// built: any change (another session, amount, merchant) is refused.
func ACPAllowanceUnchanged(built, presented *jsonv.Object) error {
	if !jsonv.Equal(built, presented) {
		return acp("allowance-changed", "the allowance presented is not the one built")
	}
	return nil
}
