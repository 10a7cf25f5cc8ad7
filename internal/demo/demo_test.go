package demo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
)

func TestAmount(t *testing.T) {
	for _, c := range []struct {
		atomic   string
		decimals int
		want     string
	}{
		{"10000", 6, "0.01 USDC (10000 atomic units) on n"},
		{"1000000", 6, "1 USDC (1000000 atomic units) on n"},
		{"1", 6, "0.000001 USDC (1 atomic units) on n"},
		{"1234500", 2, "12345 USDC (1234500 atomic units) on n"},
		{"25", 0, "25 USDC (25 atomic units) on n"},
		{"25", -1, "25 atomic units of USDC on n"},
	} {
		if got := Amount(c.atomic, c.decimals, "USDC", "n"); got != c.want {
			t.Errorf("Amount(%s, %d) = %q, want %q", c.atomic, c.decimals, got, c.want)
		}
	}
}

// Lookup finds a row by id or alias; a second row for the same id or alias
// panics at init, naming it.
func TestRegisterLookup(t *testing.T) {
	run := func(context.Context, *Session) error { return nil }
	Register(Row{Pairing: "test/one", Aliases: []string{"one-test"}, Run: run})
	if r, ok := Lookup("one-test"); !ok || r.Pairing != "test/one" {
		t.Fatalf("alias: %v %v", r.Pairing, ok)
	}
	if _, ok := Lookup("test/none"); ok {
		t.Fatal("found a row never registered")
	}
	for name, r := range map[string]Row{
		"duplicate id":    {Pairing: "test/one", Run: run},
		"duplicate alias": {Pairing: "test/two", Aliases: []string{"one-test"}, Run: run},
		"no run":          {Pairing: "test/three"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			Register(r)
		}()
	}
}

// Keep writes nothing without a directory, and the three files with one.
func TestKeepPayment(t *testing.T) {
	var out bytes.Buffer
	s := &Session{Out: &out}
	if err := s.KeepPayment([]byte("terms"), "offer", jsonv.Obj("a", 1)); err != nil {
		t.Fatal(err)
	}
	s.Dir = filepath.Join(t.TempDir(), "kept")
	if err := s.KeepPayment([]byte("terms"), "offer", jsonv.Obj("a", 1)); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"atr": "terms", "offer": "offer\n", "payment": "{\"a\":1}\n"} {
		b, err := os.ReadFile(filepath.Join(s.Dir, name))
		if err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", name, b, err, want)
		}
	}
	s.Say("a %s", "line")
	s.Paid("1 X on n")
	if out.String() != "a line\n" || s.PaidText() != "1 X on n" {
		t.Errorf("Say/Paid: %q %q", out.String(), s.PaidText())
	}
}
