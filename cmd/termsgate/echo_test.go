package main

import (
	"strings"
	"testing"
)

// TestErrorsEchoAtMost200: an argument of thousands of characters (a
// document pasted where a flag's value goes) is repeated in the error by its
// first 200 characters and a count of the rest, whichever way the message
// spells it (as given, %q-quoted, a --flag=value's value, a URL's host).
func TestErrorsEchoAtMost200(t *testing.T) {
	long := strings.Repeat("x", 5000)
	for _, args := range [][]string{
		{"read", "--pairing", long, "doc.json"},
		{"read", "--pairing=" + long, "doc.json"},
		{"read", long},
		{"confirm", "--account", long},
		{"pay", "--dev-key", "--max-amount", long, "https://api.seller.example/"},
		{"pay", "--dev-key", "--max-amount", "1", "ftp://" + long + ".example/"},
		{"hash", "https://" + long + ".example/atr"},
		{"seller", long},
		{"key", long},
		{long},
	} {
		code, _, errs := runCLI(t, "", args...)
		name := strings.ReplaceAll(strings.Join(args, " "), long, "LONG")
		if code != exitUsage {
			t.Errorf("%s: exit %d, want %d: %.300s", name, code, exitUsage, errs)
		}
		if strings.Contains(errs, strings.Repeat("x", maxEcho+1)) || !strings.Contains(errs, "x…[") || !strings.Contains(errs, " more characters]") {
			t.Errorf("%s: %d bytes of errors, not the argument clipped to %d characters: %.400s", name, len(errs), maxEcho, errs)
		}
	}
}

// TestFlagErrorIsOneLine: a flag the command does not have, or a value it
// refuses, is one line naming the command, the flag and where the flags are
// listed, not the whole usage; -h still prints the usage, on stdout.
func TestFlagErrorIsOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"pay", "--dev-key", "--max-amount", "1", "--nope", "https://api.seller.example/"}, "termsgate pay: flag provided but not defined: -nope (termsgate pay -h lists its flags)\n"},
		{[]string{"confirm", "--account", "foo", "doc.json"}, `termsgate confirm: invalid value "foo" for flag -account: not a CAIP-10 account`},
		{[]string{"key", "new", "--frob"}, "termsgate key new: flag provided but not defined: -frob (termsgate key new -h lists its flags)\n"},
		{[]string{"seller", "--addr", "nope"}, `termsgate seller: invalid value "nope" for flag -addr: not host:port`},
		{[]string{"frob"}, "termsgate: unknown command \"frob\" (termsgate -h lists the commands)\n"},
	} {
		code, _, errs := runCLI(t, "", c.args...)
		if code != exitUsage || !strings.HasPrefix(errs, c.want) || strings.Count(errs, "\n") != 1 || strings.Contains(errs, "Usage") {
			t.Errorf("%s: exit %d, errors %q; want one line starting %q", strings.Join(c.args, " "), code, errs, c.want)
		}
	}
	code, out, errs := runCLI(t, "", "pay", "-h")
	if code != exitOK || !strings.Contains(out, "Usage: termsgate pay") || !strings.Contains(out, "-max-amount") || errs != "" {
		t.Errorf("pay -h: exit %d, %d bytes out, errors %q", code, len(out), errs)
	}
}
