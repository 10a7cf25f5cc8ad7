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
	payees            headerList
	maxPayable        time.Duration
	state             *string // where the budget is kept (state.go)
}

func addLimitFlags(fs *flag.FlagSet) *limitFlags {
	l := &limitFlags{fs: fs}
	fs.StringVar(&l.maxAmount, "max-amount", "", "the most one payment may move, in the asset's atomic units (required with a key)")
	fs.StringVar(&l.asset, "asset", "", "pay only in this asset (a token contract on eip155; default: any asset on --network)")
	fs.StringVar(&l.budget, "budget", "", "the most all payments may move, in atomic units, counted in --state across runs (default: no cumulative ceiling)")
	fs.Var(&l.payees, "payee", "pay only this payee address (repeatable; default: any)")
	fs.DurationVar(&l.maxPayable, "max-payable", pay.DefaultMaxPayable, "the longest a signed payment may stay payable")
	l.state = addStateFlag(fs)
	return l
}

// errNoLimit names the flag a command that signs cannot start without.
var errNoLimit = errors.New("--max-amount is required with a key: the most one payment may move, in atomic units of the asset on --network (6 decimals for USDC and pathUSD: 10000 is 0.01); add --budget for a cumulative ceiling")

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
	if l.maxAmount == "" {
		return nil, errNoLimit
	}
	max, err := atomicFlag("--max-amount", l.maxAmount)
	if err != nil {
		return nil, err
	}
	var budget *big.Int
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
	p, err := pay.NewPolicy(pay.PolicyConfig{
		Budget:     store,
		Limits:     []pay.Limit{{Network: network, Asset: l.asset, MaxAmount: max, Budget: budget}},
		Payees:     l.payees,
		MaxPayable: l.maxPayable,
	})
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
