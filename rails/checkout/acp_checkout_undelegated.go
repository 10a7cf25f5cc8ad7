// acp/checkout/undelegated: H goes in the ACP checkout session's id, with
// metadata.legal_context {type: "sha256", value: H, legal_context_url} (and
// legal_context_agreement_url) beside it, and nowhere signed: the payment
// handler does not require delegate_payment, so nothing the buyer sends for
// the payment names H (Bound refuses acp/not-buyer-signed). The buyer's gate
// signs nothing (confirm-only); the agreement payment made first is the proof.
package checkout

import (
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// ACPUndelegated is acp/checkout/undelegated.
type ACPUndelegated struct{}

var (
	_ rails.Pairing    = ACPUndelegated{}
	_ rails.Summarizer = ACPUndelegated{}
	_ rails.Inspector  = ACPUndelegated{}
)

func (ACPUndelegated) ID() string { return ACPUndelegatedID }

// Pattern: H is only what the seller's HTTP answer says.
func (ACPUndelegated) Pattern() rails.Pattern { return rails.Pattern{Name: "http-advisory"} }

func (ACPUndelegated) Read(doc jsonv.Value) (rails.Read, error) { return acpRead(doc) }

func (ACPUndelegated) Choose(read rails.Read, _ string, _ *jsonv.Object, _ int64, _ string) (jsonv.Value, error) {
	if len(read.Options) != 1 {
		return nil, acp("no-payable-option", "no session")
	}
	return jsonv.Obj("session", read.Options[0]), nil
}

func (ACPUndelegated) Build(jsonv.Value, []byte, atr.Hash) (rails.Unsigned, error) {
	return nil, rails.Refuse("acp/nothing-to-sign")
}

func (ACPUndelegated) Request(rails.Unsigned) (rails.Request, error) {
	return nil, rails.Refuse("acp/nothing-to-sign")
}

func (ACPUndelegated) Complete(rails.Unsigned, jsonv.Value, rails.Chosen) (rails.Completion, error) {
	return rails.Completion{}, rails.Refuse("acp/nothing-to-sign")
}

// Bound: the buyer signed nothing that could carry H.
func (ACPUndelegated) Bound(jsonv.Value) (string, error) {
	return "", acp("not-buyer-signed", "the undelegated checkout has no buyer-signed payment")
}

// Summarize: the gate builds no signing request (errNothingSigned).
func (ACPUndelegated) Summarize(rails.Request) (rails.Grant, error) {
	return rails.Grant{}, errNothingSigned
}

// Inspect reads the session as completed, {session: …} (what Choose keeps):
// H its id, the currency and total it states; nobody signed it.
func (ACPUndelegated) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	o, _ := jsonv.AsObject(payment)
	s, ok := o.Get("session")
	if !ok || o.Len() != 1 {
		return rails.Inspection{}, acp("session-malformed", "the completed session is not {session: …}")
	}
	r, err := ACPReadSession(s)
	if err != nil {
		return rails.Inspection{}, err
	}
	so, _ := jsonv.AsObject(s)
	g, err := checkoutGrant(so)
	if err != nil {
		return rails.Inspection{}, err
	}
	return rails.Inspection{Pairing: ACPUndelegatedID, Kind: "session", Grant: g, H: r.H,
		WhereH:  "the session's id (and metadata.legal_context.value beside it)",
		Details: jsonv.Obj("signedBy", "nobody: the handler requires no delegate_payment", "proof", noProof)}, nil
}
