package ledger_test

import (
	"context"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	bolt "go.etcd.io/bbolt"

	"github.com/termsgate/termsgate/internal/pgtest"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/ledger"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

func journaledPayment() *ledger.Payment {
	return &ledger.Payment{
		Pairing: "x402/exact/eip155/eip3009", Protocol: "x402",
		H:   "0x8b1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e39310072938",
		URL: "https://api.seller.example/v1/report", HeaderName: "PAYMENT-SIGNATURE", Header: "eyJ4NDAyVmVyc2lvbiI6Mn0=",
		Network: network, Asset: usdc, Payer: "0xf39F", Payee: "0x2096", Amount: big.NewInt(10000),
		PayableUntil: time.Unix(1_900_000_000, 0),
	}
}

// TestSettlementRecorded: each store keeps a settlement read with its
// payment, durably (read back after reopening), replaced by a later read,
// kept through the payment's answer; an unknown payment is ErrNotFound and
// a status that is not JSON is refused.
func TestSettlementRecorded(t *testing.T) {
	stores(t, func(t *testing.T, open func(t *testing.T) ledger.Store) {
		ctx := context.Background()
		s := open(t)
		p := journaledPayment()
		if err := s.Record(ctx, p); err != nil {
			t.Fatal(err)
		}
		ss, ok := s.(ledger.SettlementStore)
		if !ok {
			t.Fatalf("%T keeps no settlements", s)
		}
		checked := time.Unix(1_800_000_000, 123)
		first := &ledger.Settlement{Checked: checked, Network: network, Transaction: "0x" + strings.Repeat("00", 32),
			Status: []byte(`{"state":"pending","why":"not-found"}`), Problems: []string{pay.ProblemNotLanded}}
		if err := ss.RecordSettlement(ctx, p.ID, first); err != nil {
			t.Fatal(err)
		}
		if err := ss.RecordSettlement(ctx, "nope", first); !errors.Is(err, ledger.ErrNotFound) {
			t.Fatalf("a settlement of an unknown payment: %v", err)
		}
		if err := ss.RecordSettlement(ctx, p.ID, &ledger.Settlement{Status: []byte("{nope")}); err == nil {
			t.Fatal("a status that is not JSON was kept")
		}
		s.Close()

		s = open(t)
		list, err := s.Payments(ctx, 0)
		if err != nil || len(list) != 1 || list[0].Settlement == nil {
			t.Fatalf("after reopening: %+v, %v", list, err)
		}
		got := list[0].Settlement
		if !got.Checked.Equal(checked) || got.Settled || got.Transaction != first.Transaction || string(got.Status) != string(first.Status) ||
			strings.Join(got.Problems, ",") != pay.ProblemNotLanded || got.Moved != nil || got.Network != network {
			t.Fatalf("kept %+v, read back %+v", first, got)
		}
		// Read again later: settled, with what moved; the answer keeps it.
		later := &ledger.Settlement{Checked: checked.Add(time.Minute), Network: network, Transaction: "0x" + strings.Repeat("ab", 32),
			Settled: true, Status: []byte(`{"state":"settled","finality":"finalized","blockNumber":"7"}`), Moved: big.NewInt(10000)}
		if err := s.(ledger.SettlementStore).RecordSettlement(ctx, p.ID, later); err != nil {
			t.Fatal(err)
		}
		if err := s.Answer(ctx, p.ID, 200); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s = open(t)
		defer s.Close()
		list, err = s.Payments(ctx, 0)
		if err != nil || len(list) != 1 || list[0].Settlement == nil || list[0].Status != 200 {
			t.Fatalf("after the answer: %+v, %v", list, err)
		}
		got = list[0].Settlement
		if !got.Settled || got.Moved == nil || got.Moved.Int64() != 10000 || len(got.Problems) != 0 || got.Transaction != later.Transaction {
			t.Fatalf("kept %+v, read back %+v", later, got)
		}
	})
}

// TestSettlementSchemaMigrated: a store at schema 2 (before settlements)
// opens migrated, its payments read with no settlement, and keeps one.
func TestSettlementSchemaMigrated(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, s ledger.Store) {
		t.Helper()
		list, err := s.Payments(ctx, 0)
		if err != nil || len(list) != 1 || list[0].Settlement != nil {
			t.Fatalf("the old payment: %+v, %v", list, err)
		}
		if err := s.(ledger.SettlementStore).RecordSettlement(ctx, list[0].ID, &ledger.Settlement{Checked: time.Now(), Settled: true}); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.db")
		s, err := ledger.OpenFile(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Record(ctx, journaledPayment()); err != nil {
			t.Fatal(err)
		}
		s.Close()
		db, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("meta")).Put([]byte("schema"), []byte("2")) })
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		if s, err = ledger.OpenFile(path, nil); err != nil {
			t.Fatal(err)
		}
		check(t, s)
		s.Close()
		if db, err = bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true}); err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		_ = db.View(func(tx *bolt.Tx) error {
			if v := string(tx.Bucket([]byte("meta")).Get([]byte("schema"))); v != "3" {
				t.Errorf("schema %q after opening, want 3", v)
			}
			return nil
		})
	})
	t.Run("postgres", func(t *testing.T) {
		srv := pgtest.Start(t)
		s, err := ledger.OpenPostgres(ctx, srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Record(ctx, journaledPayment()); err != nil {
			t.Fatal(err)
		}
		s.Close()
		conn, err := pgx.Connect(ctx, srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		_, err = conn.Exec(ctx, `ALTER TABLE termsgate_payments DROP COLUMN settlement; UPDATE termsgate_schema SET version = 2`)
		conn.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s, err = ledger.OpenPostgres(ctx, srv.URL()); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		check(t, s)
	})
}

// gethUnknownTx is a JSON-RPC node on loopback answering as geth does for a
// chain (Base Sepolia's id) that holds no receipt of the transaction asked:
// eth_chainId, and eth_getTransactionReceipt's null result.
func gethUnknownTx(t *testing.T) (evm.Reader, *atomic.Int64) {
	t.Helper()
	var receipts atomic.Int64
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		v, _ := jsonv.Parse(raw)
		o, _ := jsonv.AsObject(v)
		method, _ := o.GetString("method")
		id, _ := o.Get("id")
		var result jsonv.Value
		switch method {
		case "eth_chainId":
			result = "0x14a34"
		case "eth_getTransactionReceipt":
			receipts.Add(1)
		default:
			_, _ = w.Write(jsonv.Marshal(jsonv.Obj("jsonrpc", "2.0", "id", id, "error", jsonv.Obj("code", -32601, "message", "the method "+method+" does not exist/is not available"))))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("jsonrpc", "2.0", "id", id, "result", result)))
	}))
	t.Cleanup(node.Close)
	c, err := evmrpc.Dial(node.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	r, err := c.Reader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r, &receipts
}

