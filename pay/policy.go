package pay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"net/url"
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
	// asset on Network, each with its own MaxAmount and Budget: a wildcard
	// Budget of 10 lets 10 be paid in each token contract, however many
	// there are (PolicyConfig.BudgetUSD is a total across them). A Limit
	// naming the asset takes precedence over the wildcard.
	Asset string
	// MaxAmount is the most one payment may move, in the asset's atomic
	// units; MaxAmount or MaxUSD is required, and a payment must keep to
	// both when both are set.
	MaxAmount *big.Int
	// Budget is the most all payments may move in the asset, cumulatively
	// (as PolicyConfig.Budget accounts for them); nil means no cumulative
	// ceiling.
	Budget *big.Int
	// MaxUSD is the most one payment may move in US dollars, a decimal
	// such as "0.10" (ParseUSD). It counts only the USD stablecoins of
	// USDStablecoins, by the decimals written there: a USD Limit naming
	// another asset is an error, and a wildcard USD Limit refuses the
	// assets the table does not know (policy/asset-not-usd).
	MaxUSD string
	// BudgetUSD is Budget in US dollars, for the asset (each asset, for a
	// wildcard); "" means none. It counts the payments made while it is
	// set.
	BudgetUSD string
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
	// Origins, when not empty, are the only origins a Transport pays
	// ("https://api.seller.example", a port where not the default): a 402
	// from any other is declined (policy/origin-not-allowed) before
	// anything is fetched or signed, also when a redirect from a listed
	// origin led there. The gate, which is given documents and not URLs,
	// does not ask it.
	Origins []string
	// MaxPayable caps validBefore − now; zero means DefaultMaxPayable.
	MaxPayable time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Budget accounts for the Limits' cumulative budgets; nil means a new
	// MemoryBudget (totals that last as long as the process). Share one
	// Budget between Policies (or processes, with a durable one) to share
	// the totals.
	Budget Budget
	// BudgetUSD is the most all payments together may move, in US
	// dollars ("5"), whatever the network and the asset: a payment in an
	// asset USDStablecoins does not know is then refused
	// (policy/asset-not-usd), since it cannot be counted. "" means no total.
	// It counts, under TotalUSDKey, the payments made while it is set.
	BudgetUSD string
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
// MaxAmount (policy/amount-above-maximum), an asset the USD table knows
// when a USD limit or total applies (policy/asset-not-usd), its dollars
// within MaxUSD (policy/amount-above-maximum), validBefore − now within
// MaxPayable (policy/payable-too-long; a confirm-only checkout without a
// deadline is charged once and has none to judge), and last the budgets: the asset's,
// its BudgetUSD, the total BudgetUSD (policy/budget-exhausted, or
// policy/budget-unavailable when the Budget failed). The origin
// (policy/origin-not-allowed) is the Transport's to ask, before all of
// these (AllowsOrigin). A refusal's detail goes on to name the network, the asset and
// the amount asked: "policy/amount-above-maximum: 2000000 of
// eip155:84532 0x036c… (at most 10000)".
//
// A confirm-only checkout (Summary.ConfirmOnly) is judged by what its
// confirm commits to (docs/checkout.md, "The spend policy and confirm-only
// checkouts"). What a payment counts (Summary.Counted) is its amount; for a payment in
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
	origins    map[string]bool // as origin() writes them
	maxPayable time.Duration
	now        func() time.Time
	budget     Budget
	unbound    bool
	totalUSD   *big.Int // atto-dollars; nil: no total

	mu      sync.Mutex
	pending map[rails.Request][][]string // each Allow's reservation ids, by the request they were made for (pendingKey)
}

// limit is a Limit checked: max and budget in atomic units, maxUSD in
// dollars, budgetUSD in atto-dollars; nil where not set.
type limit struct {
	max, budget *big.Int
	maxUSD      *big.Rat
	budgetUSD   *big.Int
}

