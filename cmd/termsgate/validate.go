package main

// The CLI's own rules, kept in one place: every value a flag takes is
// checked when the flag is parsed, before anything is read, fetched or
// signed, and a bad one is exit 2 with a message naming it.

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/all"
)

// The CAIP-10 grammar (docs/protocol.md, "Accounts, inputs and
// signing requests").
var (
	caip10Pattern = regexp.MustCompile(`^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}:[-.%a-zA-Z0-9]{1,128}$`)
)

// caip2Flag is a CAIP-2 network id such as eip155:84532.
type caip2Flag struct{ p *string }

func (f caip2Flag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f caip2Flag) Set(s string) error {
	// The spend limits compare networks as signing requests spell them, so
	// the flag takes exactly that spelling (pay.CheckNetwork).
	if err := pay.CheckNetwork(s); err != nil {
		return fmt.Errorf("%w (e.g. eip155:84532)", err)
	}
	*f.p = s
	return nil
}

// caip10Flag is a CAIP-10 account such as eip155:84532:0xf39F….
type caip10Flag struct{ p *string }

func (f caip10Flag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f caip10Flag) Set(s string) error {
	if !caip10Pattern.MatchString(s) {
		return errors.New("not a CAIP-10 account (namespace:reference:address, e.g. eip155:84532:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266)")
	}
	*f.p = s
	return nil
}

// pairingFlag is one of the pairing ids the binary carries.
type pairingFlag struct{ p *string }

func (f pairingFlag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f pairingFlag) Set(s string) error {
	ids := all.Default().IDs()
	for _, id := range ids {
		if id == s {
			*f.p = s
			return nil
		}
	}
	return fmt.Errorf("not a supported pairing; the supported ones are %s", strings.Join(ids, ", "))
}

// objectFlag is a JSON object given as text (--inputs).
type objectFlag struct{ p *string }

func (f objectFlag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f objectFlag) Set(s string) error {
	v, err := jsonv.Parse([]byte(s))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if _, ok := jsonv.AsObject(v); !ok {
		return errors.New("not a JSON object ({\"name\": value, …})")
	}
	*f.p = s
	return nil
}

// fileFlag is a file that must exist and be readable when the flag is
// parsed, so that a typo is exit 2 before any network traffic.
type fileFlag struct{ p *string }

func (f fileFlag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f fileFlag) Set(s string) error {
	fh, err := os.Open(s)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot open it: %w", err)
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err != nil || fi.IsDir() {
		return errors.New("not a file")
	}
	*f.p = s
	return nil
}

// addrFlag is host:port with a port from 0 to 65535 (mcp --http); port 0
// asks the system for a free port, as tests and supervisors do.
type addrFlag struct{ p *string }

func (f addrFlag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f addrFlag) Set(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return errors.New("not host:port (e.g. 127.0.0.1:8402)")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q is not from 0 to 65535 (0 picks a free port)", port)
	}
	if host == "" {
		return errors.New("no host; give one, e.g. 127.0.0.1:" + port)
	}
	*f.p = s
	return nil
}

// parseFlags is fs.Parse that also accepts flags after the positional
// arguments (termsgate read doc.json --pairing ID), as people type them.
// "--" still ends the flags; a lone "-" (standard input) is positional.
func parseFlags(fs *flag.FlagSet, args []string) error {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // Parse names it
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return parseOneLine(fs, append(append(flags, "--"), pos...))
}

// wantsHelp reports -h, -help or --help among a command's arguments (before
// a "--").
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// version is the module version and VCS commit the binary was built from.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " " + rev + modified
	}
	return v
}
