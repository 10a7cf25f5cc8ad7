package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	_ "github.com/termsgate/termsgate/internal/demo/rows" // every rail's demo row
	"github.com/termsgate/termsgate/rails/evm"
)

func init() {
	commands["demo"] = command{"pay a local TLS seller end to end, offline (-h lists a demo for every pairing)", runDemo}
}

const demoUsage = `demo [--rail PAIRING] [--out DIR] [--settle]

Pays a seller on loopback TLS end to end, offline: the seller publishes its
terms, the gate fetches them, compares their SHA-256 with the advertised H and
only then signs; the seller verifies the payment as the chain would. Each demo
ends with the amount it paid. --rail takes a pairing id or its short name:
`

// runDemo runs one row of the demo table (internal/demo): the rows live
// beside each rail's test seller, so this file knows no rail.
func runDemo(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rail := fs.String("rail", evm.ExactEIP3009ID, "the pairing to pay: its id or short name (listed above)")
	out := fs.String("out", "", "keep the demo's terms, offer and payment as DIR/atr, DIR/offer and DIR/payment (for termsgate inspect)")
	settle := fs.Bool("settle", false, "settle the payment on an in-process chain and read H back from what landed (a binary built with -tags simchain)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: termsgate %s\n", demoUsage)
		demoTable(fs.Output())
		fmt.Fprintln(fs.Output())
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		return usageError(stderr, "demo", fmt.Errorf("unexpected argument %.200q (the pairing is --rail's)", fs.Arg(0)))
	}
	row, ok := demo.Lookup(*rail)
	if !ok {
		return usageError(stderr, "demo", fmt.Errorf("unknown rail %.200q: no demo has that pairing id or short name; termsgate demo -h lists them", *rail))
	}
	run := row.Run
	if *settle {
		if run = row.Settle; run == nil {
			return usageError(stderr, "demo", settleRefusal(row.Pairing))
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	start := time.Now()
	s := &demo.Session{Out: stdout, Dir: *out}
	err := run(ctx, s)
	var d *gate.Decline
	switch {
	case errors.As(err, &d):
		fmt.Fprintln(stderr, "termsgate demo: declined:", err)
		return exitDeclined
	case err != nil:
		fmt.Fprintln(stderr, "termsgate demo:", err)
		return exitFailure
	case s.PaidText() == "":
		fmt.Fprintf(stderr, "termsgate demo: the %s demo ended without paying\n", row.Pairing)
		return exitFailure
	}
	s.Say("")
	s.Say("paid %s end to end in %s, offline.", s.PaidText(), time.Since(start).Round(time.Millisecond))
	if *out != "" {
		s.Say("kept in %s: atr, offer, payment (termsgate inspect %s)", *out, strings.TrimSuffix(*out, "/")+"/payment")
	}
	return exitOK
}

// demoTable lists every row, sorted by pairing id, with its short names and
// what it shows.
func demoTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	for _, r := range demo.Rows() {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", r.Pairing, strings.Join(r.Aliases, ", "), r.About)
	}
	tw.Flush()
}

// settleRefusal says which rows --settle can run: none in a binary built
// without the in-process chain.
func settleRefusal(pairing string) error {
	var can []string
	for _, r := range demo.Rows() {
		if r.Settle != nil {
			can = append(can, r.Pairing)
		}
	}
	if len(can) == 0 {
		return errors.New(settleHint)
	}
	return fmt.Errorf("--settle settles %s, not %s", strings.Join(can, ", "), pairing)
}

const settleHint = "--settle needs the in-process chain, which this binary was built without; run\n" +
	"  go run -tags simchain ./cmd/termsgate demo --settle"
