package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/termsgate/termsgate/internal/pgtest"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/ledger"
)

// TestMain keeps the commands' state in memory unless a test names one, so
// that no test writes the user's state directory or sees another's
// payments.
//
// It also makes the test binary the termsgate command for the script tests
// (script_test.go), as testscript runs it.
// scriptNowEnv pins the clock of the command a script runs (Unix seconds).
const scriptNowEnv = "TERMSGATE_TEST_NOW"

func TestMain(m *testing.M) {
	os.Setenv(stateEnv, stateMemory)
	testscript.Main(m, map[string]func(){
		"termsgate": func() {
			// The scripts' fixtures are the vectors': their clock too.
			if now, err := strconv.ParseInt(os.Getenv(scriptNowEnv), 10, 64); err == nil {
				stepsNow = func() time.Time { return time.Unix(now, 0) }
			}
			os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

func spentUSDC(t *testing.T, state string) int64 {
	t.Helper()
	s, err := ledger.Open(context.Background(), state)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := s.Spent(context.Background(), ledger.Key{Network: "eip155:84532", Asset: "0x036cbd53842c5426634e7929541ec2318f3dcf7e"})
	if err != nil {
		t.Fatal(err)
	}
	return n.Int64()
}

// TestPayKeepsStateAcrossRuns: two runs of pay with one --state file count
// both payments in one budget and journal both, answered.
func TestPayKeepsStateAcrossRuns(t *testing.T) {
	s := newPaySeller(t)
	state := filepath.Join(t.TempDir(), "state.db")
	for i := range 2 {
		code, _, errs := runCLI(t, "", "pay", "--dev-key", "--max-amount", "10000", "--state", state, s.ResourceURL())
		if code != exitOK {
			t.Fatalf("run %d: exit %d: %s", i, code, errs)
		}
	}
	if got := spentUSDC(t, state); got != 20000 {
		t.Fatalf("spent %d after two runs; want 20000", got)
	}
	// A third run with --budget 25000 would take the total to 30000.
	code, out, errs := runCLI(t, "", "pay", "--dev-key", "--max-amount", "10000", "--budget", "25000", "--state", state, s.ResourceURL())
	if code != exitDeclined || !strings.Contains(out, "policy/budget-exhausted") || s.signatures() != 2 {
		t.Fatalf("past the budget: exit %d, %s, %s; %d payments sent", code, out, errs, s.signatures())
	}
	code, out, errs = runCLI(t, "", "payments", "--state", state, "--all", "--json")
	if code != exitOK {
		t.Fatalf("payments: exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("payments --all --json: %q", out)
	}
	for _, l := range lines {
		var p paymentJSON
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatal(err)
		}
		if p.State != "answered" || p.Status != 200 || p.URL != s.ResourceURL() || p.Amount != "10000" ||
			p.HeaderName != "PAYMENT-SIGNATURE" || p.Header == "" {
			t.Fatalf("journaled %+v", p)
		}
	}
	code, out, errs = runCLI(t, "", "payments", "--state", state)
	if code != exitOK || out != "" || !strings.Contains(errs, "no unanswered payments in "+state) {
		t.Fatalf("payments: exit %d, %q, %s", code, out, errs)
	}
}

// TestPaymentsListsTheUnanswered: a payment journaled and never answered is
// listed, and the next pay of its URL presents it again without signing.
func TestPaymentsListsTheUnanswered(t *testing.T) {
	s := newPaySeller(t)
	state := filepath.Join(t.TempDir(), "state.db")
	// Sign one payment through pay, then mark it unanswered as a crash
	// before the answer would have left it.
	if code, _, errs := runCLI(t, "", "pay", "--dev-key", "--max-amount", "10000", "--state", state, s.ResourceURL()); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	st, err := ledger.OpenFile(state, nil)
	if err != nil {
		t.Fatal(err)
	}
	list, _ := st.Payments(context.Background(), 0)
	p := *list[0]
	p.ID, p.Created, p.Answered, p.Status = "", time.Time{}, time.Time{}, 0
	if err := st.Record(context.Background(), &p); err != nil {
		t.Fatal(err)
	}
	st.Close()

	code, out, errs := runCLI(t, "", "payments", "--state", state)
	if code != exitOK || !strings.Contains(out, p.ID+"  ") || !strings.Contains(out, "unanswered  10000 of ") ||
		strings.Count(out, "\n") != 1 {
		t.Fatalf("payments: exit %d, %q, %s", code, out, errs)
	}
	code, _, errs = runCLI(t, "", "pay", "--dev-key", "--max-amount", "10000", "--state", state, s.ResourceURL())
	if code != exitOK || !strings.Contains(errs, "presented again a payment signed earlier and never answered") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got := spentUSDC(t, state); got != 10000 {
		t.Fatalf("spent %d; want 10000: presenting again reserves nothing, signs nothing", got)
	}
	if s.signatures() != 2 {
		t.Fatalf("the seller got %d payments; want 2", s.signatures())
	}
	if code, out, _ := runCLI(t, "", "payments", "--state", state); code != exitOK || out != "" {
		t.Fatalf("still unanswered: %q", out)
	}
}

// TestPayStatePostgres: --state postgres://… shares the budget between runs.
func TestPayStatePostgres(t *testing.T) {
	srv := pgtest.Start(t)
	s := newPaySeller(t)
	for i := range 2 {
		code, _, errs := runCLI(t, "", "pay", "--dev-key", "--max-amount", "10000", "--state", srv.URL(), s.ResourceURL())
		if code != exitOK {
			t.Fatalf("run %d: exit %d: %s", i, code, errs)
		}
	}
	if got := spentUSDC(t, srv.URL()); got != 20000 {
		t.Fatalf("spent %d; want 20000", got)
	}
}

// TestTransactBudgetAcrossRuns: the commands that sign (here transact; mcp,
// agree and channel-within take the same flags) count --budget in --state,
// so a second run past it is declined with nothing signed.
func TestTransactBudgetAcrossRuns(t *testing.T) {
	doc, _, _, b6sig := buyerFixture(t)
	stepsNow = func() time.Time { return time.Unix(1790000000, 0) }
	defer func() { stepsNow = time.Now }()
	state := filepath.Join(t.TempDir(), "state.db")
	args := []string{"transact", "--dev-key", "--max-amount", "10000", "--budget", "15000", "--state", state}
	code, out, errs := runCLI(t, jsonv.String(doc), args...)
	if code != exitOK || !strings.Contains(out, b6sig) {
		t.Fatalf("first run: exit %d, out %s, err %s", code, out, errs)
	}
	code, out, errs = runCLI(t, jsonv.String(doc), args...)
	if code != exitDeclined || !strings.Contains(out, "policy/budget-exhausted") || strings.Contains(out, b6sig) {
		t.Fatalf("second run: exit %d, out %s, err %s; want declined policy/budget-exhausted", code, out, errs)
	}
	if got := spentUSDC(t, state); got != 10000 {
		t.Fatalf("spent %d; want 10000", got)
	}
	// In memory (the tests' default) each run starts from zero.
	code, _, errs = runCLI(t, jsonv.String(doc), "transact", "--dev-key", "--max-amount", "10000", "--budget", "15000")
	if code != exitOK {
		t.Fatalf("in memory: exit %d, %s", code, errs)
	}
}
