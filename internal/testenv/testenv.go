// Package testenv lets a test that needs a tool outside Go (node, npm,
// PostgreSQL's binaries) skip on a machine without it, naming what to
// install, while CI, which installs them all, fails instead of skipping.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// RequireEnv is set to 1 by .ci/run: there a missing tool is a failure, so a
// green CI never hides a test that did not run.
const RequireEnv = "TERMSGATE_REQUIRE_TOOLS"

// LookPath returns the path of command, or skips t (fails it under
// RequireEnv) with a message that says what to install.
func LookPath(t testing.TB, command, install string) string {
	t.Helper()
	path, err := exec.LookPath(command)
	if err != nil {
		Missing(t, command+" not found on PATH; install "+install)
	}
	return path
}

// Missing skips t with why, or fails it when RequireEnv is set.
func Missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s (%s=1: CI installs every tool the tests need)", why, RequireEnv)
	}
	t.Skip(why)
}
