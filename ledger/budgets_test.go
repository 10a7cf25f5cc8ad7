package ledger_test

import (
	"context"
	"errors"
	"math/big"
	"path/filepath"
	"testing"

	"github.com/termsgate/termsgate/internal/pgtest"
	"github.com/termsgate/termsgate/ledger"
)

// Budgets lists each budget's spent sum (and, in the file, the ceiling its
// newest reservation was checked against); ResetBudgets sets the sums to
// zero, after which a reservation the old sum refused passes, and a
// release of one made before the reset gives back nothing below zero.
func TestBudgetsListAndReset(t *testing.T) {
	ctx := context.Background()
	usdc := ledger.Key{Network: "eip155:84532", Asset: "0x036cbd53842c5426634e7929541ec2318f3dcf7e"}
	path := ledger.Key{Network: "eip155:42431", Asset: "0x20c0000000000000000000000000000000000000"}
	run := func(t *testing.T, s ledger.Store, keepsCeiling bool) {
		l, ok := s.(ledger.BudgetLister)
		if !ok {
			t.Fatalf("%T lists no budgets", s)
		}
		if _, err := s.Reserve(ctx, usdc, big.NewInt(10000), big.NewInt(15000)); err != nil {
			t.Fatal(err)
		}
		open, err := s.Reserve(ctx, path, big.NewInt(7), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Reserve(ctx, usdc, big.NewInt(10000), big.NewInt(15000)); !errors.Is(err, ledger.ErrBudgetExhausted) {
			t.Fatalf("past the ceiling: %v", err)
		}
		got, err := l.Budgets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Key != path || got[0].Spent.Int64() != 7 || got[0].Ceiling != nil ||
			got[1].Key != usdc || got[1].Spent.Int64() != 10000 {
			t.Fatalf("budgets %+v", got)
		}
		if keepsCeiling && (got[1].Ceiling == nil || got[1].Ceiling.Int64() != 15000) {
			t.Fatalf("ceiling %v, want 15000", got[1].Ceiling)
		}
		if err := l.ResetBudgets(ctx); err != nil {
			t.Fatal(err)
		}
		if spent(t, s, usdc) != 0 || spent(t, s, path) != 0 {
			t.Fatal("not reset")
		}
		if _, err := s.Reserve(ctx, usdc, big.NewInt(10000), big.NewInt(15000)); err != nil {
			t.Fatalf("after the reset: %v", err)
		}
		if err := s.Release(ctx, open); err != nil {
			t.Fatal(err)
		}
		if spent(t, s, path) != 0 {
			t.Fatalf("a release after the reset left %d", spent(t, s, path))
		}
	}
	t.Run("file", func(t *testing.T) {
		s, err := ledger.OpenFile(filepath.Join(t.TempDir(), "state.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		run(t, s, true)
	})
	t.Run("postgres", func(t *testing.T) {
		srv := pgtest.Start(t)
		s, err := ledger.OpenPostgres(ctx, srv.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		run(t, s, false)
	})
}
