package pay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
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
	// Network is CAIP-2, exactly as the signing request names it:
	// lowercase namespace, e.g. "eip155:84532"; required.
	Network string
	// Asset is the asset as the signing request names it: on eip155 the
	// token contract (0x and 40 hex digits, any case). Empty means every
	// asset on Network, each with its own MaxAmount and Budget; a Limit
	// naming the asset takes precedence over it.
	Asset string
	// MaxAmount is the most one payment may move, in the asset's atomic
	// units; required.
	MaxAmount *big.Int
	// Budget is the most all payments may move in the asset, cumulatively
	// (as PolicyConfig.Budget accounts for them); nil means no cumulative
	// ceiling.
	Budget *big.Int
}

// PolicyConfig configures NewPolicy. Everything not allowed is refused: an
// asset without a Limit is never paid.
type PolicyConfig struct {
	Limits []Limit
	// Networks, when not empty, further restricts the networks the Limits
	// name.
	Networks []string
	// Payees, when not empty, are the only addresses paid (EVM addresses in
	// any case, others exactly).
	Payees []string
	// MaxPayable caps validBefore − now; zero means DefaultMaxPayable.
	MaxPayable time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Budget accounts for the Limits' cumulative budgets; nil means a new
	// MemoryBudget (totals that last as long as the process). Share one
	// Budget between Policies (or processes, with a durable one) to share
	// the totals.
	Budget Budget
	// AllowUnbound lets the Policy allow a payment to an offer that
	// publishes no terms (gate.PaymentSummary.Unbound): one that binds the
	// buyer to nothing it could read first (docs/protocol.md, "Unbound
	// payments"). Off, such a payment is refused (policy/unbound-not-allowed),
	// and a Transport whose Policy is off declines those offers as it
	// always did. Every limit applies to it as to any payment.
	AllowUnbound bool
}

// Policy is a spend policy for gate.Gate.Policy (and Transport.Policy). It
// judges the Summary of the signing request, in this order, refusing with a
// *gate.Decline (no-payable-option) whose detail is the first failed check:
// request readable (policy/request-unreadable), an unbound payment allowed
// (policy/unbound-not-allowed, unless AllowUnbound), network allowed
// (policy/network-not-allowed), asset allowed (policy/asset-not-allowed),
// payee allowed (policy/payee-not-allowed), amount within the asset's
// MaxAmount (policy/amount-above-maximum), validBefore − now within
// MaxPayable (policy/payable-too-long), and last the budget
// (policy/budget-exhausted, or policy/budget-unavailable when the Budget
// failed). A refusal's detail goes on to name the network, the asset and
// the amount asked: "policy/amount-above-maximum: 2000000 of
// eip155:84532 0x036c… (at most 10000)".
//
// What a payment counts (Summary.Counted) is its amount; for a payment in
// a held channel, what it adds to the channel's signed amount (and it has
// no deadline of its own: the ceiling does not apply); for a recurring
// grant (a key authorization), its limit for every period that starts
// before it expires.
//
// The budget is reserved in Allow, atomically with its check, so concurrent
// payments cannot overspend it. Policy is a gate.Reserver: the gate commits
// the reservation once a signature left it and releases it when nothing
// was signed (a later policy, the BeforeSign hook or the signer refused,
// or the gate dropped what was signed). A reservation is kept when the
// signature left, whatever the seller answered: it may be settled.
//
// A Policy is safe for concurrent use.
type Policy struct {
	limits     map[BudgetKey]limit // Asset "" for the network's wildcard
	networks   map[string]bool
	payees     map[string]bool // assetKey spelling
	maxPayable time.Duration
	now        func() time.Time
	budget     Budget
	unbound    bool

	mu      sync.Mutex
	pending map[rails.Request][]string // reservation ids by the request they were made for
}

type limit struct{ max, budget *big.Int }

var (
	_ gate.Policy   = (*Policy)(nil)
	_ gate.Reserver = (*Policy)(nil)
)

