package ledger_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/termsgate/termsgate/internal/pgtest"
	"github.com/termsgate/termsgate/ledger"
)

// BenchmarkReserveCommitParallel is BenchmarkReserveCommit with 64 payers
// sharing one store: ns/op is wall time over all of them, so
// ReserveCommit's ns/op divided by this one is what concurrent payers gain
// (on the file, reservations arriving together share one transaction and
// one sync; PostgreSQL flushes concurrent commits together itself).
func BenchmarkReserveCommitParallel(b *testing.B) {
	b.Run("file", func(b *testing.B) {
		s, err := ledger.OpenFile(filepath.Join(b.TempDir(), "state.db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		reserveCommitPayers(b, s, 64)
	})
	b.Run("file-exclusive", func(b *testing.B) {
		s, err := ledger.OpenFile(filepath.Join(b.TempDir(), "state.db"), &ledger.FileOptions{Exclusive: true})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		reserveCommitPayers(b, s, 64)
	})
	b.Run("postgres", func(b *testing.B) {
		srv := pgtest.Start(b)
		s, err := ledger.OpenPostgres(context.Background(), srv.URL())
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		reserveCommitPayers(b, s, 64)
	})
}

// reserveCommitPayers has payers goroutines reserve and commit b.N times in
// all, with no ceiling.
func reserveCommitPayers(b *testing.B, s ledger.Store, payers int) {
	ctx := context.Background()
	amount := big.NewInt(1)
	b.ReportAllocs()
	var next atomic.Int64
	var wg sync.WaitGroup
	n := int64(b.N)
	for range payers {
		wg.Go(func() {
			for next.Add(1) <= n {
				id, err := s.Reserve(ctx, key, amount, nil)
				if err != nil {
					b.Error(err)
					return
				}
				if err := s.Commit(ctx, id); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// reserveChildEnv makes TestReserveChild a child of TestReserveFleetPostgres.
const reserveChildEnv = "TERMSGATE_LEDGER_RESERVE_CHILD"

type reserveResult struct {
	Reserved, Refused int
	Errors            []string
	Seconds           float64
}

// TestReserveChild is the body of TestReserveFleetPostgres's processes: 16
// payers reserving and committing ATTEMPTS times each against BUDGET; run
// directly it does nothing.
func TestReserveChild(t *testing.T) {
	if os.Getenv(reserveChildEnv) == "" {
		return
	}
	ctx := context.Background()
	s, err := ledger.Open(ctx, os.Getenv("STATE"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	attempts, _ := strconv.Atoi(os.Getenv("ATTEMPTS"))
	budget, _ := new(big.Int).SetString(os.Getenv("BUDGET"), 10)
	var mu sync.Mutex
	var r reserveResult
	var wg sync.WaitGroup
	start := time.Now()
	for range 16 {
		wg.Go(func() {
			for range attempts {
				id, err := s.Reserve(ctx, key, big.NewInt(1), budget)
				if err == nil {
					err = s.Commit(ctx, id)
				}
				mu.Lock()
				switch {
				case err == nil:
					r.Reserved++
				case errors.Is(err, ledger.ErrBudgetExhausted):
					r.Refused++
				default:
					r.Errors = append(r.Errors, err.Error())
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	r.Seconds = time.Since(start).Seconds()
	out, _ := json.Marshal(r)
	fmt.Printf("RESULT %s\n", out)
}

// TestReserveFleetPostgres: 4 processes × 16 payers reserve and commit
// against one PostgreSQL budget: first with no ceiling (the throughput),
// then 4 × 16 × 25 = 1,600 attempts of 1 against a ceiling of 1,000, which
// must give exactly 1,000 reservations and 600 refusals.
func TestReserveFleetPostgres(t *testing.T) {
	srv := pgtest.Start(t)
	for _, c := range []struct {
		name   string
		budget string
		want   int
	}{{"no ceiling", "", 1600}, {"ceiling 1000", "1000", 1000}} {
		t.Run(c.name, func(t *testing.T) {
			url := srv.NewDatabase(t)
			store, err := ledger.OpenPostgres(context.Background(), url) // migrated before the children start
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			results := make([]reserveResult, 4)
			var wg sync.WaitGroup
			for i := range results {
				wg.Go(func() {
					cmd := exec.Command(os.Args[0], "-test.run=^TestReserveChild$", "-test.count=1")
					cmd.Env = append(os.Environ(), reserveChildEnv+"=1", "STATE="+url, "ATTEMPTS=25", "BUDGET="+c.budget)
					out, err := cmd.CombinedOutput()
					_, line, ok := strings.Cut(string(out), "RESULT ")
					line, _, _ = strings.Cut(line, "\n")
					if err != nil || !ok || json.Unmarshal([]byte(line), &results[i]) != nil {
						t.Errorf("process %d: %v\n%s", i, err, out)
					}
				})
			}
			wg.Wait()
			if t.Failed() {
				t.FailNow()
			}
			var reserved, refused int
			var slowest float64
			for _, r := range results {
				reserved, refused = reserved+r.Reserved, refused+r.Refused
				slowest = max(slowest, r.Seconds)
				for _, e := range r.Errors {
					t.Error(e)
				}
			}
			n, err := store.Spent(context.Background(), key)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("4 processes × 16 payers: %d reserved and committed, %d refused, in %.2f s (%.0f attempts/s); spent %v",
				reserved, refused, slowest, 1600/slowest, n)
			if reserved != c.want || refused != 1600-c.want || n.Int64() != int64(c.want) {
				t.Fatalf("%d reserved, %d refused, spent %v; want %d, %d, %d", reserved, refused, n, c.want, 1600-c.want, c.want)
			}
		})
	}
}
