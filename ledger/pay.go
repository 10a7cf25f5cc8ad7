package ledger

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
)

// Budget is s as a pay.Budget, for pay.PolicyConfig.Budget: the policy's
// cumulative budgets kept in s, shared by every process that opens it.
func Budget(s Store) pay.Budget { return budget{s} }

type budget struct{ s Store }

func (b budget) Reserve(ctx context.Context, k pay.BudgetKey, amount, ceiling *big.Int) (string, error) {
	id, err := b.s.Reserve(ctx, Key(k), amount, ceiling)
	if errors.Is(err, ErrBudgetExhausted) {
		return "", pay.ErrBudgetExhausted
	}
	return id, err
}

// Commit and Release treat an unknown id as done, as pay.Budget asks.
func (b budget) Commit(ctx context.Context, id string) error {
	if err := b.s.Commit(ctx, id); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	return nil
}

func (b budget) Release(ctx context.Context, id string) error {
	if err := b.s.Release(ctx, id); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	return nil
}

func (b budget) Spent(ctx context.Context, k pay.BudgetKey) (*big.Int, error) {
	return b.s.Spent(ctx, Key(k))
}

// Journal is s as a pay.Journal, for pay.Transport.Journal.
func Journal(s Store) pay.Journal { return journal{s} }

type journal struct{ s Store }

func (j journal) Record(ctx context.Context, r *pay.Result) (string, error) {
	p := &Payment{
		Pairing: r.Pairing, Protocol: r.Protocol, H: r.H.String(), URL: r.URL,
		HeaderName: r.HeaderName, Header: r.Header, PaymentID: r.PaymentID, ATR: r.ATR,
		Network: r.Summary.Network, Asset: r.Summary.Asset, Payer: r.Summary.Payer, Payee: r.Summary.Payee,
		Amount: r.Summary.Amount, PayableUntil: r.Summary.PayableUntil,
	}
	if r.Signed != nil {
		p.Signed = jsonv.Marshal(r.Signed)
	}
	// A payment that carries the operator's secret (a processor token,
	// card data) is kept redacted, its header replaced by RedactedHeader:
	// it cannot be presented again (Unanswered gives it up), but the
	// secret never rests in the store.
	if rd, ok := redactorOf(r.Pairing); ok && r.Signed != nil {
		p.Signed, p.Header = jsonv.Marshal(rd.Redact(r.Signed)), RedactedHeader
	}
	if err := j.s.Record(ctx, p); err != nil {
		return "", err
	}
	return p.ID, nil
}

func (j journal) Answered(ctx context.Context, id string, status int) error {
	return j.s.Answer(ctx, id, status)
}

func (j journal) Unanswered(ctx context.Context, url string) (string, *pay.Result, error) {
	for {
		p, err := j.s.Claim(ctx, url)
		if err != nil || p == nil {
			return "", nil, err
		}
		if p.Header != RedactedHeader {
			return j.result(p)
		}
		// Kept redacted (Record): nothing to present again, so given up
		// unanswered, as an expired payment is.
		if err := j.s.Answer(ctx, p.ID, 0); err != nil {
			return "", nil, err
		}
	}
}

func (j journal) result(p *Payment) (string, *pay.Result, error) {
	r, err := p.Result()
	if err != nil {
		j.s.Unhold(p.ID)
		return "", nil, err
	}
	return p.ID, r, nil
}

func (j journal) Unsent(_ context.Context, id string) { j.s.Unhold(id) }

// RedactedHeader is what the journal keeps as the header of a payment that
// carried the operator's secret (rails.Redactor): never a header value sent.
const RedactedHeader = "(redacted: the payment carried the operator's secret and cannot be presented again)"

var registry = sync.OnceValue(all.Default)

// redactorOf is the pairing's rails.Redactor, when it has one.
func redactorOf(pairing string) (rails.Redactor, bool) {
	p, ok := registry().Lookup(pairing)
	if !ok {
		return nil, false
	}
	rd, ok := p.(rails.Redactor)
	return rd, ok
}

// Result is the journaled payment as the pay.Result that was sent (without
// the seller's answer).
func (p *Payment) Result() (*pay.Result, error) {
	h, err := atr.ParseHash(p.H)
	if err != nil {
		return nil, fmt.Errorf("ledger: payment %s: %w", p.ID, err)
	}
	r := &pay.Result{
		URL: p.URL, Protocol: p.Protocol, Pairing: p.Pairing, ATR: p.ATR, H: h,
		HeaderName: p.HeaderName, Header: p.Header, PaymentID: p.PaymentID,
		Summary: pay.Summary{Pairing: p.Pairing, H: h, Grant: rails.Grant{
			Network: p.Network, Asset: p.Asset, Decimals: rails.KnownDecimals(p.Network, p.Asset), Amount: p.Amount,
			Payer: p.Payer, Payee: p.Payee, PayableUntil: p.PayableUntil,
		}},
	}
	// An unbound payment (pay.Result.Unbound) was journaled with no terms
	// and a zero H; it is presented again as what it is.
	if h == (atr.Hash{}) && len(p.ATR) == 0 {
		r.Unbound, r.Summary.Unbound = true, true
	}
	if len(p.Signed) > 0 {
		if r.Signed, err = jsonv.Parse(p.Signed); err != nil {
			return nil, fmt.Errorf("ledger: payment %s: the payment is unreadable: %w", p.ID, err)
		}
	}
	if strings.TrimSpace(r.HeaderName) == "" {
		return nil, fmt.Errorf("ledger: payment %s names no header", p.ID)
	}
	return r, nil
}
