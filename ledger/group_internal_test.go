package ledger

import (
	"context"
	"errors"
	"math/big"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	bolt "go.etcd.io/bbolt"
)

var testKey = Key{Network: "eip155:84532", Asset: "0x036cbd53842c5426634e7929541ec2318f3dcf7e"}

// TestFileGroupCommit: 64 goroutines × 10 reservations of 1 against a
// budget of 300 get exactly 300, in fewer synced transactions than
// reservations; another opener of the file sees the 300 at once (each was
// on disk when Reserve returned). One caller alone spends one transaction
// per reservation, waiting for nobody.
func TestFileGroupCommit(t *testing.T) {
	for _, exclusive := range []bool{false, true} {
		name := map[bool]string{false: "file", true: "file-exclusive"}[exclusive]
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			f, err := OpenFile(path, &FileOptions{Exclusive: exclusive})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			before := f.synced.Load()
			var ok, refused atomic.Int64
			var wg sync.WaitGroup
			for range 64 {
				wg.Go(func() {
					for range 10 {
						_, err := f.Reserve(context.Background(), testKey, big.NewInt(1), big.NewInt(300))
						switch {
						case err == nil:
							ok.Add(1)
						case errors.Is(err, ErrBudgetExhausted):
							refused.Add(1)
						default:
							t.Error(err)
						}
					}
				})
			}
			wg.Wait()
			txs := f.synced.Load() - before
			t.Logf("640 reservations in %d synced transactions", txs)
			if ok.Load() != 300 || refused.Load() != 340 {
				t.Fatalf("%d reserved, %d refused; want 300, 340", ok.Load(), refused.Load())
			}
			if txs >= 300 {
				t.Fatalf("%d transactions for 300 reservations: none shared", txs)
			}
			if !exclusive {
				other, err := OpenFile(path, nil)
				if err != nil {
					t.Fatal(err)
				}
				n, err := other.Spent(context.Background(), testKey)
				if err != nil || n.Int64() != 300 {
					t.Fatalf("another opener reads %v spent (%v), want 300", n, err)
				}
				other.Close()
			}

			before = f.synced.Load()
			for range 5 {
				if _, err := f.Reserve(context.Background(), testKey, big.NewInt(0), nil); err != nil {
					t.Fatal(err)
				}
			}
			if n := f.synced.Load() - before; n != 5 {
				t.Fatalf("one caller, 5 reservations: %d transactions", n)
			}
		})
	}
}

// TestFileGroupFailure: a change that fails for another reason than a
// clean refusal rolls its group back and runs alone with its error; the
// changes grouped with it are still made, each once.
func TestFileGroupFailure(t *testing.T) {
	f, err := OpenFile(filepath.Join(t.TempDir(), "state.db"), &FileOptions{Exclusive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	broken := errors.New("a write that failed")
	var wg sync.WaitGroup
	var failures, reserved atomic.Int64
	for i := range 64 {
		wg.Go(func() {
			if i%8 == 0 {
				err := f.update(func(tx *bolt.Tx) error {
					if err := tx.Bucket(bucketBudgets).Put(budgetKey(testKey), []byte("999")); err != nil {
						return err
					}
					return broken // after a write: the transaction must not keep it
				})
				if !errors.Is(err, broken) {
					t.Errorf("the failing change returned %v", err)
				}
				failures.Add(1)
				return
			}
			if _, err := f.Reserve(context.Background(), testKey, big.NewInt(1), big.NewInt(1000)); err != nil {
				t.Error(err)
			}
			reserved.Add(1)
		})
	}
	wg.Wait()
	n, err := f.Spent(context.Background(), testKey)
	if err != nil || n.Int64() != reserved.Load() || failures.Load() != 8 {
		t.Fatalf("spent %v (%v) after %d reservations and %d failures", n, err, reserved.Load(), failures.Load())
	}
}