func (l limit) usd() bool { return l.maxUSD != nil || l.budgetUSD != nil }

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
		maxPayable: c.MaxPayable, now: c.Now, budget: c.Budget, pending: map[rails.Request][][]string{},
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
		if l.MaxAmount == nil && l.MaxUSD == "" || l.MaxAmount != nil && l.MaxAmount.Sign() < 0 || l.Budget != nil && l.Budget.Sign() < 0 {
			return nil, fmt.Errorf("pay: policy: the limit for %s needs a MaxAmount ≥ 0 or a MaxUSD, and a Budget ≥ 0 if any", limitName(l.Network, l.Asset))
		}
		lim := limit{max: copyInt(l.MaxAmount), budget: copyInt(l.Budget)}
		if err := lim.setUSD(l); err != nil {
			return nil, fmt.Errorf("pay: policy: the limit for %s: %w", limitName(l.Network, l.Asset), err)
		}
		k := BudgetKey{l.Network, assetKey(l.Asset)}
		if _, dup := p.limits[k]; dup {
			return nil, fmt.Errorf("pay: policy: two limits for %s", limitName(l.Network, l.Asset))
		}
		p.limits[k] = lim
	}
	if c.BudgetUSD != "" {
		total, err := ParseUSD(c.BudgetUSD)
		if err != nil {
			return nil, fmt.Errorf("pay: policy: BudgetUSD: %w", err)
		}
		p.totalUSD = atto(total)
	}
	for _, n := range c.Networks {
		if err := CheckNetwork(n); err != nil {
			return nil, fmt.Errorf("pay: policy: %w", err)
		}
		p.networks[n] = true
	}
	if len(c.Origins) > 0 {
		p.origins = map[string]bool{}
	}
	for _, o := range c.Origins {
		norm, err := checkOrigin(o)
		if err != nil {
			return nil, fmt.Errorf("pay: policy: %w", err)
		}
		p.origins[norm] = true
	}
	for _, a := range c.Payees {
		if !evm.IsAddress(a) && !isOtherAddress(a) {
			return nil, fmt.Errorf("pay: policy: %q is not a payee address", a)
		}
		p.payees[assetKey(a)] = true
	}
	return p, nil
}

// setUSD reads l's USD forms into lim; a USD limit names an asset of
// USDStablecoins, or is a wildcard on a network where the table has some.
func (lim *limit) setUSD(l Limit) error {
	if l.MaxUSD == "" && l.BudgetUSD == "" {
		return nil
	}
	if l.Asset != "" {
		if _, ok := LookupUSD(l.Network, l.Asset); !ok {
			return fmt.Errorf("%s is no USD stablecoin termsgate knows on %s (pay.USDStablecoins); state the limit in atomic units (MaxAmount)", l.Asset, l.Network)
		}
	} else if !usdOnNetwork(l.Network) {
		return fmt.Errorf("termsgate knows no USD stablecoin on %s (pay.USDStablecoins); state the limit in atomic units (MaxAmount)", l.Network)
	}
	if l.MaxUSD != "" {
		r, err := ParseUSD(l.MaxUSD)
		if err != nil {
			return fmt.Errorf("MaxUSD: %w", err)
		}
		lim.maxUSD = r
	}
	if l.BudgetUSD != "" {
		r, err := ParseUSD(l.BudgetUSD)
		if err != nil {
			return fmt.Errorf("BudgetUSD: %w", err)
		}
		lim.budgetUSD = atto(r)
	}
	return nil
}

// checkOrigin reads an origin: https:// or http://, a host, an optional
// port, and nothing else (no path but "/", no query, no user).
func checkOrigin(o string) (string, error) {
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil ||
		u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("%q is not an origin (https://host or https://host:port)", o)
	}
	return origin(u), nil
}

// AllowsOrigin reports whether the Policy pays a 402 from u's origin:
// always when PolicyConfig.Origins is empty.
func (p *Policy) AllowsOrigin(u *url.URL) bool {
	return p == nil || len(p.origins) == 0 || p.origins[origin(u)]
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
	return p.allowSummarized(ctx, ps, s)
}

