package main

// The spend limits of every command that signs (transact, agree,
// channel-within, mcp with a key), spelled as pay's: a command that holds a
// signer and was given no --max-amount does not start.

import (
	"errors"
	"flag"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/pay"
)

// withPolicy sets g's policy, never a typed nil in the interface.
func withPolicy(g *gate.Gate, p *pay.Policy) *gate.Gate {
	if p != nil {
		g.Policy = p
	}
	return g
}

type limitFlags struct {
	fs                *flag.FlagSet
	maxAmount, budget string
	asset             string
	usd               *usdFlags
	payees            headerList
	extra             headerList // --limit NETWORK[/ASSET]=MAX, beside --max-amount's
	maxPayable        time.Duration
	state             *string // where the budget is kept (state.go)
}

// usdFlags are the limits in US dollars, on every command that signs
// (termsgate pay has its own limit flags and takes these too).
type usdFlags struct{ maxUSD, budgetUSD string }

func addUSDFlags(fs *flag.FlagSet) *usdFlags {
	u := &usdFlags{}
	fs.StringVar(&u.maxUSD, "max-usd", "", "the most one payment may move, in US dollars (0.10), counted only in the USD stablecoins termsgate knows (USDC, pathUSD; docs/paying-client.md)")
	fs.StringVar(&u.budgetUSD, "budget-usd", "", "the most all payments together may move, in US dollars (5), across every asset and network, counted in --state across runs; an asset termsgate cannot value in dollars is then refused")
	return u
}

