package ledger_test

import (
	"context"
	"errors"
	"math/big"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	bolt "go.etcd.io/bbolt"

	"github.com/termsgate/termsgate/internal/pgtest"
	"github.com/termsgate/termsgate/ledger"
)

const (
	network = "eip155:84532"
	usdc    = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
)

var key = ledger.Key{Network: network, Asset: usdc}

// stores runs fn against each store kind, reopened by reopen.
func stores(t *testing.T, fn func(t *testing.T, open func(t *testing.T) ledger.Store)) {
	t.Run("file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.db")
		fn(t, func(t *testing.T) ledger.Store {
			s, err := ledger.OpenFile(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
	})
	t.Run("file-exclusive", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.db")
		fn(t, func(t *testing.T) ledger.Store {
			s, err := ledger.OpenFile(path, &ledger.FileOptions{Exclusive: true})
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
	})
	t.Run("postgres", func(t *testing.T) {
		srv := pgtest.Start(t)
		fn(t, func(t *testing.T) ledger.Store {
			s, err := ledger.Open(context.Background(), srv.URL())
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
	})
}

func spent(t *testing.T, s ledger.Store, k ledger.Key) int64 {
	t.Helper()
	n, err := s.Spent(context.Background(), k)
	if err != nil {
		t.Fatal(err)
	}
	return n.Int64()
}

func TestBudget(t *testing.T) {
	stores(t, func(t *testing.T, open func(t *testing.T) ledger.Store) {
		ctx := context.Background()
		s := open(t)
		budget := big.NewInt(25)
		a, err := s.Reserve(ctx, key, big.NewInt(10), budget)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Reserve(ctx, key, big.NewInt(10), budget)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Reserve(ctx, key, big.NewInt(6), budget); !errors.Is(err, ledger.ErrBudgetExhausted) {
			t.Fatalf("reserving past the budget: %v", err)
		}
		if got := spent(t, s, key); got != 20 {
			t.Fatalf("spent %d, want 20", got)
		}
		other := ledger.Key{Network: "eip155:8453", Asset: usdc}
		if _, err := s.Reserve(ctx, other, big.NewInt(25), budget); err != nil {
			t.Fatalf("another network's budget: %v", err)
		}
		if err := s.Commit(ctx, a); err != nil {
			t.Fatal(err)
		}
		if err := s.Release(ctx, a); !errors.Is(err, ledger.ErrNotFound) {
			t.Fatalf("releasing a committed reservation: %v", err)
		}
		if err := s.Release(ctx, b); err != nil {
			t.Fatal(err)
		}
		if err := s.Release(ctx, b); !errors.Is(err, ledger.ErrNotFound) {
			t.Fatalf("releasing twice: %v", err)
		}
		if err := s.Commit(ctx, "nope"); err != nil && !errors.Is(err, ledger.ErrNotFound) {
			t.Fatalf("committing an unknown reservation: %v", err)
		}
		if _, err := s.Reserve(ctx, key, big.NewInt(15), budget); err != nil {
			t.Fatalf("within the budget after a release: %v", err)
		}
		if _, err := s.Reserve(ctx, key, big.NewInt(1_000_000), nil); err != nil {
			t.Fatalf("no ceiling: %v", err)
		}
		if _, err := s.Reserve(ctx, key, big.NewInt(-1), nil); err == nil {
			t.Fatal("a negative amount was reserved")
		}
		s.Close()

		s = open(t)
		defer s.Close()
		if got := spent(t, s, key); got != 1_000_025 {
			t.Fatalf("after reopening, spent %d, want 1000025", got)
		}
	})
}

func TestJournal(t *testing.T) {
	stores(t, func(t *testing.T, open func(t *testing.T) ledger.Store) {
		ctx := context.Background()
		s := open(t)
		res, err := s.Reserve(ctx, key, big.NewInt(10000), big.NewInt(20000))
		if err != nil {
			t.Fatal(err)
		}
		until := time.Unix(1_900_000_000, 0)
		p := &ledger.Payment{
			Reservation: res, Pairing: "x402/exact/eip155/eip3009", Protocol: "x402",
			H:          "0x8b1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e39310072938",
			URL:        "https://api.seller.example/v1/report",
			HeaderName: "PAYMENT-SIGNATURE", Header: "eyJ4NDAyVmVyc2lvbiI6Mn0=", ATR: []byte("the terms"),
			Signed: []byte(`{"x402Version":2}`), PaymentID: "pay_1",
			Network: network, Asset: usdc, Payer: "0xf39F", Payee: "0x2096", Amount: big.NewInt(10000),
			PayableUntil: until,
		}
		if err := s.Record(ctx, p); err != nil {
			t.Fatal(err)
		}
		if p.ID == "" || p.Created.IsZero() {
			t.Fatal("Record set no id or time")
		}
		if err := s.Release(ctx, res); !errors.Is(err, ledger.ErrNotFound) {
			t.Fatalf("the reservation a payment recorded was released: %v", err)
		}
		bad := *p
		bad.ID, bad.Reservation = "", "unknown"
		if err := s.Record(ctx, &bad); !errors.Is(err, ledger.ErrNotFound) {
			t.Fatalf("recording against an unknown reservation: %v", err)
		}
		second := *p
		second.ID, second.Reservation, second.URL, second.Created = "", "", "https://api.seller.example/other", time.Time{}
		if err := s.Record(ctx, &second); err != nil {
			t.Fatal(err)
		}
		s.Close()

		s = open(t)
		defer s.Close()
		pending, err := s.Unanswered(ctx, p.URL)
		if err != nil {
			t.Fatal(err)
		}
		if len(pending) != 1 {
			t.Fatalf("%d unanswered for the URL after reopening, want 1", len(pending))
		}
		got := pending[0]
		if got.ID != p.ID || got.Header != p.Header || got.HeaderName != p.HeaderName || got.Amount.Cmp(p.Amount) != 0 ||
			!got.PayableUntil.Equal(until) || string(got.ATR) != "the terms" || string(got.Signed) != `{"x402Version":2}` || got.PaymentID != "pay_1" || got.H != p.H || got.Reservation != res || !got.Pending() {
			t.Fatalf("journaled %+v, read back %+v", p, got)
		}
		if all, _ := s.Unanswered(ctx, ""); len(all) != 2 {
			t.Fatalf("%d unanswered in all, want 2", len(all))
		}
		if err := s.Answer(ctx, p.ID, 200); err != nil {
			t.Fatal(err)
		}
		if err := s.Answer(ctx, "nope", 200); !errors.Is(err, ledger.ErrNotFound) {
			t.Fatalf("answering an unknown payment: %v", err)
		}
		if pending, _ := s.Unanswered(ctx, p.URL); len(pending) != 0 {
			t.Fatalf("an answered payment is still unanswered: %+v", pending[0])
		}
		list, err := s.Payments(ctx, 0)
		if err != nil || len(list) != 2 {
			t.Fatalf("Payments: %d, %v", len(list), err)
		}
		if list[0].ID != second.ID || list[1].Status != 200 || list[1].Pending() {
			t.Fatalf("Payments is not newest first with the answer: %+v", list)
		}
		if list, _ := s.Payments(ctx, 1); len(list) != 1 {
			t.Fatalf("Payments(1) gave %d", len(list))
		}
		if got := spent(t, s, key); got != 10000 {
			t.Fatalf("spent %d, want 10000", got)
		}
	})
}

// TestConcurrentReservations: 8 goroutines × 50 reservations of 1 against a
// budget of 100 get exactly 100.
func TestConcurrentReservations(t *testing.T) {
	stores(t, func(t *testing.T, open func(t *testing.T) ledger.Store) {
		s := open(t)
		defer s.Close()
		var ok, refused atomic.Int64
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 50 {
					_, err := s.Reserve(context.Background(), key, big.NewInt(1), big.NewInt(100))
					switch {
					case err == nil:
						ok.Add(1)
					case errors.Is(err, ledger.ErrBudgetExhausted):
						refused.Add(1)
					default:
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		if ok.Load() != 100 || refused.Load() != 300 || spent(t, s, key) != 100 {
			t.Fatalf("%d reserved, %d refused, spent %d; want 100, 300, 100", ok.Load(), refused.Load(), spent(t, s, key))
		}
	})
}

func TestNewerSchemaRefused(t *testing.T) {
	t.Run("file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.db")
		s, err := ledger.OpenFile(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		db, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("meta")).Put([]byte("schema"), []byte("99")) })
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		_, err = ledger.OpenFile(path, nil)
		if !errors.Is(err, ledger.ErrSchemaNewer) || !strings.Contains(err.Error(), "version 99") {
			t.Fatalf("opening a newer schema: %v", err)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		srv := pgtest.Start(t)
		ctx := context.Background()
		s, err := ledger.OpenPostgres(ctx, srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		s, err = ledger.OpenPostgres(ctx, srv.URL()) // an up-to-date schema opens again
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		conn, err := pgx.Connect(ctx, srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		_, err = conn.Exec(ctx, `UPDATE termsgate_schema SET version = 99`)
		conn.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ledger.OpenPostgres(ctx, srv.URL())
		if !errors.Is(err, ledger.ErrSchemaNewer) || !strings.Contains(err.Error(), "version 99") || strings.Contains(err.Error(), "password") {
			t.Fatalf("opening a newer schema: %v", err)
		}
	})
}

// TestFileSharedByTwoOpeners: two stores on one file (as two processes
// would open it) share its budget exactly, and see each other's journal.
func TestFileSharedByTwoOpeners(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	var stores [2]*ledger.File
	for i := range stores {
		s, err := ledger.OpenFile(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i] = s
	}
	var ok atomic.Int64
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for range 10 {
				_, err := stores[i%2].Reserve(context.Background(), key, big.NewInt(1), big.NewInt(15))
				switch {
				case err == nil:
					ok.Add(1)
				case !errors.Is(err, ledger.ErrBudgetExhausted):
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if ok.Load() != 15 || spent(t, stores[0], key) != 15 || spent(t, stores[1], key) != 15 {
		t.Fatalf("%d reserved, spent %d and %d; want 15", ok.Load(), spent(t, stores[0], key), spent(t, stores[1], key))
	}
	p := &ledger.Payment{URL: "https://api.seller.example/v1/report", HeaderName: "PAYMENT-SIGNATURE", Header: "x", H: "0x00"}
	if err := stores[0].Record(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if list, err := stores[1].Unanswered(context.Background(), ""); err != nil || len(list) != 1 || list[0].ID != p.ID {
		t.Fatalf("the other opener sees %v, %v", list, err)
	}
	stores[0].Close()
	if _, err := stores[0].Spent(context.Background(), key); err == nil {
		t.Fatal("a closed store still answers")
	}
}

func TestFileExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := ledger.OpenFile(path, &ledger.FileOptions{Exclusive: true})
	if err != nil {
		t.Fatal(err)
	}
	// bbolt's lock is per open file description, so a second open in this
	// process waits as another process would.
	_, err = ledger.OpenFile(path, &ledger.FileOptions{LockTimeout: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "stayed locked by another process") {
		t.Fatalf("opening a file held exclusively: %v", err)
	}
	s.Close()
	s2, err := ledger.OpenFile(path, nil)
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	s2.Close()
}
