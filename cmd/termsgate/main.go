// Command termsgate is the buyer-side payment gate for AI agents: it checks a
// seller's terms (the ATR) against the hash its 402 advertises before any
// wallet signs, and binds that hash into the payment.
//
//	termsgate demo                 pay a local TLS seller end to end, offline
//	termsgate hash FILE|URL        SHA-256 of an ATR's exact bytes
//	termsgate read|confirm|finish|check   the gate's steps, JSON in and out
//
// Run "termsgate help COMMAND" for a command's flags.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// Exit codes: a person (or a script) can tell a declined payment from a
// mistake in how termsgate was called.
const (
	exitOK       = 0
	exitDeclined = 1 // the gate declined; the decline JSON is on stdout
	exitUsage    = 2 // bad flags or unreadable input; the message is on stderr
	exitFailure  = 3 // something outside the gate failed (a server, a file)
)

type command struct {
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands is filled by each command's file in init, so that adding a command
// is adding a file.
var commands = map[string]command{}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	stderr = termWriter{stderr} // no control character reaches the terminal (termtext.go)
	switch {
	case len(args) == 0:
		usage(stderr)
		return exitUsage
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" && len(args) == 1:
		usage(stdout)
		return exitOK
	case args[0] == "--version" || args[0] == "-version" || args[0] == "version":
		fmt.Fprintln(stdout, "termsgate", version())
		return exitOK
	}
	name := args[0]
	if name == "help" {
		name, args = args[1], []string{args[1], "-h"}
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "termsgate: unknown command %q\n\n", name)
		usage(stderr)
		return exitUsage
	}
	if wantsHelp(args[1:]) {
		// Asked-for help is output, not an error: it goes to stdout and
		// exits 0, whatever the command's own flag set does with -h.
		if code := c.run(args[1:], stdin, stdout, stdout); code != exitUsage {
			return code
		}
		return exitOK
	}
	return c.run(args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "termsgate: check a seller's terms before an agent's wallet pays.")
	fmt.Fprintln(w, "\nUsage: termsgate COMMAND [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-15s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'termsgate COMMAND -h' for a command's flags.")
}
