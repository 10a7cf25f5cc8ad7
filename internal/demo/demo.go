// Package demo is the table `termsgate demo` runs: one row per pairing, each
// paying a loopback seller that verifies the payment as the chain (or the
// seller's processor) would. A row lives beside its rail's test seller and
// registers itself from init; cmd/termsgate only iterates the table, so adding
// a pairing adds a row and no code in cmd (docs/adding-a-pairing.md, "demo").
package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Row is one demo: the pairing it pays and how.
type Row struct {
	Pairing string   // the pairing id, the --rail value
	Aliases []string // older short names still accepted by --rail
	About   string   // one line for `demo -h`: what the seller sells and what it checks
	// Run pays the seller end to end, telling the story through s. An error
	// that is a *gate.Decline is a decline (exit 1); any other is a failure
	// (exit 3).
	Run func(ctx context.Context, s *Session) error
	// Settle, when set, is the row settled on an in-process chain
	// (`demo --settle`). It is set by SetSettle from a package the default
	// binary leaves out (internal/settledemo, -tags simchain).
	Settle func(ctx context.Context, s *Session) error
}

// Session is what a running row reports to.
type Session struct {
	Out io.Writer // the story, a line at a time
	Dir string    // `demo --out DIR`; "" to keep nothing

	paid string
}

// Say writes one line of the story.
func (s *Session) Say(format string, a ...any) { fmt.Fprintf(s.Out, format+"\n", a...) }

// Paid records what the demo paid, for its closing line, in words a person
// reads: "0.01 USDC (10000 atomic units) on eip155:84532".
func (s *Session) Paid(what string) { s.paid = what }

// PaidText is what Paid recorded, "" when the demo paid nothing.
func (s *Session) PaidText() string { return s.paid }

// Keep writes data as DIR/name when --out was given, so that `termsgate
// inspect` and other tools can read what the demo made. Rows keep at least
// "atr" (the terms' exact bytes), "offer" (the seller's 402 header value as
// sent) and "payment" (what was sent to the seller, in the form `inspect`
// reads).
func (s *Session) Keep(name string, data []byte) error {
	if s.Dir == "" {
		return nil
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return fmt.Errorf("demo --out: %w", err)
	}
	return os.WriteFile(filepath.Join(s.Dir, name), data, 0o644)
}

var (
	mu    sync.Mutex
	table = map[string]Row{}
	alias = map[string]string{}
)

// Register adds a row. It is called from init, so a duplicate id or alias is
// a programming error found by every test that links the rows.
func Register(r Row) {
	mu.Lock()
	defer mu.Unlock()
	if r.Pairing == "" || r.Run == nil {
		panic("demo: a row needs a pairing id and a Run")
	}
	if _, dup := table[r.Pairing]; dup {
		panic("demo: two rows for " + r.Pairing)
	}
	table[r.Pairing] = r
	for _, a := range r.Aliases {
		if _, dup := alias[a]; dup {
			panic("demo: alias " + a + " names two rows")
		}
		alias[a] = r.Pairing
	}
}

// SetSettle gives the row for pairing its settled run; the row must be
// registered first (a package that settles imports the row's package).
func SetSettle(pairing string, run func(ctx context.Context, s *Session) error) {
	mu.Lock()
	defer mu.Unlock()
	r, ok := table[pairing]
	if !ok {
		panic("demo: no row for " + pairing + " to settle")
	}
	r.Settle = run
	table[pairing] = r
}

// Rows returns every row, sorted by pairing id.
func Rows() []Row {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Row, 0, len(table))
	for _, r := range table {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pairing < out[j].Pairing })
	return out
}

// Lookup finds the row for a pairing id or one of its aliases.
func Lookup(name string) (Row, bool) {
	mu.Lock()
	defer mu.Unlock()
	if id, ok := alias[name]; ok {
		name = id
	}
	r, ok := table[name]
	return r, ok
}

// Play runs the row named name (its id or an alias) with its story in a
// buffer, keeping files in dir when dir is not "": what a row's own test
// calls. It returns the story and what the row said it paid.
func Play(ctx context.Context, name, dir string) (story, paid string, err error) {
	r, ok := Lookup(name)
	if !ok {
		return "", "", fmt.Errorf("demo: no row %q", name)
	}
	var b strings.Builder
	s := &Session{Out: &b, Dir: dir}
	err = r.Run(ctx, s)
	return b.String(), s.PaidText(), err
}
