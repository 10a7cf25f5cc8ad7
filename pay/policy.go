package pay

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/rails/evm"
)

// DefaultMaxPayable is the ceiling on how long a signed payment stays payable
// when PolicyConfig.MaxPayable is zero. A signed EIP-3009 authorization can
// be settled by whoever holds it until validBefore, so the window a seller
// asks for (maxTimeoutSeconds, 60 s in the vectors) is also the window in
// which a leaked payment can be spent.
const DefaultMaxPayable = 10 * time.Minute

// Limit is what may be paid in one asset on one network.
type Limit struct {
	Network string // CAIP-2, e.g. "eip155:84532"; required
	// Asset is the token contract (0x and 40 hex digits, any case). Empty
	// means every asset on Network, each with its own MaxAmount and Budget;
	// a Limit naming the asset takes precedence over it.
	Asset string
	// MaxAmount is the most one payment may move, in the asset's atomic
	// units; required.
	MaxAmount *big.Int
	// Budget is the most all payments of this process may move in the
	// asset, cumulatively; nil means no cumulative ceiling.
	Budget *big.Int
}

// PolicyConfig configures NewPolicy. Everything not allowed is refused: an
// asset without a Limit is never paid.
type PolicyConfig struct {
	Limits []Limit
	// Networks, when not empty, further restricts the networks the Limits
	// name.
	Networks []string
	// Payees, when not empty, are the only addresses paid (any case).
	Payees []string
	// MaxPayable caps validBefore − now; zero means DefaultMaxPayable.
	MaxPayable time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Policy is a spend policy for gate.Gate.Policy (and Transport.Policy). It
// judges the Summary of the signing request, in this order, refusing with a
// *gate.Decline (no-payable-option) whose detail is the first failed check:
// request readable (policy/request-unreadable), network allowed
// (policy/network-not-allowed), asset allowed (policy/asset-not-allowed),
// payee allowed (policy/payee-not-allowed), amount within the asset's
// MaxAmount (policy/amount-above-maximum), validBefore − now within
// MaxPayable (policy/payable-too-long), and last the budget
// (policy/budget-exhausted).
//
// The budget is reserved in Allow, atomically with its check, so concurrent
// payments cannot overspend it. A reservation is kept even when the payment
// later fails, because once a signature exists it may be settled whatever
// the seller answered; Release gives it back, and the Transport calls
// Release only when nothing was signed (a later policy, the BeforeSign hook
// or the signer refused, or the gate declined before signing). A caller
// using Policy directly with gate.Gate calls Release itself, once per Allow
// that succeeded, if it knows no signature left the process.
//
// A Policy is safe for concurrent use.
type Policy struct {
	limits     map[limitKey]limit
	networks   map[string]bool
	payees     map[string]bool // lowercase
	maxPayable time.Duration
	now        func() time.Time

	mu    sync.Mutex
	spent map[limitKey]*big.Int // per concrete asset, lowercase
}

type limitKey struct{ network, asset string } // asset lowercase, "" for the wildcard

type limit struct{ max, budget *big.Int }

var (
	_ gate.Policy = (*Policy)(nil)
	_ Releaser    = (*Policy)(nil)
)

// NewPolicy checks c and returns its policy.
func NewPolicy(c PolicyConfig) (*Policy, error) {
	p := &Policy{
		limits: map[limitKey]limit{}, networks: map[string]bool{}, payees: map[string]bool{},
		maxPayable: c.MaxPayable, now: c.Now, spent: map[limitKey]*big.Int{},
	}
	if p.maxPayable == 0 {
		p.maxPayable = DefaultMaxPayable
	}
	if p.maxPayable < 0 {
		return nil, errors.New("pay: policy: MaxPayable is negative")
	}
	if p.now == nil {
		p.now = time.Now
	}
	for _, l := range c.Limits {
		if l.Network == "" {
			return nil, errors.New("pay: policy: a limit names no network")
		}
		if l.Asset != "" && !evm.IsAddress(l.Asset) {
			return nil, fmt.Errorf("pay: policy: %q is not an asset address", l.Asset)
		}
		if l.MaxAmount == nil || l.MaxAmount.Sign() < 0 || l.Budget != nil && l.Budget.Sign() < 0 {
			return nil, fmt.Errorf("pay: policy: the limit for %s %s needs a MaxAmount ≥ 0 and a Budget ≥ 0 if any", l.Network, l.Asset)
		}
		k := limitKey{l.Network, strings.ToLower(l.Asset)}
		if _, dup := p.limits[k]; dup {
			return nil, fmt.Errorf("pay: policy: two limits for %s %s", l.Network, l.Asset)
		}
		p.limits[k] = limit{max: new(big.Int).Set(l.MaxAmount), budget: copyInt(l.Budget)}
	}
	for _, n := range c.Networks {
		p.networks[n] = true
	}
	for _, a := range c.Payees {
		if !evm.IsAddress(a) {
			return nil, fmt.Errorf("pay: policy: %q is not a payee address", a)
		}
		p.payees[strings.ToLower(a)] = true
	}
	return p, nil
}

func copyInt(n *big.Int) *big.Int {
	if n == nil {
		return nil
	}
	return new(big.Int).Set(n)
}

// Allow implements gate.Policy.
func (p *Policy) Allow(_ context.Context, ps gate.PaymentSummary) error {
	if p == nil {
		return errors.New("pay: nil *Policy allows nothing") // a typed nil in gate.Policy
	}
	s, err := Summarize(ps)
	if err != nil {
		return err
	}
	lim, key, d := p.limitFor(s)
	if d != nil {
		return d
	}
	if len(p.payees) > 0 && !p.payees[strings.ToLower(s.Payee)] {
		return refuse(DetailPayeeNotAllowed)
	}
	if s.Amount.Cmp(lim.max) > 0 {
		return refuse(DetailAmountAboveMaximum)
	}
	if s.PayableUntil.Sub(p.now()) > p.maxPayable {
		return refuse(DetailPayableTooLong)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	spent := p.spent[key]
	if spent == nil {
		spent = new(big.Int)
	}
	next := new(big.Int).Add(spent, s.Amount)
	if lim.budget != nil && next.Cmp(lim.budget) > 0 {
		return refuse(DetailBudgetExhausted)
	}
	p.spent[key] = next
	return nil
}

// limitFor finds the limit for the summary's network and asset: the one
// naming the asset, else the network's wildcard.
func (p *Policy) limitFor(s Summary) (limit, limitKey, *gate.Decline) {
	key := limitKey{s.Network, strings.ToLower(s.Asset)}
	if len(p.networks) > 0 && !p.networks[s.Network] {
		return limit{}, key, refuse(DetailNetworkNotAllowed)
	}
	if l, ok := p.limits[key]; ok {
		return l, key, nil
	}
	if l, ok := p.limits[limitKey{s.Network, ""}]; ok {
		return l, key, nil
	}
	for k := range p.limits {
		if k.network == s.Network {
			return limit{}, key, refuse(DetailAssetNotAllowed)
		}
	}
	return limit{}, key, refuse(DetailNetworkNotAllowed)
}

// Release gives back the budget an Allow reserved for ps. Call it at most
// once per successful Allow, and only when no signature for ps exists.
func (p *Policy) Release(_ context.Context, ps gate.PaymentSummary) {
	s, err := Summarize(ps)
	if p == nil || err != nil {
		return
	}
	key := limitKey{s.Network, strings.ToLower(s.Asset)}
	p.mu.Lock()
	defer p.mu.Unlock()
	if spent := p.spent[key]; spent != nil {
		spent.Sub(spent, s.Amount)
		if spent.Sign() < 0 {
			spent.SetInt64(0)
		}
	}
}

// Spent is what this process has reserved so far in asset on network.
func (p *Policy) Spent(network, asset string) *big.Int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := p.spent[limitKey{network, strings.ToLower(asset)}]; n != nil {
		return new(big.Int).Set(n)
	}
	return new(big.Int)
}

// Releaser is a gate.Policy that can give back what its Allow reserved. The
// Transport calls Release on every policy that allowed a payment it then did
// not sign.
type Releaser interface {
	Release(ctx context.Context, ps gate.PaymentSummary)
}
