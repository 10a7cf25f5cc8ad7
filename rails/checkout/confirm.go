package checkout

// What a confirm-only checkout commits the buyer to (rails.ConfirmSummarizer):
// the gate signs nothing for these pairings, so a spend policy reads the
// commitment here instead of from a signing request (docs/checkout.md, "The
// spend policy and confirm-only checkouts").

import (
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// The networks a spend policy names the fiat checkouts by (a Limit's
// Network): one per protocol, since neither names a chain. ACK names its
// own network in each payment option.
const (
	ACPNetwork = "acp:checkout"
	UCPNetwork = "ucp:checkout"
	AP2Network = "ap2:checkout"
)

var (
	_ rails.ConfirmSummarizer = ACPDelegated{}
	_ rails.ConfirmSummarizer = ACPUndelegated{}
	_ rails.ConfirmSummarizer = AP2{}
	_ rails.ConfirmSummarizer = UCP{}
	_ rails.ConfirmSummarizer = ACK{}
)

// choiceMember is the one member of a checkout's choice object.
func choiceMember(chosen rails.Chosen, k string) (jsonv.Value, bool) {
	c, _ := jsonv.AsObject(chosen.Choice)
	return c.Get(k)
}

// SummarizeConfirm: the allowance the gate builds lets the PSP charge up to
// max_amount to merchant_id until expires_at, so that is what is committed
// (not the session's total, which Build already keeps within max_amount).
func (p ACPDelegated) SummarizeConfirm(chosen rails.Chosen, h atr.Hash) (rails.Grant, error) {
	a, err := ACPBuildAllowance(chosen.Choice, h.String())
	if err != nil {
		return rails.Grant{}, err
	}
	g, err := p.Grant(a)
	if err != nil {
		return rails.Grant{}, err
	}
	g.Network = ACPNetwork
	return g, nil
}

// SummarizeConfirm: completing the session commits to its total, in its
// currency; a session that states no total is refused.
func (ACPUndelegated) SummarizeConfirm(chosen rails.Chosen, _ atr.Hash) (rails.Grant, error) {
	s, _ := choiceMember(chosen, "session")
	so, ok := jsonv.AsObject(s)
	if !ok {
		return rails.Grant{}, acp("choice-malformed", "the choice holds no session")
	}
	g, err := checkoutGrant(so)
	if err != nil {
		return rails.Grant{}, err
	}
	g.Network = ACPNetwork
	return g, nil
}

// SummarizeConfirm: the user's mandate approves the checkout JWT's total;
// the gate's confirm is the buyer's going ahead with it.
func (AP2) SummarizeConfirm(chosen rails.Chosen, _ atr.Hash) (rails.Grant, error) {
	j, _ := choiceMember(chosen, "checkout_jwt")
	js, _ := jsonv.AsString(j)
	payload, ok := jwtPayload(js)
	if !ok {
		return rails.Grant{}, ap2("jws-malformed", "the chosen checkout JWT's payload")
	}
	g, err := checkoutGrant(payload)
	if err != nil {
		return rails.Grant{}, err
	}
	g.Network = AP2Network
	return g, nil
}

// SummarizeConfirm: the checkout's (or booking's) total, in its currency.
func (u UCP) SummarizeConfirm(chosen rails.Chosen, _ atr.Hash) (rails.Grant, error) {
	d, _ := choiceMember(chosen, u.optionKey())
	do, ok := jsonv.AsObject(d)
	if !ok {
		return rails.Grant{}, ucp("checkout-malformed", "the choice holds no %s", u.optionKey())
	}
	g, err := checkoutGrant(do)
	if err != nil {
		return rails.Grant{}, err
	}
	g.Network = UCPNetwork
	return g, nil
}

// SummarizeConfirm: the payment option chosen, as the seller's token states
// it (amount, currency, network, recipient): what the buyer goes on to pay.
func (ACK) SummarizeConfirm(chosen rails.Chosen, _ atr.Hash) (rails.Grant, error) {
	o, _ := choiceMember(chosen, "option")
	g, _, err := ackOption(o)
	if err != nil {
		return rails.Grant{}, err
	}
	// An option whose network is a plain name ("card") is named "ack:card"
	// for a policy, whose limits are keyed by CAIP-2 networks.
	if !strings.Contains(g.Network, ":") {
		g.Network = "ack:" + g.Network
	}
	return g, nil
}
