package pay

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"sync"
)

// BudgetKey names one cumulative budget: an asset on a network. Network is
// CAIP-2 ("eip155:84532"); Asset is the asset as the signing request names
// it, lowercased when it is an EVM address (0x and 40 hex digits), else as
// written (Solana and Stellar spellings are case-sensitive). Policy builds
// keys this way; a Budget compares them as plain strings.
type BudgetKey struct {
	Network string
	Asset   string
}

func (k BudgetKey) String() string { return k.Network + " " + k.Asset }

// ErrBudgetExhausted is what Budget.Reserve returns when the amount would
// take the key's total over its ceiling. Policy turns it into the decline
// policy/budget-exhausted; any other error from a Budget becomes
// policy/budget-unavailable, and nothing is signed.
var ErrBudgetExhausted = errors.New("pay: budget exhausted")

// Budget is the cumulative spend accounting behind a Policy: what was
// signed, and what is about to be, per network and asset. The default
// (NewMemoryBudget) lives in memory and is lost with the process; a Budget
// that outlives the process (a file, a database) plugs in through
// PolicyConfig.Budget.
//
// Its life cycle is one reservation per signature:
//
//  1. Reserve, before anything is signed: atomically, if the key's total
//     (committed plus still reserved) plus amount is at most ceiling (nil:
//     no ceiling), record amount as reserved and return a reservation id;
//     else return ErrBudgetExhausted and record nothing. Concurrent
//     Reserves, from one process or several sharing the store, must never
//     together pass the ceiling.
//  2. Commit, once a signature left the process (returned to the caller,
//     or kept as moved): the reservation becomes spent, for good.
//  3. Release, when nothing was signed, or what was signed was dropped (a
//     policy after this one refused, the signer refused, the gate declined
//     the signed payment without returning it): the reservation is given
//     back.
//
// Commit and Release are each called at most once per id, and never both;
// an unknown id is not an error (a durable store may have lost a
// reservation that never committed). A reservation neither committed nor
// released (the process died while signing) must keep counting as spent:
// a signature may exist. Amounts are non-negative atomic units; the Budget
// must not keep the *big.Int it is given.
//
// Implementations must be safe for concurrent use.
type Budget interface {
	Reserve(ctx context.Context, key BudgetKey, amount, ceiling *big.Int) (id string, err error)
	Commit(ctx context.Context, id string) error
	Release(ctx context.Context, id string) error
	// Spent is the key's total: committed plus still reserved.
	Spent(ctx context.Context, key BudgetKey) (*big.Int, error)
}

// MemoryBudget is the in-memory Budget, the default of a Policy: its
// totals last as long as the process.
type MemoryBudget struct {
	mu       sync.Mutex
	next     uint64
	total    map[BudgetKey]*big.Int // committed plus reserved
	reserved map[string]reservation
}

type reservation struct {
	key    BudgetKey
	amount *big.Int
}

var _ Budget = (*MemoryBudget)(nil)

// NewMemoryBudget returns an empty in-memory budget.
func NewMemoryBudget() *MemoryBudget {
	return &MemoryBudget{total: map[BudgetKey]*big.Int{}, reserved: map[string]reservation{}}
}

// Reserve implements Budget.
func (b *MemoryBudget) Reserve(_ context.Context, key BudgetKey, amount, ceiling *big.Int) (string, error) {
	if amount == nil || amount.Sign() < 0 {
		return "", fmt.Errorf("pay: budget: reserving %v in %s: not a non-negative amount", amount, key)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	total := b.total[key]
	if total == nil {
		if ceiling != nil && amount.Cmp(ceiling) > 0 {
			return "", ErrBudgetExhausted
		}
		b.total[key] = new(big.Int).Set(amount)
	} else {
		// In place, and undone if over: the total is the budget's own
		// (Spent copies it), and a sum made apart cost two allocations on
		// every payment.
		total.Add(total, amount)
		if ceiling != nil && total.Cmp(ceiling) > 0 {
			total.Sub(total, amount)
			return "", ErrBudgetExhausted
		}
	}
	b.next++
	id := strconv.FormatUint(b.next, 10)
	b.reserved[id] = reservation{key: key, amount: new(big.Int).Set(amount)}
	return id, nil
}

// Commit implements Budget: the amount stays in the total.
func (b *MemoryBudget) Commit(_ context.Context, id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.reserved, id)
	return nil
}

// Release implements Budget: the amount leaves the total.
func (b *MemoryBudget) Release(_ context.Context, id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.reserved[id]
	if !ok {
		return nil
	}
	delete(b.reserved, id)
	if total := b.total[r.key]; total != nil {
		total.Sub(total, r.amount)
		if total.Sign() < 0 {
			total.SetInt64(0)
		}
	}
	return nil
}

// Spent implements Budget.
func (b *MemoryBudget) Spent(_ context.Context, key BudgetKey) (*big.Int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n := b.total[key]; n != nil {
		return new(big.Int).Set(n), nil
	}
	return new(big.Int), nil
}
