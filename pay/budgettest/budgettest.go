// Package budgettest checks that a pay.Budget keeps the contract its doc
// comment states. An implementation's test calls Run with a constructor of
// empty budgets:
//
//	func TestFileBudget(t *testing.T) {
//		budgettest.Run(t, func(t *testing.T) pay.Budget { return openTemp(t) })
//	}
package budgettest

import (
	"context"
	"errors"
	"math/big"
	"sync"
	"testing"

	"github.com/termsgate/termsgate/pay"
)

var (
	usdc = pay.BudgetKey{Network: "eip155:84532", Asset: "0x036cbd53842c5426634e7929541ec2318f3dcf7e"}
	path = pay.BudgetKey{Network: "eip155:42431", Asset: "0x20c0000000000000000000000000000000000000"}
)

// Run runs the contract's checks, each on a fresh budget from newBudget.
func Run(t *testing.T, newBudget func(t *testing.T) pay.Budget) {
	ctx := context.Background()
	t.Run("reserve within the ceiling, exhausted beyond it", func(t *testing.T) {
		b := newBudget(t)
		id := reserve(t, b, usdc, 60, 100)
		if _, err := b.Reserve(ctx, usdc, big.NewInt(41), big.NewInt(100)); !errors.Is(err, pay.ErrBudgetExhausted) {
			t.Fatalf("60 + 41 reserved under a ceiling of 100: %v", err)
		}
		spent(t, b, usdc, 60) // a refused reservation records nothing
		reserve(t, b, usdc, 40, 100)
		spent(t, b, usdc, 100)
		if err := b.Commit(ctx, id); err != nil {
			t.Fatal(err)
		}
		spent(t, b, usdc, 100)
	})
	t.Run("the first reservation of a key over its ceiling records nothing", func(t *testing.T) {
		b := newBudget(t)
		if _, err := b.Reserve(ctx, usdc, big.NewInt(101), big.NewInt(100)); !errors.Is(err, pay.ErrBudgetExhausted) {
			t.Fatalf("101 reserved under a ceiling of 100: %v", err)
		}
		spent(t, b, usdc, 0)
		reserve(t, b, usdc, 100, 100)
	})
	t.Run("the budget keeps no caller's number", func(t *testing.T) {
		b := newBudget(t)
		amount := big.NewInt(10)
		if _, err := b.Reserve(ctx, usdc, amount, big.NewInt(100)); err != nil {
			t.Fatal(err)
		}
		amount.SetInt64(90) // the caller's value changes after the first reservation,
		if _, err := b.Reserve(ctx, usdc, amount, big.NewInt(200)); err != nil {
			t.Fatal(err)
		}
		amount.SetInt64(1000) // and after a later one
		n, err := b.Spent(ctx, usdc)
		if err != nil {
			t.Fatal(err)
		}
		n.SetInt64(0) // and what Spent returned is changed
		spent(t, b, usdc, 100)
	})
	t.Run("release gives back, commit keeps", func(t *testing.T) {
		b := newBudget(t)
		kept := reserve(t, b, usdc, 30, 100)
		given := reserve(t, b, usdc, 70, 100)
		if err := b.Release(ctx, given); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(ctx, kept); err != nil {
			t.Fatal(err)
		}
		spent(t, b, usdc, 30)
		reserve(t, b, usdc, 70, 100)
	})
	t.Run("keys are separate and a nil ceiling is none", func(t *testing.T) {
		b := newBudget(t)
		reserve(t, b, usdc, 100, 100)
		reserve(t, b, path, 100, 100)
		reserve(t, b, pay.BudgetKey{Network: usdc.Network, Asset: "0x1111111111111111111111111111111111111111"}, 1<<62, -1)
		spent(t, b, usdc, 100)
		spent(t, b, path, 100)
		spent(t, b, pay.BudgetKey{Network: "eip155:1", Asset: usdc.Asset}, 0)
	})
	t.Run("unknown ids are no error", func(t *testing.T) {
		b := newBudget(t)
		if err := b.Commit(ctx, "no-such-reservation"); err != nil {
			t.Fatal(err)
		}
		if err := b.Release(ctx, "no-such-reservation"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("concurrent reservations never pass the ceiling", func(t *testing.T) {
		b := newBudget(t)
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok, exhausted := 0, 0
		for range 50 {
			wg.Go(func() {
				id, err := b.Reserve(ctx, usdc, big.NewInt(3), big.NewInt(100))
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil && id != "":
					ok++
				case errors.Is(err, pay.ErrBudgetExhausted):
					exhausted++
				default:
					t.Errorf("id %q, %v", id, err)
				}
			})
		}
		wg.Wait()
		if ok != 33 || exhausted != 17 {
			t.Fatalf("%d reserved, %d exhausted; want 33 and 17", ok, exhausted)
		}
		spent(t, b, usdc, 99)
	})
}

// reserve reserves amount under ceiling (-1: none) and fails t otherwise.
func reserve(t *testing.T, b pay.Budget, key pay.BudgetKey, amount, ceiling int64) string {
	t.Helper()
	var c *big.Int
	if ceiling >= 0 {
		c = big.NewInt(ceiling)
	}
	id, err := b.Reserve(context.Background(), key, big.NewInt(amount), c)
	if err != nil || id == "" {
		t.Fatalf("reserving %d of %s under %v: id %q, %v", amount, key, c, id, err)
	}
	return id
}

func spent(t *testing.T, b pay.Budget, key pay.BudgetKey, want int64) {
	t.Helper()
	n, err := b.Spent(context.Background(), key)
	if err != nil || n == nil || n.Cmp(big.NewInt(want)) != 0 {
		t.Fatalf("spent in %s: %v, %v; want %d", key, n, err, want)
	}
}
