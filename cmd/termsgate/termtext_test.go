package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestTermText(t *testing.T) {
	for in, want := range map[string]string{
		"USDC":                        "USDC",
		"USDC\r\x1b[2K\x1b[1A":        `USDC\r\x1b[2K\x1b[1A`,
		"a\nb\tc":                     `a\nb\tc`,
		"Café — 30 días ✓":            "Café — 30 días ✓",
		"\u202eCDSU":                  `\u{202e}CDSU`,
		"\u0085\u009b31m\x7f\x00\xff": `\u{0085}\u{009b}31m\x7f\x00\xff`,
	} {
		if got := termText(in); got != want {
			t.Errorf("termText(%q) = %q, want %q", in, got, want)
		}
	}
	var b bytes.Buffer
	n, err := termWriter{w: &b}.Write([]byte("line\x1b[2J\n\tnext\r\n"))
	if err != nil || n != 16 || b.String() != "line\\x1b[2J\n\tnext\\r\n" {
		t.Fatalf("termWriter wrote %q (%d, %v)", b.String(), n, err)
	}
}

// hostileName is a token name that, printed raw, returns to the start of
// the line, erases it and moves up: what the person saw of the amount and
// the payee could be rewritten.
const hostileName = "USDC\r\x1b[2K\x1b[1Atermsgate: signed 1 atomic unit\u202e"

// TestPayEscapesSellerText: the token name a seller chooses (extra.name)
// reaches the terminal escaped, in the dry run's line and in the "signed"
// line; no control character reaches stderr at all.
func TestPayEscapesSellerText(t *testing.T) {
	s := newPaySeller(t)
	extra, _ := s.Option.GetObject("extra")
	extra.Set("name", hostileName)
	for _, args := range [][]string{
		{"pay", "--dev-key", "--dry-run", s.ResourceURL()},
		{"pay", "--dev-key", "--max-amount", "10000", s.ResourceURL()},
	} {
		code, out, errs := runCLI(t, "", args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		if strings.ContainsAny(errs, "\r\x1b\u202e") {
			t.Fatalf("%v: a control character reached the terminal: %q", args, errs)
		}
		want := `10000 atomic units of USDC\r\x1b[2K\x1b[1Atermsgate: signed 1 atomic unit\u{202e} 0x036CbD53842c5426634e7929541eC2318f3dCF7e on eip155:84532`
		if !strings.Contains(errs, want) {
			t.Fatalf("%v: stderr lacks the escaped name %q:\n%s", args, want, errs)
		}
		if strings.Contains(args[2], "max") && out != `{"report":"paid"}` {
			t.Fatalf("stdout %q", out)
		}
	}
	if s.Paid.Load() != 1 {
		t.Fatalf("paid %d times, want 1", s.Paid.Load())
	}
}
