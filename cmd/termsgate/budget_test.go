package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/termsgatetest"
)

// termsgate budget (issue 21 item 8) shows spent and ceiling per asset and
// the state file; budget reset asks first, clears nothing unless the answer
// is yes (or --yes), and after it the payment the budget refused is paid.
func TestBudgetShowsAndResets(t *testing.T) {
	s := payAt(t, termsgatetest.Config{})
	state := filepath.Join(t.TempDir(), "state.db")
	pay := func() (int, string, string) {
		return runCLI(t, "", "pay", "--dev-key", "--max-amount", "10000", "--budget", "15000", "--state", state, s.URL)
	}
	if code, _, errs := runCLI(t, "", "budget", "--state", state); code != exitOK || !strings.Contains(errs, "nothing counted yet in "+state) {
		t.Fatalf("empty: exit %d: %s", code, errs)
	}
	if code, _, errs := pay(); code != exitOK {
		t.Fatalf("first pay: exit %d: %s", code, errs)
	}
	if code, _, _ := pay(); code != exitDeclined {
		t.Fatalf("second pay past the budget: exit %d", code)
	}
	want := "eip155:84532  0x036cbd53842c5426634e7929541ec2318f3dcf7e  spent 10000  ceiling 15000\n"
	code, out, errs := runCLI(t, "", "budget", "--state", state)
	if code != exitOK || out != "state: "+state+"\n"+want {
		t.Fatalf("budget: exit %d\nstdout %q\nstderr %s", code, out, errs)
	}
	code, out, _ = runCLI(t, "", "budget", "--state", state, "--json")
	if code != exitOK || out != `{"network":"eip155:84532","asset":"0x036cbd53842c5426634e7929541ec2318f3dcf7e","spent":"10000","ceiling":"15000","state":"`+state+`"}`+"\n" {
		t.Fatalf("budget --json: exit %d: %s", code, out)
	}
	for _, answer := range []string{"", "n\n", "nope\n"} {
		code, _, errs = runCLI(t, answer, "budget", "reset", "--state", state)
		if code != exitOK || !strings.Contains(errs, "Clear what 1 budget(s) in "+state+" counted (the journal stays)? [y/N]") || !strings.Contains(errs, "nothing cleared") {
			t.Fatalf("reset answered %q: exit %d: %s", answer, code, errs)
		}
	}
	if _, out, _ := runCLI(t, "", "budget", "--state", state); !strings.Contains(out, "spent 10000") {
		t.Fatalf("cleared without a yes: %s", out)
	}
	code, _, errs = runCLI(t, "y\n", "budget", "reset", "--state", state)
	if code != exitOK || !strings.Contains(errs, "cleared 1 budget(s) in "+state) {
		t.Fatalf("reset y: exit %d: %s", code, errs)
	}
	if _, out, _ := runCLI(t, "", "budget", "--state", state); !strings.Contains(out, "spent 0  ceiling 15000") {
		t.Fatalf("after reset: %s", out)
	}
	if code, _, errs := pay(); code != exitOK {
		t.Fatalf("pay after the reset: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "", "budget", "reset", "--yes", "--state", state); code != exitOK || strings.Contains(errs, "[y/N]") {
		t.Fatalf("reset --yes asked or failed: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "", "budget", "--state", "memory"); code != exitUsage || !strings.Contains(errs, "keeps no budget") {
		t.Fatalf("memory: exit %d: %s", code, errs)
	}
}
