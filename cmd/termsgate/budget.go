package main

// termsgate budget: what the spend budgets in --state have counted, and
// clearing them.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/termsgate/termsgate/ledger"
)

func init() {
	commands["budget"] = command{"show what the spend budgets in --state have counted (budget reset clears them)", runBudget}
}

const budgetUsage = `budget [--state PATH|postgres://...] [--json]
       budget reset [--state PATH|postgres://...] [--yes]

Shows, per network and asset, what the spend budget in --state has counted
(committed and reserved payments) and the ceiling the newest payment was
checked against (pay's --budget; the file keeps it, PostgreSQL does not),
and where the state is kept. "budget reset" sets every spent sum to zero
after asking (--yes does not ask); the journal of payments stays.`

type budgetJSON struct {
	Network string  `json:"network"`
	Asset   string  `json:"asset"`
	Spent   string  `json:"spent"`
	Ceiling *string `json:"ceiling"`
	State   string  `json:"state"`
}

func runBudget(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	reset := len(args) > 0 && args[0] == "reset"
	if reset {
		args = args[1:]
	}
	fs := flag.NewFlagSet("budget", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: termsgate %s\n\nFlags:\n", budgetUsage)
		fs.PrintDefaults()
	}
	state := addStateFlag(fs)
	asJSON := fs.Bool("json", false, "one JSON object per budget and line")
	yes := fs.Bool("yes", false, "with reset: clear without asking")
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() != 0 {
		return usageError(stderr, "budget", fmt.Errorf("unexpected argument %q (the subcommand is reset)", shorten(fs.Arg(0))))
	}
	if *state == stateMemory || *state == "" && os.Getenv(stateEnv) == stateMemory {
		return usageError(stderr, "budget", errors.New("--state memory keeps no budget beyond one process"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	store, done, err := openState(ctx, *state)
	if err != nil {
		fmt.Fprintln(stderr, "termsgate budget:", err)
		return exitFailure
	}
	defer done()
	lister, ok := store.(ledger.BudgetLister)
	if !ok {
		fmt.Fprintf(stderr, "termsgate budget: %s cannot list its budgets\n", store.Where())
		return exitFailure
	}
	totals, err := lister.Budgets(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "termsgate budget:", err)
		return exitFailure
	}
	if reset {
		return resetBudgets(ctx, lister, store.Where(), totals, *yes, stdin, stderr)
	}
	if len(totals) == 0 && !*asJSON {
		fmt.Fprintf(stderr, "termsgate: nothing counted yet in %s\n", store.Where())
		return exitOK
	}
	if !*asJSON {
		fmt.Fprintf(stdout, "state: %s\n", store.Where())
	}
	for _, t := range totals {
		ceiling := "none recorded"
		var c *string
		if t.Ceiling != nil {
			s := t.Ceiling.String()
			ceiling, c = s, &s
		}
		if *asJSON {
			line, _ := json.Marshal(budgetJSON{t.Network, t.Asset, t.Spent.String(), c, store.Where()})
			fmt.Fprintf(stdout, "%s\n", line)
			continue
		}
		fmt.Fprintf(stdout, "%s  %s  spent %s  ceiling %s\n", termText(t.Network), termText(t.Asset), t.Spent, ceiling)
	}
	return exitOK
}

// resetBudgets clears the sums once the person at the terminal said yes
// (or --yes); any other answer, or none, clears nothing.
func resetBudgets(ctx context.Context, l ledger.BudgetLister, where string, totals []ledger.Total, yes bool, stdin io.Reader, stderr io.Writer) int {
	if !yes {
		fmt.Fprintf(stderr, "Clear what %d budget(s) in %s counted (the journal stays)? [y/N] ", len(totals), where)
		line, _ := bufio.NewReader(io.LimitReader(stdin, 1024)).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(stderr, "termsgate: nothing cleared")
			return exitOK
		}
	}
	if err := l.ResetBudgets(ctx); err != nil {
		fmt.Fprintln(stderr, "termsgate budget reset:", err)
		return exitFailure
	}
	fmt.Fprintf(stderr, "termsgate: cleared %d budget(s) in %s\n", len(totals), where)
	return exitOK
}
