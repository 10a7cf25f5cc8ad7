package ledger_test

import (
	"context"
	"math/big"
	"path/filepath"
	"testing"

	"github.com/termsgate/termsgate/internal/pgtest"
	"github.com/termsgate/termsgate/ledger"
)

// BenchmarkReserveCommit is one budget round trip as a payment makes it:
// reserve before signing, commit after. The file syncs to disk on each;
// PostgreSQL (synchronous_commit on, fsync on) is on loopback TCP.
func BenchmarkReserveCommit(b *testing.B) {
	run := func(b *testing.B, s ledger.Store) {
		ctx := context.Background()
		amount, budget := big.NewInt(1), big.NewInt(1<<62)
		b.ReportAllocs()
		for b.Loop() {
			id, err := s.Reserve(ctx, key, amount, budget)
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Commit(ctx, id); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("file", func(b *testing.B) { // opened for each operation, shareable
		s, err := ledger.OpenFile(filepath.Join(b.TempDir(), "state.db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		run(b, s)
	})
	b.Run("file-exclusive", func(b *testing.B) { // held open by one process
		s, err := ledger.OpenFile(filepath.Join(b.TempDir(), "state.db"), &ledger.FileOptions{Exclusive: true})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		run(b, s)
	})
	b.Run("postgres", func(b *testing.B) {
		srv := pgtest.Start(b)
		s, err := ledger.OpenPostgres(context.Background(), srv.URL())
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		run(b, s)
	})
}