// allowSummarized is Allow with ps's summary already read (a Transport's
// attempt reads it once for every policy and its hooks).
func (p *Policy) allowSummarized(ctx context.Context, ps gate.PaymentSummary, s Summary) error {
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
	if lim.max != nil && counted.Cmp(lim.max) > 0 {
		return refuseAsked(DetailAmountAboveMaximum, s, counted, "at most "+lim.max.String())
	}
	// The dollar value is worked out only for a limit in dollars (its
	// power of ten and big.Rat cost a payment without one about 1 µs).
	var usd *big.Rat
	if lim.usd() || p.totalUSD != nil {
		var known bool
		if usd, known = usdValue(s, counted); !known {
			why := "a USD limit counts only pay.USDStablecoins"
			if !lim.usd() {
				why = "the USD total (BudgetUSD) counts only pay.USDStablecoins"
			}
			return refuseAsked(DetailAssetNotUSD, s, counted, why)
		}
	}
	if lim.maxUSD != nil && usd.Cmp(lim.maxUSD) > 0 {
		return refuseAsked(DetailAmountAboveMaximum, s, counted, dollars(usd)+", at most "+dollars(lim.maxUSD))
	}
	// A voucher has no deadline of its own: the channel's deposit bounds
	// it, and the deposit's opening had one. Any other grant without a
	// deadline is payable forever.
	// A confirm-only checkout without a deadline is no bearer instrument:
	// the completion is charged once, at the total judged here.
	if s.ChannelSigned == nil && !(s.ConfirmOnly && s.PayableUntil.IsZero()) &&
		(s.PayableUntil.IsZero() || s.PayableUntil.Sub(now) > p.maxPayable) {
		until := "with no deadline"
		if !s.PayableUntil.IsZero() {
			until = "payable until " + s.PayableUntil.UTC().Format(time.RFC3339)
		}
		return refuseAsked(DetailPayableTooLong, s, counted, until+", at most "+p.maxPayable.String())
	}
	// One reservation per budget that counts the payment: the asset's in
	// atomic units, then in dollars, then the total in dollars. Failing
	// one gives back the ones before.
	type want struct {
		key             BudgetKey
		amount, ceiling *big.Int
		what            budgetKind // said only when refused: the strings cost allocations
	}
	var buf [3]want
	wants := append(buf[:0], want{key, counted, lim.budget, assetBudget})
	if lim.budgetUSD != nil {
		wants = append(wants, want{usdKey(s.Network, s.Asset), atto(usd), lim.budgetUSD, assetBudgetUSD})
	}
	if p.totalUSD != nil {
		wants = append(wants, want{TotalUSDKey, atto(usd), p.totalUSD, totalBudgetUSD})
	}
	ids := make([]string, 0, len(wants))
	for _, w := range wants {
		id, err := p.budget.Reserve(ctx, w.key, w.amount, w.ceiling)
		if err != nil {
			for i := len(ids) - 1; i >= 0; i-- {
				_ = p.budget.Release(ctx, ids[i])
			}
			if errors.Is(err, ErrBudgetExhausted) {
				return refuseAsked(DetailBudgetExhausted, s, counted, w.what.said(w.ceiling))
			}
			return refuseAsked(DetailBudgetUnavailable, s, counted, err.Error())
		}
		ids = append(ids, id)
	}
	p.mu.Lock()
	k := pendingKey(ps)
	p.pending[k] = append(p.pending[k], ids)
	p.mu.Unlock()
	return nil
}

// budgetKind names a budget in a refusal: the asset's in atomic units, the
// asset's in dollars, or the total in dollars. A kind rather than a closure
// over the limit, which was an allocation on every payment allowed.
type budgetKind int

const (
	assetBudget budgetKind = iota
	assetBudgetUSD
	totalBudgetUSD
)

// said is the refusal's why for the budget of kind whose ceiling was
// reached (atomic units, or atto-dollars for the dollar budgets).
func (k budgetKind) said(ceiling *big.Int) string {
	switch k {
	case assetBudgetUSD:
		return "budget " + dollars(new(big.Rat).SetFrac(ceiling, attoPerUSD)) + " in this asset"
	case totalBudgetUSD:
		return "budget " + dollars(new(big.Rat).SetFrac(ceiling, attoPerUSD)) + " in all"
	}
	return "budget " + fmt.Sprint(ceiling)
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

// take removes and returns the reservations of the newest Allow made for
// ps's request.
func (p *Policy) take(ps gate.PaymentSummary) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := pendingKey(ps)
	groups := p.pending[k]
	if len(groups) == 0 {
		return nil
	}
	ids := groups[len(groups)-1]
	if len(groups) == 1 {
		delete(p.pending, k)
	} else {
		p.pending[k] = groups[:len(groups)-1]
	}
	return ids
}

