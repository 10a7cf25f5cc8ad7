package pay

import (
	"context"
	"net/http"
	"time"
)

// Journal keeps the payments a Transport signs, so that a payment signed
// but never answered (the process died before or while sending it, the
// connection broke) is presented again instead of being signed anew. The
// library's default is none; package ledger keeps one in a file or in
// PostgreSQL (ledger.Journal).
//
// The Transport calls Record after signing and before sending: an error
// there stops the payment, which is not sent (its budget stays spent: a
// signature exists). After the seller answered, it calls Answered with the
// status. On a 402 it first asks Unanswered for a payment already sent to
// the same URL and, if one is still payable, presents that one again.
//
// Implementations must be safe for concurrent use. Two requests may present
// the same unanswered payment at once; a signed payment settles at most
// once, whoever presents it.
type Journal interface {
	// Record keeps r and returns its id.
	Record(ctx context.Context, r *Result) (id string, err error)
	// Answered marks payment id answered with the seller's HTTP status; 0
	// means given up unanswered (it expired before it could be presented).
	Answered(ctx context.Context, id string, status int) error
	// Unanswered takes the oldest payment sent to url that waits for an
	// answer and that no live request is sending; nil when there is none.
	// The payment is then this request's until Answered or Unsent.
	Unanswered(ctx context.Context, url string) (id string, r *Result, err error)
	// Unsent lets go of payment id without an answer: sending it failed,
	// and a later request to its URL presents it again.
	Unsent(ctx context.Context, id string)
}

// DetailJournalUnavailable: the Journal failed. Before anything was signed
// (looking for an unanswered payment) nothing is signed; after signing
// (recording it) the payment is not sent. Code no-payable-option.
const DetailJournalUnavailable = "pay/journal-unavailable"

// unanswered finds a journaled payment to present again for req, giving up
// (Answered with 0) those that are no longer payable. nil, nil: sign anew.
func (t *Transport) unanswered(ctx context.Context, req *http.Request) (*Result, string, error) {
	if t.Journal == nil {
		return nil, "", nil
	}
	for {
		id, r, err := t.Journal.Unanswered(ctx, req.URL.String())
		if err != nil {
			return nil, "", t.declined(req, refuse(DetailJournalUnavailable+": "+err.Error()))
		}
		if r == nil {
			return nil, "", nil
		}
		if req.Header.Get(r.HeaderName) != "" {
			// The request carries its own value of that header (an
			// Authorization: Bearer token, say): sending the payment would
			// replace it. Left for another request; this one goes the way
			// a new payment would.
			t.Journal.Unsent(ctx, id)
			return nil, "", nil
		}
		if r.Summary.PayableUntil.After(t.gateNow()) {
			r.origin, r.Again = origin(req.URL), true
			t.logger().InfoContext(ctx, "pay: presenting a journaled payment again", "url", logURL(req.URL), "id", id)
			return r, id, nil
		}
		// Expired: it can no longer be settled (if it was before the
		// crash, its budget is spent all the same).
		if err := t.Journal.Answered(ctx, id, 0); err != nil {
			return nil, "", t.declined(req, refuse(DetailJournalUnavailable+": "+err.Error()))
		}
	}
}

// unsent lets go of a journaled payment whose sending failed.
func (t *Transport) unsent(ctx context.Context, id string) {
	if t.Journal != nil && id != "" {
		t.Journal.Unsent(ctx, id)
	}
}

// record journals a payment just signed; an error means it is not sent.
func (t *Transport) record(ctx context.Context, req *http.Request, res *Result) (string, error) {
	if t.Journal == nil {
		return "", nil
	}
	id, err := t.Journal.Record(ctx, res)
	if err != nil {
		t.logger().ErrorContext(ctx, "pay: not sending a payment that could not be journaled", "url", logURL(req.URL), "err", err)
		return "", t.declined(req, refuse(DetailJournalUnavailable+": "+err.Error()))
	}
	return id, nil
}

// answered marks a journaled payment answered. A failure is logged: the
// payment stays unanswered and is presented again, which settles nothing
// twice.
func (t *Transport) answered(ctx context.Context, req *http.Request, id string, status int) {
	if t.Journal == nil || id == "" {
		return
	}
	if err := t.Journal.Answered(context.WithoutCancel(ctx), id, status); err != nil {
		t.logger().WarnContext(ctx, "pay: marking a payment answered", "url", logURL(req.URL), "id", id, "err", err)
	}
}

func (t *Transport) gateNow() time.Time {
	if g := t.gate(); g.Now != nil {
		return g.Now()
	}
	return time.Now()
}