// apply puts the flags into the limit and the config, checked.
func (u *usdFlags) apply(l *pay.Limit, c *pay.PolicyConfig) error {
	for _, f := range []struct{ name, v string }{{"--max-usd", u.maxUSD}, {"--budget-usd", u.budgetUSD}} {
		if f.v == "" {
			continue
		}
		if _, err := pay.ParseUSD(f.v); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	l.MaxUSD, c.BudgetUSD = u.maxUSD, u.budgetUSD
	return nil
}

func addLimitFlags(fs *flag.FlagSet) *limitFlags {
	l := &limitFlags{fs: fs}
	fs.StringVar(&l.maxAmount, "max-amount", "", "the most one payment may move, in the asset's atomic units (required with a key)")
	fs.StringVar(&l.asset, "asset", "", "pay only in this asset (a token contract on eip155; default: any asset on --network)")
	fs.StringVar(&l.budget, "budget", "", "the most all payments may move, in atomic units, counted in --state across runs (default: no cumulative ceiling)")
	l.usd = addUSDFlags(fs)
	fs.Var(&l.payees, "payee", "pay only this payee address (repeatable; default: any)")
	addLimitFlag(fs, &l.extra)
	fs.DurationVar(&l.maxPayable, "max-payable", pay.DefaultMaxPayable, "the longest a signed payment may stay payable")
	l.state = addStateFlag(fs)
	return l
}

// errNoLimit names the flag a command that signs cannot start without.
var errNoLimit = errors.New("--max-amount is required with a key: the most one payment may move, in atomic units of the asset on --network (6 decimals for USDC and pathUSD: 10000 is 0.01), or --max-usd in US dollars (0.01); add --budget or --budget-usd for a cumulative ceiling")

// forKey is the policy on network when keys name a key (nil, nil when they
// name none: the command then fails on its missing signer), checked at
// start: a limit spelled wrongly is a usage error, not a refusal of every
// payment later.
func (l *limitFlags) forKey(keys *keyFlags, network string) (*pay.Policy, error) {
	if !keys.devKey && keys.keyFile == "" && keys.clef == "" {
		return nil, nil
	}
	return l.policy(network)
}

// policy is the spend policy the flags describe on network.
func (l *limitFlags) policy(network string) (*pay.Policy, error) {
	if l.maxAmount == "" && l.usd.maxUSD == "" {
		return nil, errNoLimit
	}
	var max, budget *big.Int
	var err error
	if l.maxAmount != "" {
		if max, err = atomicFlag("--max-amount", l.maxAmount); err != nil {
			return nil, err
		}
	}
	if l.budget != "" {
		if budget, err = atomicFlag("--budget", l.budget); err != nil {
			return nil, err
		}
	}
	if err := pay.CheckNetwork(network); err != nil {
		return nil, fmt.Errorf("--network: %w", err)
	}
	store, err := stateBudget(*l.state)
	if err != nil {
		return nil, err
	}
	limit := pay.Limit{Network: network, Asset: l.asset, MaxAmount: max, Budget: budget}
	cfg := pay.PolicyConfig{Budget: store, Payees: l.payees, MaxPayable: l.maxPayable}
	if err := l.usd.apply(&limit, &cfg); err != nil {
		return nil, err
	}
	more, err := extraLimits(l.extra)
	if err != nil {
		return nil, err
	}
	cfg.Limits = append([]pay.Limit{limit}, more...)
	p, err := pay.NewPolicy(cfg)
	if err != nil {
		return nil, fmt.Errorf("the spend limits: %s", strings.TrimPrefix(err.Error(), "pay: policy: "))
	}
	return p, nil
}

// atomicFlag reads a decimal number of atomic units.
func atomicFlag(name, s string) (*big.Int, error) {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.Sign() < 0 || strings.Trim(s, "0123456789") != "" {
		return nil, fmt.Errorf("%s %q is not a decimal number of atomic units", name, s)
	}
	return n, nil
}

// addLimitFlag is --limit: a limit on one more network than --network's,
// for an offer that pays on two (a checkout's total and its agreement
// payment on a chain) or a wallet that holds several keys.
func addLimitFlag(fs *flag.FlagSet, list *headerList) {
	fs.Var(list, "limit", "another limit, NETWORK=MAX or NETWORK/ASSET=MAX in the asset's atomic units (repeatable), beside --max-amount's on --network: e.g. acp:checkout/USD=2500 lets an ACP checkout commit to at most 25.00 USD")
}

// extraLimits reads the --limit values.
func extraLimits(specs []string) ([]pay.Limit, error) {
	out := make([]pay.Limit, 0, len(specs))
	for _, spec := range specs {
		where, max, ok := strings.Cut(spec, "=")
		if !ok {
			return nil, fmt.Errorf("--limit %q is not NETWORK=MAX or NETWORK/ASSET=MAX", spec)
		}
		network, asset, _ := strings.Cut(where, "/")
		if err := pay.CheckNetwork(network); err != nil {
			return nil, fmt.Errorf("--limit %q: %w", spec, err)
		}
		n, err := atomicFlag("--limit "+where, max)
		if err != nil {
			return nil, err
		}
		out = append(out, pay.Limit{Network: network, Asset: asset, MaxAmount: n})
	}
	return out, nil
}

// limitHint names the --limit that would let a payment refused for want
// of a limit on its network or asset be judged; its detail reads
// "policy/…: AMOUNT of NETWORK ASSET (why)".
func limitHint(d *gate.Decline) string {
	code := pay.DetailCode(d.Detail)
	if d.Code != gate.NoPayableOption || code != pay.DetailNetworkNotAllowed && code != pay.DetailAssetNotAllowed {
		return ""
	}
	_, rest, _ := strings.Cut(d.Detail, ": ")
	fields := strings.Fields(rest)
	if len(fields) < 4 || fields[1] != "of" {
		return ""
	}
	network, asset := fields[2], fields[3]
	if code == pay.DetailNetworkNotAllowed {
		return fmt.Sprintf("no limit names %s; --limit %s=N (or %s/%s=N) allows payments there of at most N atomic units", network, network, network, asset)
	}
	return fmt.Sprintf("the limits on %s name other assets; --limit %s/%s=N allows this one, at most N atomic units", network, network, asset)
}