// NewPolicy checks c and returns its policy. A limit spelled other than
// requests spell it (a namespace in capitals, a chain id with a leading
// zero, spaces) is an error here rather than a refusal of every payment.
func NewPolicy(c PolicyConfig) (*Policy, error) {
	p := &Policy{
		limits: map[BudgetKey]limit{}, networks: map[string]bool{}, payees: map[string]bool{},
		maxPayable: c.MaxPayable, now: c.Now, budget: c.Budget, pending: map[rails.Request][]string{},
		unbound: c.AllowUnbound,
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
	if p.budget == nil {
		p.budget = NewMemoryBudget()
	}
	for _, l := range c.Limits {
		if err := CheckNetwork(l.Network); err != nil {
			return nil, fmt.Errorf("pay: policy: %w", err)
		}
		if err := checkAsset(l.Network, l.Asset); err != nil {
			return nil, fmt.Errorf("pay: policy: %w", err)
		}
		if l.MaxAmount == nil || l.MaxAmount.Sign() < 0 || l.Budget != nil && l.Budget.Sign() < 0 {
			return nil, fmt.Errorf("pay: policy: the limit for %s needs a MaxAmount ≥ 0 and a Budget ≥ 0 if any", limitName(l.Network, l.Asset))
		}
		k := BudgetKey{l.Network, assetKey(l.Asset)}
		if _, dup := p.limits[k]; dup {
			return nil, fmt.Errorf("pay: policy: two limits for %s", limitName(l.Network, l.Asset))
		}
		p.limits[k] = limit{max: new(big.Int).Set(l.MaxAmount), budget: copyInt(l.Budget)}
	}
	for _, n := range c.Networks {
		if err := CheckNetwork(n); err != nil {
			return nil, fmt.Errorf("pay: policy: %w", err)
		}
		p.networks[n] = true
	}
	for _, a := range c.Payees {
		if !evm.IsAddress(a) && !isOtherAddress(a) {
			return nil, fmt.Errorf("pay: policy: %q is not a payee address", a)
		}
		p.payees[assetKey(a)] = true
	}
	return p, nil
}

func limitName(network, asset string) string {
	if asset == "" {
		return network + " (any asset)"
	}
	return network + " " + asset
}

// CheckNetwork reports whether network is a CAIP-2 chain id spelled as
// signing requests spell it: a namespace of 3 to 8 lowercase letters,
// digits or '-', a colon, and a reference of 1 to 32 letters, digits, '-'
// or '_'; on eip155 the reference is a decimal chain id without leading
// zeros ("eip155:84532", not "EIP155:84532" or "eip155:084532").
func CheckNetwork(network string) error {
	ns, ref, ok := strings.Cut(network, ":")
	bad := func(why string) error { return fmt.Errorf("network %q is not a CAIP-2 chain id: %s", network, why) }
	if !ok {
		return bad("no colon between namespace and reference")
	}
	if len(ns) < 3 || len(ns) > 8 {
		return bad("the namespace has 3 to 8 characters")
	}
	for _, r := range ns {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return bad("the namespace is lowercase letters, digits and '-'")
		}
	}
	if len(ref) < 1 || len(ref) > 32 {
		return bad("the reference has 1 to 32 characters")
	}
	for _, r := range ref {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return bad("the reference is letters, digits, '-' and '_'")
		}
	}
	if ns == "eip155" && (strings.Trim(ref, "0123456789") != "" || ref[0] == '0') {
		return bad("an eip155 reference is a decimal chain id without leading zeros")
	}
	return nil
}

// checkAsset: on eip155 an asset is a token contract; elsewhere any
// spelling without spaces.
func checkAsset(network, asset string) error {
	if asset == "" {
		return nil
	}
	if strings.HasPrefix(network, "eip155:") && !evm.IsAddress(asset) {
		return fmt.Errorf("%q is not an asset address (0x and 40 hex digits) on %s", asset, network)
	}
	if strings.TrimSpace(asset) != asset || strings.ContainsAny(asset, " \t\r\n") {
		return fmt.Errorf("asset %q has spaces", asset)
	}
	return nil
}

