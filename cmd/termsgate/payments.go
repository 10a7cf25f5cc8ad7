package main

// termsgate payments: the payment journal (docs/paying-client.md).

import (
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
	commands["payments"] = command{"list the journaled payments: those signed and never answered first", runPayments}
}

const paymentsUsage = `payments [--state PATH|postgres://...] [--all] [--json] [--limit N]

Lists the payments signed but never answered by the seller (the process
died, or the connection broke, before the answer came). The next
"termsgate pay" of the same URL presents such a payment again instead of
signing a new one, as long as it is still payable. --all lists every
journaled payment, newest first. --json writes one JSON object per line,
with the header to send the payment in and its value.`

// paymentJSON is one line of --json.
type paymentJSON struct {
	ID           string `json:"id"`
	Created      string `json:"created"`
	State        string `json:"state"` // unanswered, answered, given-up
	Status       int    `json:"status,omitempty"`
	URL          string `json:"url"`
	Protocol     string `json:"protocol"`
	Pairing      string `json:"pairing"`
	H            string `json:"atrHash"`
	Network      string `json:"network"`
	Asset        string `json:"asset"`
	Amount       string `json:"amount"`
	Payer        string `json:"payer"`
	Payee        string `json:"payee"`
	PayableUntil string `json:"payableUntil"`
	HeaderName   string `json:"headerName"`
	Header       string `json:"header"`
	// Settlement is what pay --verify-settlement read of it on chain.
	Settlement *settlementJSON `json:"settlement,omitempty"`
}

// settlementJSON is a journaled settlement read.
type settlementJSON struct {
	Checked     string          `json:"checked"`
	Transaction string          `json:"transaction,omitempty"`
	Settled     bool            `json:"settled"`
	Status      json.RawMessage `json:"status,omitempty"`
	Problems    []string        `json:"problems,omitempty"`
	Moved       string          `json:"moved,omitempty"`
}

func settlementOf(s *ledger.Settlement) *settlementJSON {
	if s == nil {
		return nil
	}
	out := &settlementJSON{Checked: s.Checked.UTC().Format(time.RFC3339), Transaction: s.Transaction, Settled: s.Settled,
		Problems: s.Problems}
	if json.Valid(s.Status) {
		out.Status = s.Status
	}
	if s.Moved != nil {
		out.Moved = s.Moved.String()
	}
	return out
}

// settlementText is the settlement read as the text listing says it.
func settlementText(s *ledger.Settlement) string {
	switch {
	case s == nil:
		return ""
	case s.Settled:
		return "  settlement checked: transaction " + termText(s.Transaction)
	}
	return fmt.Sprintf("  settlement does NOT hold: %s (transaction %s)", termText(strings.Join(s.Problems, ", ")), termText(s.Transaction))
}

func paymentState(p *ledger.Payment) string {
	switch {
	case p.Pending():
		return "unanswered"
	case p.Status == 0:
		return "given-up"
	}
	return "answered"
}

func runPayments(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("payments", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: termsgate %s\n\nFlags:\n", paymentsUsage)
		fs.PrintDefaults()
	}
	state := addStateFlag(fs)
	all := fs.Bool("all", false, "list every journaled payment, newest first")
	asJSON := fs.Bool("json", false, "one JSON object per line")
	limit := fs.Int("limit", 0, "with --all: at most this many (0: all)")
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() != 0 {
		return usageError(stderr, "payments", fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if *state == stateMemory || *state == "" && os.Getenv(stateEnv) == stateMemory {
		return usageError(stderr, "payments", errors.New("--state memory keeps no journal"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	store, done, err := openState(ctx, *state)
	if err != nil {
		fmt.Fprintln(stderr, "termsgate payments:", err)
		return exitFailure
	}
	defer done()
	var list []*ledger.Payment
	if *all {
		list, err = store.Payments(ctx, *limit)
	} else {
		list, err = store.Unanswered(ctx, "")
	}
	if err != nil {
		fmt.Fprintln(stderr, "termsgate payments:", err)
		return exitFailure
	}
	if !*asJSON && len(list) == 0 {
		if *all {
			fmt.Fprintf(stderr, "termsgate: no payments in %s\n", store.Where())
		} else {
			fmt.Fprintf(stderr, "termsgate: no unanswered payments in %s\n", store.Where())
		}
		return exitOK
	}
	for _, p := range list {
		amount := "?"
		if p.Amount != nil {
			amount = p.Amount.String()
		}
		if *asJSON {
			line, _ := json.Marshal(paymentJSON{
				ID: p.ID, Created: p.Created.UTC().Format(time.RFC3339), State: paymentState(p), Status: p.Status,
				URL: p.URL, Protocol: p.Protocol, Pairing: p.Pairing, H: p.H, Network: p.Network, Asset: p.Asset,
				Amount: amount, Payer: p.Payer, Payee: p.Payee, PayableUntil: p.PayableUntil.UTC().Format(time.RFC3339),
				HeaderName: p.HeaderName, Header: p.Header, Settlement: settlementOf(p.Settlement),
			})
			fmt.Fprintf(stdout, "%s\n", line)
			continue
		}
		state := paymentState(p)
		if state == "answered" {
			state = fmt.Sprintf("answered %d", p.Status)
		}
		fmt.Fprintf(stdout, "%s  %s  %s  %s of %s on %s to %s, payable until %s  %s  terms %s%s\n",
			p.ID, p.Created.UTC().Format(time.RFC3339), state, amount, termText(p.Asset), termText(p.Network), termText(p.Payee),
			p.PayableUntil.UTC().Format(time.RFC3339), termText(p.URL), p.H, settlementText(p.Settlement))
	}
	return exitOK
}
