package pay

import (
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

// This file is the Transport's side of unbound payments (docs/protocol.md,
// "Unbound payments"): an offer that publishes no terms is paid only when
// the Transport's Policy allows it (PolicyConfig.AllowUnbound), by a pairing
// that implements rails.Unbound, through gate.TransactUnbound. Without the
// opt-in such an offer is declined exactly as before (offer-unreadable,
// x402/no-legal-context or mpp/no-legal-context).

// unboundAllower is a Policy that can allow unbound payments (*Policy).
type unboundAllower interface{ AllowsUnbound() bool }

// allowsUnbound reports whether the Transport's Policy opted in. Gate.Policy
// is not asked here: an opt-in must be the payer's spend policy's, which
// also limits the payment.
func (t *Transport) allowsUnbound() bool {
	a, ok := t.Policy.(unboundAllower)
	return ok && a.AllowsUnbound()
}

// noTerms reports the decline of an offer that publishes no legal context
// at all; a malformed one, or a link of another scheme, is no such offer.
func noTerms(d *gate.Decline) bool {
	return d != nil && d.Code == gate.OfferUnreadable &&
		(d.Detail == x402.CodeNoLegalContext || d.Detail == mpp.CodeNoLegalContext)
}

// pickUnbound is pickPairing for an offer without terms: the first pairing
// of namespace ns that implements rails.Unbound, reads doc as an offer
// without terms and has an option the account can pay. When none has, and a
// pairing without unbound payments would pay the offer had it published
// terms, the decline names it (gate.UnboundNotSupported); otherwise it is
// the first unbound pairing's refusal.
func pickUnbound(g *gate.Gate, doc jsonv.Value, account, ns string, inputs func(string) *jsonv.Object) (string, *gate.Decline) {
	reg := g.Pairings
	if reg == nil {
		reg = defaultRegistry()
	}
	now := time.Now().Unix()
	if g.Now != nil {
		now = g.Now().Unix()
	}
	var first *gate.Decline
	for _, p := range reg.All() {
		ub, ok := p.(rails.Unbound)
		if !ok || rails.Namespace(p.ID()) != ns {
			continue
		}
		read, err := guarded(func() (rails.Read, error) { return ub.ReadUnbound(doc) })
		if err != nil {
			if first == nil {
				first = &gate.Decline{Code: gate.OfferUnreadable, Detail: code(err, ns+"/read-failed")}
			}
			continue
		}
		in := inputs(p.ID())
		if _, err := guarded(func() (jsonv.Value, error) { return p.Choose(read, account, in, now, "") }); err != nil {
			if first == nil || first.Code == gate.OfferUnreadable {
				first = &gate.Decline{Code: gate.NoPayableOption, Detail: code(err, ns+"/no-payable-option")}
			}
			continue
		}
		return p.ID(), nil
	}
	if id := payerWithTerms(g, doc, account, ns, inputs); id != "" {
		if p, _ := reg.Lookup(id); p != nil {
			if _, ok := p.(rails.Unbound); !ok {
				return "", &gate.Decline{Code: gate.NoPayableOption, Detail: gate.UnboundNotSupported(id)}
			}
		}
	}
	if first == nil {
		first = &gate.Decline{Code: gate.NoPayableOption, Detail: gate.UnboundNotSupported(protocolName(ns) + " offers like this one")}
	}
	return "", first
}

// stand-in terms for payerWithTerms: nothing is fetched, built or signed
// with them.
var (
	standInHash = atr.Sum(nil)
	standInLink = "https://unbound.invalid/terms"
)

// payerWithTerms is the pairing that would pay doc had it published terms:
// doc with stand-in terms placed (x402: the legalContext extension; MPP: in
// each challenge in turn), read and chosen by pickPairing. "" when none.
func payerWithTerms(g *gate.Gate, doc jsonv.Value, account, ns string, inputs func(string) *jsonv.Object) string {
	var docs []jsonv.Value
	switch ns {
	case ProtocolX402:
		if o, ok := jsonv.AsObject(doc); ok {
			if placed, err := guarded(func() (*jsonv.Object, error) { return x402.Advertise(o, standInHash, standInLink, "") }); err == nil {
				docs = append(docs, placed)
			}
		}
	case ProtocolMPP:
		list, _ := jsonv.AsArray(doc)
		for _, c := range list {
			option, ok := jsonv.AsObject(c)
			if !ok {
				continue
			}
			if placed, err := guarded(func() ([]jsonv.Value, error) { return mpp.Place(list, standInHash, standInLink, option, "") }); err == nil {
				docs = append(docs, placed)
			}
		}
	}
	for _, d := range docs {
		if id, _, decline := pickPairing(g, d, account, ns, false, inputs); decline == nil {
			return id
		}
	}
	return ""
}