// isOtherAddress is a payee address of a chain other than the EVM's, as far
// as spelling goes: 25 to 64 letters and digits (XRPL, Solana and Stellar
// addresses all are), and no 0x prefix.
func isOtherAddress(a string) bool {
	if len(a) < 25 || len(a) > 64 || strings.HasPrefix(strings.ToLower(a), "0x") {
		return false
	}
	for _, r := range a {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// assetKey is how an asset or an address is compared: EVM addresses
// without regard to case, everything else exactly.
func assetKey(a string) string {
	if evm.IsAddress(a) {
		return strings.ToLower(a)
	}
	return a
}

func copyInt(n *big.Int) *big.Int {
	if n == nil {
		return nil
	}
	return new(big.Int).Set(n)
}

// AllowsUnbound reports whether the Policy was configured with
// AllowUnbound. A Transport pays offers without terms only when its Policy
// says so.
func (p *Policy) AllowsUnbound() bool { return p != nil && p.unbound }

// Allow implements gate.Policy.
func (p *Policy) Allow(ctx context.Context, ps gate.PaymentSummary) error {
	if p == nil {
		return errors.New("pay: nil *Policy allows nothing") // a typed nil in gate.Policy
	}
	s, err := Summarize(ps)
	if err != nil {
		return err
	}
	now := p.now()
	if s.Unbound && !p.unbound {
		return refuseAsked(DetailUnboundNotAllowed, s, s.Counted(now), "the offer publishes no terms")
	}
	counted := s.Counted(now)
	lim, key, d := p.limitFor(s, counted)
	if d != nil {
		return d
	}
	if len(p.payees) > 0 && !p.payees[assetKey(s.Payee)] {
		return refuseAsked(DetailPayeeNotAllowed, s, counted, "to "+s.Payee)
	}
	if counted.Cmp(lim.max) > 0 {
		return refuseAsked(DetailAmountAboveMaximum, s, counted, "at most "+lim.max.String())
	}
	// A voucher has no deadline of its own: the channel's deposit bounds
	// it, and the deposit's opening had one. Any other grant without a
	// deadline is payable forever.
	if s.ChannelSigned == nil && (s.PayableUntil.IsZero() || s.PayableUntil.Sub(now) > p.maxPayable) {
		until := "with no deadline"
		if !s.PayableUntil.IsZero() {
			until = "payable until " + s.PayableUntil.UTC().Format(time.RFC3339)
		}
		return refuseAsked(DetailPayableTooLong, s, counted, until+", at most "+p.maxPayable.String())
	}
	id, err := p.budget.Reserve(ctx, key, counted, lim.budget)
	if errors.Is(err, ErrBudgetExhausted) {
		return refuseAsked(DetailBudgetExhausted, s, counted, "budget "+lim.budget.String())
	}
	if err != nil {
		return refuseAsked(DetailBudgetUnavailable, s, counted, err.Error())
	}
	p.mu.Lock()
	p.pending[ps.Request] = append(p.pending[ps.Request], id)
	p.mu.Unlock()
	return nil
}

// refuseAsked is the refusal detail, then what was asked: the amount, the
// network and the asset, and why it is more than allowed.
func refuseAsked(detail string, s Summary, amount *big.Int, why string) *gate.Decline {
	return refuse(fmt.Sprintf("%s: %s of %s %s (%s)", detail, amount, s.Network, s.Asset, why))
}

// limitFor finds the limit for the summary's network and asset: the one
// naming the asset, else the network's wildcard.
func (p *Policy) limitFor(s Summary, counted *big.Int) (limit, BudgetKey, *gate.Decline) {
	key := BudgetKey{s.Network, assetKey(s.Asset)}
	if len(p.networks) > 0 && !p.networks[s.Network] {
		return limit{}, key, refuseAsked(DetailNetworkNotAllowed, s, counted, "no limit names the network")
	}
	if l, ok := p.limits[key]; ok {
		return l, key, nil
	}
	if l, ok := p.limits[BudgetKey{s.Network, ""}]; ok {
		return l, key, nil
	}
	for k := range p.limits {
		if k.Network == s.Network {
			return limit{}, key, refuseAsked(DetailAssetNotAllowed, s, counted, "no limit names the asset")
		}
	}
	return limit{}, key, refuseAsked(DetailNetworkNotAllowed, s, counted, "no limit names the network")
}

// take removes and returns the newest reservation made for ps's request.
func (p *Policy) take(ps gate.PaymentSummary) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := p.pending[ps.Request]
	if len(ids) == 0 {
		return "", false
	}
	id := ids[len(ids)-1]
	if len(ids) == 1 {
		delete(p.pending, ps.Request)
	} else {
		p.pending[ps.Request] = ids[:len(ids)-1]
	}
	return id, true
}

// Commit implements gate.Reserver: what Allow reserved for ps is spent.
func (p *Policy) Commit(ctx context.Context, ps gate.PaymentSummary) {
	if id, ok := p.take(ps); ok {
		_ = p.budget.Commit(ctx, id) // a reservation not committed keeps counting
	}
}

// Release gives back the budget an Allow reserved for ps (implementing
// gate.Reserver). Call it at most once per successful Allow, and only when
// no signature for ps exists.
func (p *Policy) Release(ctx context.Context, ps gate.PaymentSummary) {
	if p == nil {
		return
	}
	if id, ok := p.take(ps); ok {
		_ = p.budget.Release(ctx, id) // failing, the amount stays counted: the safe side
	}
}

// Spent is what has been reserved or spent so far in asset on network, as
// the Budget counts it; nil when the Budget cannot say.
func (p *Policy) Spent(network, asset string) *big.Int {
	n, err := p.budget.Spent(context.Background(), BudgetKey{network, assetKey(asset)})
	if err != nil {
		return nil
	}
	return n
}

// JSON states the limits in force, for an agent to know before it tries:
// {limits: [{network, asset ("*": any asset on the network), maxAmount,
// maxUnits?, budget?, spent?}], payees?, maxPayableSeconds}. Amounts are
// decimal atomic units; maxUnits is maxAmount in whole units when the
// asset's decimals are known; spent is what the Budget counts so far.
func (p *Policy) JSON() *jsonv.Object {
	keys := make([]BudgetKey, 0, len(p.limits))
	for k := range p.limits {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b BudgetKey) int {
		return cmp.Or(strings.Compare(a.Network, b.Network), strings.Compare(a.Asset, b.Asset))
	})
	list := make([]jsonv.Value, 0, len(keys))
	for _, k := range keys {
		l := p.limits[k]
		asset := k.Asset
		if asset == "" {
			asset = "*"
		}
		o := jsonv.Obj("network", k.Network, "asset", asset, "maxAmount", l.max.String())
		if u := Units(l.max, rails.KnownDecimals(k.Network, k.Asset)); u != "" && k.Asset != "" {
			o.Set("maxUnits", u)
		}
		if l.budget != nil {
			o.Set("budget", l.budget.String())
			if k.Asset != "" {
				if n, err := p.budget.Spent(context.Background(), k); err == nil {
					o.Set("spent", n.String())
				}
			}
		}
		list = append(list, o)
	}
	out := jsonv.Obj("limits", list)
	if len(p.payees) > 0 {
		payees := make([]string, 0, len(p.payees))
		for a := range p.payees {
			payees = append(payees, a)
		}
		slices.Sort(payees)
		pv := make([]jsonv.Value, len(payees))
		for i, a := range payees {
			pv[i] = a
		}
		out.Set("payees", pv)
	}
	if len(p.networks) > 0 {
		nets := slices.Sorted(maps.Keys(p.networks))
		nv := make([]jsonv.Value, len(nets))
		for i, n := range nets {
			nv[i] = n
		}
		out.Set("networks", nv)
	}
	out.Set("maxPayableSeconds", jsonv.Number(p.maxPayable/time.Second))
	return out
}

// String is the limits in force in one line for a person or an agent's
// instructions.
func (p *Policy) String() string {
	var parts []string
	for _, v := range mustArray(p.JSON(), "limits") {
		o := v.(*jsonv.Object)
		net, _ := o.GetString("network")
		asset, _ := o.GetString("asset")
		max, _ := o.GetString("maxAmount")
		part := "at most " + max + " atomic units per payment of "
		if asset == "*" {
			part += "any asset on " + net
		} else {
			part += asset + " on " + net
		}
		if u, ok := o.GetString("maxUnits"); ok {
			part += " (" + u + " units)"
		}
		if b, ok := o.GetString("budget"); ok {
			part += ", " + b + " in all"
		}
		parts = append(parts, part)
	}
	s := strings.Join(parts, "; ")
	if len(p.payees) > 0 {
		s += "; only to " + strings.Join(slices.Sorted(maps.Keys(p.payees)), ", ")
	}
	return s + "; payable for at most " + p.maxPayable.String()
}

func mustArray(o *jsonv.Object, k string) []jsonv.Value {
	v, _ := o.Get(k)
	a, _ := jsonv.AsArray(v)
	return a
}
