package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// fixedListenPort finds a listener on a fixed port in a line of a test: a
// Go listen call, a server's Addr, or a script's background command given
// --addr or --http, naming host:port with a port other than 0.
var (
	hostPort      = `(?:(?:[0-9]{1,3}\.){3}[0-9]{1,3}|localhost|\[[0-9a-fA-F:]*\])?:0*[1-9][0-9]*\b`
	goListen      = regexp.MustCompile(`(?:Listen(?:Packet|AndServe(?:TLS)?)?|StartOn)\(\s*(?:"tcp[46]?",\s*)?"` + hostPort + `"|\bAddr:\s*"` + hostPort + `"`)
	scriptListen  = regexp.MustCompile(`--?(?:addr|http)[ =]` + hostPort + `.*&\S*&?\s*$`)
	fixedPortFile = func(path string) bool {
		return strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, ".txtar")
	}
)

func fixedListenPort(path, line string) bool {
	if strings.HasSuffix(path, ".go") {
		return goListen.MatchString(line)
	}
	return scriptListen.MatchString(line)
}

// TestNoFixedListenPorts: no test in the module listens on a fixed port (two
// runs on one machine, two CI jobs or a developer's run beside CI, would
// collide); they listen on port 0 and read the address.
func TestNoFixedListenPorts(t *testing.T) {
	root := filepath.Join("..", "..")
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !fixedPortFile(path) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if fixedListenPort(path, line) {
				found = append(found, path+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("a fixed listen port: %s", f)
	}
}

// TestFixedListenPortFinds: the check finds the listeners the script tests
// used to start, and passes what listens on port 0 or only names an address.
func TestFixedListenPortFinds(t *testing.T) {
	// The fixed ports are put in at run time so that no line of this file
	// reads as a listener to a search of the sources.
	port := strconv.Itoa(18497)
	for _, c := range []struct {
		path, line string
		fixed      bool
	}{
		{"x.txtar", "exec termsgate seller --addr 127.0.0.1:" + port + " --cert-file seller.pem &seller&", true},
		{"x.txtar", "exec termsgate mcp --http=localhost:" + port + " &mcp&", true},
		{"x.txtar", "exec termsgate seller --addr 127.0.0.1:0 --cert-file seller.pem --url-file url &seller&", false},
		{"x.txtar", "exits 2 termsgate mcp --http 127.0.0.1:99999", false}, // refused, never listens
		{"x.txtar", "exits 3 termsgate hash https://127.0.0.1:1/atr", false},
		{"x_test.go", `l, err := net.Listen("tcp", "127.0.0.1:` + port + `")`, true},
		{"x_test.go", `srv := &http.Server{Addr: ":` + port + `"}`, true},
		{"x_test.go", `s, err := loopback.StartOn("[::1]:` + port + `", h)`, true},
		{"x_test.go", `l, err := net.Listen("tcp", "127.0.0.1:0")`, false},
		{"x_test.go", `Fetch(ctx, "https://127.0.0.1:1/")`, false},
	} {
		if got := fixedListenPort(c.path, c.line); got != c.fixed {
			t.Errorf("%s: %q: fixed %v, want %v", c.path, c.line, got, c.fixed)
		}
	}
}