// pendingKey is what a payment's reservations are kept under: its signing
// request, or for a confirm-only payment (no request) its choice, so that
// two checkouts settled at once each settle their own.
func pendingKey(ps gate.PaymentSummary) rails.Request {
	if ps.Request != nil || !ps.ConfirmOnly {
		return ps.Request
	}
	c, _ := jsonv.AsObject(ps.Chosen.Choice)
	return c
}

// Commit implements gate.Reserver: what Allow reserved for ps is spent.
func (p *Policy) Commit(ctx context.Context, ps gate.PaymentSummary) {
	for _, id := range p.take(ps) {
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
	ids := p.take(ps)
	for i := len(ids) - 1; i >= 0; i-- {
		_ = p.budget.Release(ctx, ids[i]) // failing, the amount stays counted: the safe side
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
		o := jsonv.Obj("network", k.Network, "asset", asset)
		if l.max != nil {
			o.Set("maxAmount", l.max.String())
			if u := Units(l.max, rails.KnownDecimals(k.Network, k.Asset)); u != "" && k.Asset != "" {
				o.Set("maxUnits", u)
			}
		}
		if l.maxUSD != nil {
			o.Set("maxUSD", strings.TrimPrefix(dollars(l.maxUSD), "$"))
		}
		if l.budgetUSD != nil {
			o.Set("budgetUSD", strings.TrimPrefix(dollars(new(big.Rat).SetFrac(l.budgetUSD, attoPerUSD)), "$"))
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
	if len(p.origins) > 0 {
		os := slices.Sorted(maps.Keys(p.origins))
		ov := make([]jsonv.Value, len(os))
		for i, o := range os {
			ov[i] = o
		}
		out.Set("origins", ov)
	}
	if len(p.networks) > 0 {
		nets := slices.Sorted(maps.Keys(p.networks))
		nv := make([]jsonv.Value, len(nets))
		for i, n := range nets {
			nv[i] = n
		}
		out.Set("networks", nv)
	}
	if p.totalUSD != nil {
		out.Set("budgetUSD", strings.TrimPrefix(dollars(new(big.Rat).SetFrac(p.totalUSD, attoPerUSD)), "$"))
		if n, err := p.budget.Spent(context.Background(), TotalUSDKey); err == nil {
			out.Set("spentUSD", strings.TrimPrefix(dollars(new(big.Rat).SetFrac(n, attoPerUSD)), "$"))
		}
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
		var maxes []string
		if max, ok := o.GetString("maxAmount"); ok {
			maxes = append(maxes, max+" atomic units")
		}
		if usd, ok := o.GetString("maxUSD"); ok {
			maxes = append(maxes, "$"+usd)
		}
		part := "at most " + strings.Join(maxes, " and ") + " per payment of "
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
		if b, ok := o.GetString("budgetUSD"); ok {
			part += ", $" + b + " in all"
		}
		parts = append(parts, part)
	}
	s := strings.Join(parts, "; ")
	if p.totalUSD != nil {
		s += "; $" + strings.TrimPrefix(dollars(new(big.Rat).SetFrac(p.totalUSD, attoPerUSD)), "$") + " in all across every asset"
	}
	if len(p.payees) > 0 {
		s += "; only to " + strings.Join(slices.Sorted(maps.Keys(p.payees)), ", ")
	}
	if len(p.origins) > 0 {
		s += "; only sellers at " + strings.Join(slices.Sorted(maps.Keys(p.origins)), ", ")
	}
	return s + "; payable for at most " + p.maxPayable.String()
}

func mustArray(o *jsonv.Object, k string) []jsonv.Value {
	v, _ := o.Get(k)
	a, _ := jsonv.AsArray(v)
	return a
}
