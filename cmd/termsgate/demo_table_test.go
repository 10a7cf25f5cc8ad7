package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/all"
)

// noDemoYet are the registered pairings whose demo row is still to come. The
// list only shrinks: a pairing that gains a row must leave it, and a new
// pairing comes with its row (docs/adding-a-pairing.md, "A demo row").
var noDemoYet = map[string]bool{
	"mpp/charge/tempo/push":  true,
	"mpp/session/tempo":      true,
	"mpp/subscription/tempo": true,
	"mpp/session/xrpl":       true,
}

// Every registered pairing has a demo row, and every row pays: `demo --rail
// ID` exits 0 and its closing line says the amount paid. The rows run in
// this one process, one after another.
func TestDemoEveryPairing(t *testing.T) {
	for _, id := range all.Default().IDs() {
		_, ok := demo.Lookup(id)
		switch {
		case !ok && !noDemoYet[id]:
			t.Errorf("pairing %s has no demo row (add one beside its test seller and a line in internal/demo/rows)", id)
		case ok && noDemoYet[id]:
			t.Errorf("pairing %s has a demo row now: take it out of noDemoYet", id)
		}
	}
	for _, r := range demo.Rows() {
		t.Run(strings.ReplaceAll(r.Pairing, "/", "_"), func(t *testing.T) {
			code, out, errs := runCLI(t, "", "demo", "--rail", r.Pairing)
			if code != exitOK {
				t.Fatalf("demo --rail %s: exit %d: %s\n%s", r.Pairing, code, errs, out)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "paid ") || !strings.Contains(last, " on ") || !strings.Contains(last, "end to end in") {
				t.Errorf("demo --rail %s: the closing line does not say what was paid: %q", r.Pairing, last)
			}
			for _, a := range r.Aliases {
				if got, _ := demo.Lookup(a); got.Pairing != r.Pairing {
					t.Errorf("alias %s finds %q", a, got.Pairing)
				}
			}
		})
	}
}

// demo -h lists every row sorted by pairing id, each with its short names
// and what it shows.
func TestDemoHelpListsEveryRow(t *testing.T) {
	code, out, _ := runCLI(t, "", "demo", "-h")
	if code != exitOK {
		t.Fatalf("demo -h: exit %d", code)
	}
	var ids []string
	at := -1
	for _, r := range demo.Rows() {
		ids = append(ids, r.Pairing)
		i := strings.Index(out, "  "+r.Pairing+" ")
		if i < 0 {
			t.Fatalf("demo -h does not list %s:\n%s", r.Pairing, out)
		}
		if i < at {
			t.Errorf("demo -h lists %s out of order", r.Pairing)
		}
		at = i
		line := out[i:]
		line = line[:strings.IndexByte(line, '\n')]
		for _, want := range append([]string{r.About}, r.Aliases...) {
			if !strings.Contains(line, want) {
				t.Errorf("demo -h line for %s lacks %q: %q", r.Pairing, want, line)
			}
		}
	}
	if !sort.StringsAreSorted(ids) {
		t.Errorf("demo.Rows is not sorted: %v", ids)
	}
}

// demo --out DIR keeps the terms, the offer and the payment of every row, and
// termsgate inspect reads the payment: the pairing it names is the row's, and
// the H it reads back is the kept terms' hash.
func TestDemoOutKeepsWhatInspectReads(t *testing.T) {
	for _, r := range demo.Rows() {
		t.Run(strings.ReplaceAll(r.Pairing, "/", "_"), func(t *testing.T) {
			dir := t.TempDir()
			if code, out, errs := runCLI(t, "", "demo", "--rail", r.Pairing, "--out", dir); code != exitOK {
				t.Fatalf("exit %d: %s\n%s", code, errs, out)
			}
			terms, err := os.ReadFile(filepath.Join(dir, "atr"))
			if err != nil {
				t.Fatal(err)
			}
			if offer, err := os.ReadFile(filepath.Join(dir, "offer")); err != nil || len(strings.TrimSpace(string(offer))) == 0 {
				t.Fatalf("no offer kept: %v", err)
			}
			code, out, errs := runCLI(t, "", "inspect", filepath.Join(dir, "payment"))
			if code != exitOK {
				t.Fatalf("inspect the kept payment: exit %d: %s", code, errs)
			}
			v, err := jsonv.Parse([]byte(out))
			if err != nil {
				t.Fatalf("inspect printed no JSON: %v\n%s", err, out)
			}
			o, _ := jsonv.AsObject(v)
			if p, _ := o.GetString("pairing"); p != r.Pairing {
				t.Errorf("inspect names pairing %q, the row pays %s", p, r.Pairing)
			}
			if h, _ := o.GetString("h"); !atr.EqualText(h, atr.Sum(terms)) {
				t.Errorf("inspect reads H %q, the kept terms hash to %s", h, atr.Sum(terms))
			}
		})
	}
}

// The README's demo table names every row, with its short names.
func TestREADMEListsEveryDemo(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range demo.Rows() {
		want := "| " + r.Pairing + " | " + strings.Join(r.Aliases, ", ") + " |"
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md's demo table has no row %q", want)
		}
	}
}
