package ledger_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/pgtest"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/ledger"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/pay/budgettest"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/signer"
)

const (
	price    = 10000 // the vectors' seller asks 0.01 USDC
	paidBody = `{"report":"the paid resource"}`
	// childEnv selects TestChild's role in a child process.
	childEnv = "TERMSGATE_LEDGER_CHILD"
)

func TestBudgetContract(t *testing.T) {
	t.Run("file", func(t *testing.T) {
		budgettest.Run(t, func(t *testing.T) pay.Budget {
			s, err := ledger.OpenFile(filepath.Join(t.TempDir(), "state.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return ledger.Budget(s)
		})
	})
	t.Run("postgres", func(t *testing.T) {
		srv := pgtest.Start(t)
		budgettest.Run(t, func(t *testing.T) pay.Budget {
			s, err := ledger.OpenPostgres(context.Background(), srv.NewDatabase(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return ledger.Budget(s)
		})
	})
}

// seller is the vectors' x402 seller on loopback TLS, reachable from child
// processes through the address and certificate in its environment.
type seller struct {
	*x402seller.Seller
	srv *loopback.Server
	env []string
}

func startSeller(t *testing.T) *seller {
	t.Helper()
	raw, err := os.ReadFile("../vectors/testdata/buyer.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Fixed struct{ A string } }
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	a, _ := hex.DecodeString(doc.Fixed.A)
	s := &seller{Seller: x402seller.New(a, []byte(paidBody))}
	if s.srv, err = loopback.Start(s.Seller); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.srv.Close)
	certFile := filepath.Join(t.TempDir(), "seller.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})
	if err := os.WriteFile(certFile, cert, 0o600); err != nil {
		t.Fatal(err)
	}
	s.env = []string{"SELLER_ADDR=" + s.srv.Listener.Addr().String(), "SELLER_CERT=" + certFile}
	return s
}

// sellerTransport reaches the seller named by the environment.
func sellerTransport() (*http.Transport, error) {
	pemBytes, err := os.ReadFile(os.Getenv("SELLER_CERT"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		return nil, errors.New("no certificate in SELLER_CERT")
	}
	addr := os.Getenv("SELLER_ADDR")
	var d net.Dialer
	return &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		MaxIdleConnsPerHost: 4,
	}, nil
}

// countingSigner counts signatures, in memory and (when file is set) one
// line per signature appended to a file, which survives a SIGKILL.
type countingSigner struct {
	gate.Signer
	calls atomic.Int64
	file  string
}

func (c *countingSigner) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	c.calls.Add(1)
	if c.file != "" {
		f, err := os.OpenFile(c.file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, err
		}
		_, err = f.WriteString("signed\n")
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return c.Signer.Sign(ctx, req)
}

// client is a paying client on store with a budget of budget payments.
func client(tb testing.TB, store ledger.Store, base *http.Transport, budget int64, signFile string) (*http.Client, *countingSigner, *pay.Transport) {
	tb.Helper()
	l, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		tb.Fatal(err)
	}
	cs := &countingSigner{Signer: l, file: signFile}
	policy, err := pay.NewPolicy(pay.PolicyConfig{
		Limits: []pay.Limit{{Network: "eip155:84532", Asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
			MaxAmount: big.NewInt(price), Budget: big.NewInt(budget * price)}},
		Budget: ledger.Budget(store),
	})
	if err != nil {
		tb.Fatal(err)
	}
	t := &pay.Transport{
		Base:    base,
		Gate:    &gate.Gate{Fetcher: &atr.Fetcher{Client: &http.Client{Transport: base}}},
		Signer:  cs,
		Policy:  policy,
		Journal: ledger.Journal(store),
	}
	return pay.NewClient(t), cs, t
}

func fetch(c *http.Client, url string) (*http.Response, error) {
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, nil
}

var usdcKey = ledger.Key{Network: "eip155:84532", Asset: "0x036cbd53842c5426634e7929541ec2318f3dcf7e"}

// killAfterRecord is the crash: the process dies by SIGKILL as soon as the
// signed payment is journaled, before it is sent.
type killAfterRecord struct{ pay.Journal }

func (k killAfterRecord) Record(ctx context.Context, r *pay.Result) (string, error) {
	id, err := k.Journal.Record(ctx, r)
	if err == nil {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
	return id, err
}

// childResult is what a child process reports on its standard output.
type childResult struct {
	Signed, Paid, Exhausted int
	Errors                  []string
	Seconds                 float64 // the payment loop alone, without starting the process
}

// TestChild is the body of the child processes the tests below start; run
// directly it does nothing.
func TestChild(t *testing.T) {
	role := os.Getenv(childEnv)
	if role == "" {
		return
	}
	base, err := sellerTransport()
	if err != nil {
		t.Fatal(err)
	}
	store, err := ledger.Open(context.Background(), os.Getenv("STATE"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	url := "https://api.seller.example/v1/report"
	switch role {
	case "crash":
		c, _, tr := client(t, store, base, 1, os.Getenv("SIGN_FILE"))
		tr.Journal = killAfterRecord{tr.Journal}
		_, err := fetch(c, url)
		t.Fatalf("still alive after journaling: %v", err)
	case "fleet":
		c, cs, _ := client(t, store, base, 100, "")
		var r childResult
		start := time.Now()
		for range 50 {
			resp, err := fetch(c, url)
			var d *gate.Decline
			switch {
			case err == nil && resp.StatusCode == http.StatusOK:
				r.Paid++
			case errors.As(err, &d) && strings.HasPrefix(d.Detail, pay.DetailBudgetExhausted):
				r.Exhausted++
			case err != nil:
				r.Errors = append(r.Errors, err.Error())
			default:
				r.Errors = append(r.Errors, resp.Status)
			}
		}
		r.Signed, r.Seconds = int(cs.calls.Load()), time.Since(start).Seconds()
		out, _ := json.Marshal(r)
		fmt.Printf("RESULT %s\n", out)
	}
}

func child(t *testing.T, role string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestChild$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), childEnv+"="+role), env...)
	return cmd
}

// TestCrashBetweenJournalAndSend: a child signs a payment, journals it and
// is killed before sending it. On restart the payment is presented again
// (not signed again), the budget counts it once, and the signer was called
// once in all.
func TestCrashBetweenJournalAndSend(t *testing.T) {
	s := startSeller(t)
	dir := t.TempDir()
	state, signFile := filepath.Join(dir, "state.db"), filepath.Join(dir, "signed")
	cmd := child(t, "crash", append(s.env, "STATE="+state, "SIGN_FILE="+signFile)...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed: %v\n%s", err, out)
	}
	if s.Paid.Load() != 0 || s.Rejected.Load() != 0 {
		t.Fatalf("the seller got a payment from the crashed child (paid %d, rejected %d)", s.Paid.Load(), s.Rejected.Load())
	}

	store, err := ledger.OpenFile(state, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	pending, err := store.Unanswered(ctx, "")
	if err != nil || len(pending) != 1 {
		t.Fatalf("after the crash: %d unanswered, %v; want 1", len(pending), err)
	}
	c, cs, _ := client(t, store, s.srv.Transport(), 1, signFile)
	resp, err := fetch(c, s.ResourceURL())
	if err != nil {
		t.Fatal(err)
	}
	res := pay.ResultOf(resp)
	if resp.StatusCode != http.StatusOK || res == nil || !res.Again || res.Header != pending[0].Header {
		t.Fatalf("after restart: %s, result %+v; want 200 for the journaled payment presented again", resp.Status, res)
	}
	if cs.calls.Load() != 0 || s.Paid.Load() != 1 {
		t.Fatalf("after restart: %d signatures, %d paid; want 0 and 1", cs.calls.Load(), s.Paid.Load())
	}
	signed, _ := os.ReadFile(signFile)
	if n := strings.Count(string(signed), "signed\n"); n != 1 {
		t.Fatalf("the signer was called %d times across both processes; want 1", n)
	}
	if n, _ := store.Spent(ctx, usdcKey); n.Int64() != price {
		t.Fatalf("spent %s; want %d, counted once", n, price)
	}
	if pending, _ := store.Unanswered(ctx, ""); len(pending) != 0 {
		t.Fatalf("still unanswered after the seller answered: %+v", pending)
	}
	// The budget was one payment: it is spent, so a new one is refused.
	_, err = fetch(c, s.ResourceURL())
	var d *gate.Decline
	if !errors.As(err, &d) || !strings.HasPrefix(d.Detail, pay.DetailBudgetExhausted) || cs.calls.Load() != 0 {
		t.Fatalf("a second payment past the budget: %v, %d signatures", err, cs.calls.Load())
	}
	list, _ := store.Payments(ctx, 0)
	if len(list) != 1 || list[0].Status != http.StatusOK {
		t.Fatalf("journal: %+v", list)
	}
}

// fleet runs n processes (or goroutines) of 50 payments against one budget
// of 100 payments and checks that exactly 100 were signed and paid.
func checkFleet(t *testing.T, s *seller, store ledger.Store, results []childResult, elapsed time.Duration) {
	t.Helper()
	var signed, paid, exhausted int
	for _, r := range results {
		signed, paid, exhausted = signed+r.Signed, paid+r.Paid, exhausted+r.Exhausted
		for _, e := range r.Errors {
			t.Errorf("a payment failed: %s", e)
		}
	}
	ctx := context.Background()
	spent, err := store.Spent(ctx, usdcKey)
	if err != nil {
		t.Fatal(err)
	}
	list, err := store.Payments(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	answered := 0
	for _, p := range list {
		if p.Status == http.StatusOK {
			answered++
		}
	}
	if signed != 100 || paid != 100 || exhausted != 300 || s.Paid.Load() != 100 || spent.Int64() != 100*price ||
		len(list) != 100 || answered != 100 {
		t.Fatalf("signed %d, paid %d (seller %d), exhausted %d, spent %s, journaled %d (%d answered 200); want 100, 100, 300, %d, 100",
			signed, paid, s.Paid.Load(), exhausted, spent, len(list), answered, 100*price)
	}
	var loops float64 // the longest payment loop of the children
	for _, r := range results {
		loops = max(loops, r.Seconds)
	}
	if loops == 0 {
		loops = elapsed.Seconds()
	}
	t.Logf("400 attempts (100 paid, 300 refused by the budget) in %s, %.0f attempts/s; the payment loops alone %.3fs, %.0f attempts/s, %.0f payments/s",
		elapsed.Round(time.Millisecond), 400/elapsed.Seconds(), loops, 400/loops, 100/loops)
}

// TestFleetPostgres: 8 processes × 50 payments against one PostgreSQL
// budget of 100 payments.
func TestFleetPostgres(t *testing.T) {
	srv := pgtest.Start(t)
	s := startSeller(t)
	url := srv.NewDatabase(t)
	store, err := ledger.OpenPostgres(context.Background(), url) // migrated before the children start
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	results := make([]childResult, 8)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range results {
		wg.Go(func() {
			out, err := child(t, "fleet", append(s.env, "STATE="+url)...).CombinedOutput()
			if err != nil {
				t.Errorf("child %d: %v\n%s", i, err, out)
				return
			}
			_, line, ok := strings.Cut(string(out), "RESULT ")
			line, _, _ = strings.Cut(line, "\n")
			if !ok || json.Unmarshal([]byte(line), &results[i]) != nil {
				t.Errorf("child %d said no result:\n%s", i, out)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	checkFleet(t, s, store, results, time.Since(start))
}

// TestFleetFile: the same with the embedded store and 8 goroutines of one
// process.
func TestFleetFile(t *testing.T) {
	s := startSeller(t)
	store, err := ledger.OpenFile(filepath.Join(t.TempDir(), "state.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c, cs, _ := client(t, store, s.srv.Transport(), 100, "")
	results := make([]childResult, 8)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range results {
		wg.Go(func() {
			r := &results[i]
			for range 50 {
				resp, err := fetch(c, s.ResourceURL())
				var d *gate.Decline
				switch {
				case err == nil && resp.StatusCode == http.StatusOK:
					r.Paid++
				case errors.As(err, &d) && strings.HasPrefix(d.Detail, pay.DetailBudgetExhausted):
					r.Exhausted++
				case err != nil:
					r.Errors = append(r.Errors, err.Error())
				default:
					r.Errors = append(r.Errors, resp.Status)
				}
			}
		})
	}
	wg.Wait()
	results[0].Signed = int(cs.calls.Load())
	checkFleet(t, s, store, results, time.Since(start))
}

// TestPostgresGoesAway: with the database stopped, payments are declined
// with a detail naming the failure and nothing is signed; once it is back,
// payments go through again.
func TestPostgresGoesAway(t *testing.T) {
	srv := pgtest.Start(t)
	s := startSeller(t)
	store, err := ledger.OpenPostgres(context.Background(), srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c, cs, _ := client(t, store, s.srv.Transport(), 100, "")
	if resp, err := fetch(c, s.ResourceURL()); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("before: %v", err)
	}

	srv.Stop(t)
	for range 3 {
		_, err := fetch(c, s.ResourceURL())
		var d *gate.Decline
		if !errors.As(err, &d) || d.Code != gate.NoPayableOption ||
			!strings.HasPrefix(d.Detail, pay.DetailJournalUnavailable) && !strings.HasPrefix(d.Detail, pay.DetailBudgetUnavailable) {
			t.Fatalf("with the database down: %v; want a no-payable-option decline naming the store", err)
		}
		if !strings.Contains(d.Detail, "127.0.0.1") {
			t.Errorf("the detail does not say which store failed: %s", d.Detail)
		}
	}
	if cs.calls.Load() != 1 || s.Paid.Load() != 1 {
		t.Fatalf("with the database down: %d signatures, %d paid; want 1 and 1 (from before)", cs.calls.Load(), s.Paid.Load())
	}

	srv.Restart(t)
	var err2 error
	for range 5 { // the pool may still hand out a connection the restart cut
		var resp *http.Response
		if resp, err2 = fetch(c, s.ResourceURL()); err2 == nil && resp.StatusCode == http.StatusOK {
			break
		}
	}
	if err2 != nil {
		t.Fatalf("after the database came back: %v", err2)
	}
	if cs.calls.Load() != 2 || s.Paid.Load() != 2 {
		t.Fatalf("after: %d signatures, %d paid; want 2 and 2", cs.calls.Load(), s.Paid.Load())
	}
	if n, _ := store.Spent(context.Background(), usdcKey); n.Int64() != 2*price {
		t.Fatalf("spent %s; want %d", n, 2*price)
	}
}

// failingRecord is a journal that cannot record.
type failingRecord struct{ pay.Journal }

func (failingRecord) Record(context.Context, *pay.Result) (string, error) {
	return "", errors.New("disk full")
}

// TestJournalFailsAfterSigning: a payment that cannot be journaled is not
// sent, and its budget stays spent (a signature exists).
func TestJournalFailsAfterSigning(t *testing.T) {
	s := startSeller(t)
	store, err := ledger.OpenFile(filepath.Join(t.TempDir(), "state.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c, cs, tr := client(t, store, s.srv.Transport(), 10, "")
	tr.Journal = failingRecord{tr.Journal}
	_, err = fetch(c, s.ResourceURL())
	var d *gate.Decline
	if !errors.As(err, &d) || !strings.HasPrefix(d.Detail, pay.DetailJournalUnavailable) || !strings.Contains(d.Detail, "disk full") {
		t.Fatalf("%v; want a %s decline", err, pay.DetailJournalUnavailable)
	}
	if cs.calls.Load() != 1 || s.Paid.Load() != 0 || s.Rejected.Load() != 0 {
		t.Fatalf("%d signatures, %d paid, %d rejected; want 1, 0, 0", cs.calls.Load(), s.Paid.Load(), s.Rejected.Load())
	}
	if n, _ := store.Spent(context.Background(), usdcKey); n.Int64() != price {
		t.Fatalf("spent %s; want %d", n, price)
	}
}

// TestExpiredJournaledPaymentGivenUp: an unanswered payment past its
// validBefore is not presented again; it is marked given up (status 0) and
// a new payment is signed.
func TestExpiredJournaledPaymentGivenUp(t *testing.T) {
	s := startSeller(t)
	store, err := ledger.OpenFile(filepath.Join(t.TempDir(), "state.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	old := &ledger.Payment{URL: s.ResourceURL(), Protocol: "x402", HeaderName: "PAYMENT-SIGNATURE", Header: "stale",
		H: "0x8b1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e39310072938", Amount: big.NewInt(price),
		PayableUntil: time.Now().Add(-time.Minute)}
	if err := store.Record(ctx, old); err != nil {
		t.Fatal(err)
	}
	store.Unhold(old.ID) // as after a restart
	c, cs, _ := client(t, store, s.srv.Transport(), 10, "")
	resp, err := fetch(c, s.ResourceURL())
	if err != nil || resp.StatusCode != http.StatusOK || pay.ResultOf(resp).Again {
		t.Fatalf("%v; want a new payment accepted", err)
	}
	if cs.calls.Load() != 1 || s.Rejected.Load() != 0 {
		t.Fatalf("%d signatures, %d rejected; want 1, 0 (the stale one never sent)", cs.calls.Load(), s.Rejected.Load())
	}
	list, _ := store.Payments(ctx, 0)
	if len(list) != 2 || list[1].ID != old.ID || list[1].Pending() || list[1].Status != 0 || list[0].Status != http.StatusOK {
		t.Fatalf("journal: %+v", list)
	}
}

// TestPresentingAgainKeepsTheCallersHeader: a journaled payment whose header
// the request already carries is not presented again over it.
func TestPresentingAgainKeepsTheCallersHeader(t *testing.T) {
	s := startSeller(t)
	store, err := ledger.OpenFile(filepath.Join(t.TempDir(), "state.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	old := &ledger.Payment{URL: s.ResourceURL(), Protocol: "mpp", HeaderName: "Authorization", Header: "Payment x",
		H: "0x8b1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e39310072938", Amount: big.NewInt(price),
		PayableUntil: time.Now().Add(time.Hour)}
	if err := store.Record(ctx, old); err != nil {
		t.Fatal(err)
	}
	store.Unhold(old.ID)
	c, cs, _ := client(t, store, s.srv.Transport(), 10, "")
	req, _ := http.NewRequest(http.MethodGet, s.ResourceURL(), nil)
	req.Header.Set("Authorization", "Bearer the caller's")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if res := pay.ResultOf(resp); res == nil || res.Again || cs.calls.Load() != 1 {
		t.Fatalf("result %+v, %d signatures; want a new x402 payment", res, cs.calls.Load())
	}
	if pending, _ := store.Unanswered(ctx, ""); len(pending) != 1 || pending[0].ID != old.ID {
		t.Fatalf("unanswered: %+v; want the journaled one left", pending)
	}
}
