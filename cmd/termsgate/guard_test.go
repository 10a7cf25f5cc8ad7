package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// A command that panics despite the readers' own guards ends in one line on
// stderr and exit 3, never a stack trace that an agent host reads as a crash.
func TestACommandThatPanicsIsOneLineAndExit3(t *testing.T) {
	commands["panics-for-test"] = command{summary: "test only", run: func([]string, io.Reader, io.Writer, io.Writer) int {
		var fields []string
		return len(fields[3]) // index out of range: a runtime panic, as a reader's bug would be
	}}
	t.Cleanup(func() { delete(commands, "panics-for-test") })
	var stdout, stderr bytes.Buffer
	code := run([]string{"panics-for-test"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitFailure {
		t.Fatalf("exit %d, want %d", code, exitFailure)
	}
	msg := stderr.String()
	if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "termsgate panics-for-test: failed inside termsgate") || !strings.Contains(msg, "check the journal") {
		t.Fatalf("stderr %q", msg)
	}
}