// TestSettlementJournaled: a Transport journaling in each store, whose
// Verifier reads the chain, keeps what the read showed with the payment:
// the seller's answer names a transaction the node does not hold, and the
// journal says not-landed (pending not-found) beside the 200 it answered.
func TestSettlementJournaled(t *testing.T) {
	stores(t, func(t *testing.T, open func(t *testing.T) ledger.Store) {
		ctx := context.Background()
		store := open(t)
		defer store.Close()
		s := startSeller(t)
		reader, receipts := gethUnknownTx(t)
		c, signer, tr := client(t, store, s.srv.Transport(), 1, "")
		tr.Verify = &pay.Verifier{EVM: map[string]evm.Reader{network: reader}}
		resp, err := fetch(c, s.ResourceURL())
		if err != nil {
			t.Fatal(err)
		}
		res := pay.ResultOf(resp)
		if resp.StatusCode != 200 || res == nil || res.Verified == nil || signer.calls.Load() != 1 || receipts.Load() != 1 {
			t.Fatalf("status %d, result %+v, %d signatures, %d receipt reads", resp.StatusCode, res, signer.calls.Load(), receipts.Load())
		}
		list, err := store.Payments(ctx, 0)
		if err != nil || len(list) != 1 {
			t.Fatalf("journal: %+v, %v", list, err)
		}
		got := list[0].Settlement
		if got == nil || got.Settled || strings.Join(got.Problems, ",") != pay.ProblemNotLanded ||
			string(got.Status) != `{"state":"pending","why":"not-found"}` || got.Transaction != res.Settlement.Transaction || list[0].Status != 200 {
			t.Fatalf("journaled %+v (settlement %+v)", list[0], got)
		}
	})
}
