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
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
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
	// No control character reaches the terminal (termtext.go), and no
	// message repeats more than maxEcho characters of an argument.
	stderr = termWriter{w: stderr, clip: longArgs(args)}
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
		fmt.Fprintf(stderr, "termsgate: unknown command %q (termsgate -h lists the commands)\n", name)
		return exitUsage
	}
	if wantsHelp(args[1:]) {
		// Asked-for help is output, not an error: it goes to stdout and
		// exits 0, whatever the command's own flag set does with -h.
		if code := guarded(name, c, args[1:], stdin, stdout, stdout); code != exitUsage {
			return code
		}
		return exitOK
	}
	return guarded(name, c, args[1:], stdin, stdout, stderr)
}

// guarded runs a command under the last of the guards against panics: every
// reader of outside input has its own (rails.Guard, the gate's protect), and
// this one stands behind them so that a defect they miss is one line and
// exit 3, not a stack trace. A payment signed before the panic is in the
// journal (termsgate budget shows it), hence the advice to check.
func guarded(name string, c command, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "termsgate %s: failed inside termsgate (%v); this is a defect in termsgate, please report it with the input. Treat the call as declined; if it could have signed, check the journal before paying again.\n", name, r)
			code = exitFailure
		}
	}()
	return c.run(args, stdin, stdout, stderr)
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

// parseOneLine is fs.Parse, except that a flag error is one line: the
// command, what was wrong and where the flags are listed. The whole usage is
// for -h, which asked for it.
func parseOneLine(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
	case err != nil:
		fmt.Fprintf(out, "termsgate %s: %v (termsgate %s -h lists its flags)\n", fs.Name(), err, fs.Name())
		return saidError{err}
	}
	return err
}

// saidError is an error already printed to the user: usageError does not
// print it again.
type saidError struct{ error }

func (e saidError) Unwrap() error { return e.error }

// maxEcho is the most of one argument an error message repeats: an argument
// may be a whole document pasted by mistake, and a screenful of it hides
// what went wrong.
const maxEcho = 200

// echoClip replaces, in what the CLI writes to stderr, one spelling of a
// long argument with its first maxEcho characters and a count of the rest.
type echoClip struct{ from, to string }

// longArgs lists the arguments, and the values of --flag=value ones, longer
// than maxEcho characters, as given and as Go quotes them (%q), longest
// first so that a value inside a longer argument is clipped with it.
func longArgs(args []string) []echoClip {
	var clips []echoClip
	add := func(a string) {
		n := utf8.RuneCountInString(a)
		if n <= maxEcho {
			return
		}
		head, runes := a, 0
		for i := range a {
			if runes == maxEcho {
				head = a[:i]
				break
			}
			runes++
		}
		more := fmt.Sprintf("…[%d more characters]", n-maxEcho)
		q, qh := strconv.Quote(a), strconv.Quote(head)
		clips = append(clips, echoClip{q[1 : len(q)-1], qh[1:len(qh)-1] + more})
		if q[1:len(q)-1] != a {
			clips = append(clips, echoClip{a, head + more})
		}
	}
	for _, a := range args {
		add(a)
		if strings.HasPrefix(a, "-") {
			if _, v, ok := strings.Cut(a, "="); ok {
				add(v)
				a = v
			}
		}
		// A URL's host and path are repeated alone too (lookup errors,
		// TLS errors name the host).
		if u, err := url.Parse(a); err == nil && u.Host != "" {
			add(u.Host)
			add(u.Hostname())
			add(u.Path)
		}
	}
	sort.SliceStable(clips, func(i, j int) bool { return len(clips[i].from) > len(clips[j].from) })
	return clips
}
