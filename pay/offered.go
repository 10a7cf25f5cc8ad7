package pay

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
)

// This file pays an offer that came other than as an HTTP 402: a paid MCP
// tool's answer (package mcppay), whose transport carries the offer and the
// payment in JSON-RPC messages rather than in headers. Everything between
// reading the offer and sending the payment is the Transport's own: the
// policies and hooks, the pairing chosen, the terms fetched and compared,
// the unbound opt-in, the journal. Only the sending is the caller's.

// Offered is one offer to pay: Target names what is paid for (an
// mcp://server/tools/NAME URL for a tool) and keys the journal, Protocol
// is ProtocolX402 or ProtocolMPP, and Doc is what the gate reads (the
// PaymentRequired object, or the MPP challenges in their header form).
type Offered struct {
	Target   string
	Protocol string
	Doc      jsonv.Value
}

// Pending is a payment signed (or taken from the journal) and not yet
// answered: the caller sends Result.Signed and then says what came of it,
// Answered or Unsent, exactly once.
type Pending struct {
	Result *Result
	t      *Transport
	req    *http.Request
	id     string // the journal's, "" without one
}

// Answered marks the payment answered: status is an HTTP status the answer
// stands for (200 accepted, 402 refused).
func (p *Pending) Answered(ctx context.Context, status int) {
	p.Result.StatusCode = status
	p.t.answered(ctx, p.req, p.id, status)
}

// Unsent lets go of the payment without an answer: sending it failed, and
// a later offer for the same Target presents it again.
func (p *Pending) Unsent(ctx context.Context) { p.t.unsent(ctx, p.id) }

// PayOffer pays o as RoundTrip pays a 402, and returns the payment for the
// caller to send, or an error wrapping the *gate.Decline (then nothing was
// signed unless the decline's Moved is set). A payment journaled for the
// same Target and never answered is returned again (Result.Again) rather
// than a new one signed.
func (t *Transport) PayOffer(ctx context.Context, o Offered) (*Pending, error) {
	u, err := url.Parse(o.Target)
	if err != nil || u.Scheme == "" {
		return nil, fmt.Errorf("pay: the target %q is not a URL", o.Target)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.Target, nil)
	if err != nil {
		return nil, fmt.Errorf("pay: %w", err)
	}
	if o.Protocol != ProtocolX402 && o.Protocol != ProtocolMPP {
		return nil, fmt.Errorf("pay: unknown protocol %q", o.Protocol)
	}
	if o.Doc == nil {
		detail := DetailRequiredUnreadable
		if o.Protocol == ProtocolMPP {
			detail = "mpp/challenge-malformed"
		}
		return nil, t.declined(req, &gate.Decline{Code: gate.OfferUnreadable, Detail: detail})
	}
	if t.Policy == nil && t.gate().Policy == nil {
		return nil, t.declined(req, &gate.Decline{Code: gate.NoPayableOption, Detail: DetailNoPolicy, Err: errNoPolicy})
	}
	if d := t.originRefused(req); d != nil {
		return nil, t.declined(req, d)
	}
	if t.Signer == nil {
		return nil, errors.New("pay: Transport has no Signer")
	}
	res, id, err := t.unanswered(ctx, req)
	if err != nil {
		return nil, err
	}
	if res == nil {
		chosen, pairing, d := t.choose(ctx, []offer{{protocol: o.Protocol, doc: o.Doc}})
		if d != nil {
			return nil, t.declined(req, d)
		}
		if res, err = t.pay(ctx, req, chosen, pairing); err != nil {
			return nil, err
		}
		if id, err = t.record(ctx, req, res); err != nil {
			return nil, err
		}
	}
	return &Pending{Result: res, t: t, req: req, id: id}, nil
}
