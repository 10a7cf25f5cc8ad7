package stripeseller

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Processor answers, in process, the Stripe API calls a seller of these
// pairings makes, with the checks Stripe makes of them
// (https://docs.stripe.com/agentic-commerce/concepts/shared-payment-tokens,
// https://docs.stripe.com/api/subscriptions/create): a Shared Payment
// Token is granted to one seller profile, for one currency, up to an
// amount, until a time, and is used once; a PaymentMethod is reusable by
// the profile it was set up for. Nothing here calls Stripe: it is the
// demo's and the tests' stand-in, holding the tokens it issued.
type Processor struct {
	Now func() time.Time

	mu      sync.Mutex
	tokens  map[string]*TokenGrant
	methods map[string]string // PaymentMethod → the profile it was set up for
	Intents []PaymentIntent
	Subs    []Subscription
}

// TokenGrant is what the buyer asked Stripe for when it obtained a token:
// its usage limits and the seller it is for.
type TokenGrant struct {
	NetworkID string // the seller's Business Network profile
	Currency  string
	MaxAmount int64
	ExpiresAt time.Time
	used      bool
}

// PaymentIntent is a confirmed charge, with the metadata the seller set.
type PaymentIntent struct {
	ID       string
	Amount   int64
	Currency string
	Metadata map[string]string
}

// Subscription is an active subscription whose first invoice was paid.
type Subscription struct {
	ID, Invoice   string
	Amount        int64
	Currency      string
	Unit          string
	Count         int64
	PaymentMethod string
	Metadata      map[string]string
}

// NewProcessor returns a processor at the wall clock.
func NewProcessor() *Processor {
	return &Processor{Now: time.Now, tokens: map[string]*TokenGrant{}, methods: map[string]string{}}
}

func newID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// IssueToken is the buyer's side, done before the gate runs: Stripe issues
// a Shared Payment Token with these limits.
func (p *Processor) IssueToken(g TokenGrant) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	id := newID("spt_")
	p.tokens[id] = &g
	return id
}

// SetUpPaymentMethod is the buyer's side of a subscription: a
// PaymentMethod set up for off-session use by the profile networkID.
func (p *Processor) SetUpPaymentMethod(networkID string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	id := newID("pm_")
	p.methods[id] = networkID
	return id
}

// Errors Stripe's API answers with, by the checks these calls make.
var (
	ErrNoSuchToken     = errors.New("stripe: no such shared payment token")
	ErrTokenUsed       = errors.New("stripe: the shared payment token was already used")
	ErrTokenExpired    = errors.New("stripe: the shared payment token has expired")
	ErrTokenOtherParty = errors.New("stripe: the shared payment token was not granted to this seller")
	ErrTokenLimits     = errors.New("stripe: the charge exceeds the shared payment token's usage limits")
	ErrNoSuchMethod    = errors.New("stripe: no such payment method for this seller")
)

// CreatePaymentIntent confirms a charge of amount in currency on the token
// for the seller networkID, with the seller's metadata.
func (p *Processor) CreatePaymentIntent(networkID string, amount int64, currency, spt string, metadata map[string]string) (PaymentIntent, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	g, ok := p.tokens[spt]
	switch {
	case !ok:
		return PaymentIntent{}, ErrNoSuchToken
	case g.used:
		return PaymentIntent{}, ErrTokenUsed
	case !p.Now().Before(g.ExpiresAt):
		return PaymentIntent{}, ErrTokenExpired
	case g.NetworkID != networkID:
		return PaymentIntent{}, ErrTokenOtherParty
	case g.Currency != currency || amount <= 0 || amount > g.MaxAmount:
		return PaymentIntent{}, ErrTokenLimits
	}
	g.used = true
	pi := PaymentIntent{ID: newID("pi_"), Amount: amount, Currency: currency, Metadata: metadata}
	p.Intents = append(p.Intents, pi)
	return pi, nil
}

// CreateSubscription creates a subscription of one fixed-price item for
// the seller networkID on the PaymentMethod and pays its first invoice.
func (p *Processor) CreateSubscription(networkID, pm string, amount int64, currency, unit string, count int64, metadata map[string]string) (Subscription, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if owner, ok := p.methods[pm]; !ok || owner != networkID {
		return Subscription{}, ErrNoSuchMethod
	}
	if amount <= 0 || count <= 0 || (unit != "day" && unit != "week" && unit != "month") {
		return Subscription{}, fmt.Errorf("stripe: invalid recurring price %d %s every %d %s", amount, currency, count, unit)
	}
	s := Subscription{ID: newID("sub_"), Invoice: newID("in_"), Amount: amount, Currency: currency, Unit: unit, Count: count,
		PaymentMethod: pm, Metadata: metadata}
	p.Subs = append(p.Subs, s)
	return s, nil
}
