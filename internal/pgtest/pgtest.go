// Package pgtest runs a throwaway PostgreSQL server for tests: initdb into a
// temporary directory, the server on a free loopback port (and a Unix
// socket in that directory), stopped and removed when the test ends. A
// machine without PostgreSQL's binaries skips the test naming the package to
// install (and fails it under .ci/run, which installs it).
//
// PostgreSQL refuses to run as root; as root the server runs as the
// postgres user (else nobody).
package pgtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/termsgate/termsgate/internal/testenv"
)

// Server is a running (or stopped) test server.
type Server struct {
	bin, dir, data string
	port           int
	cred           *syscall.Credential
	running        bool
	ndb            int
}

// Install is what a machine without the binaries needs.
const Install = "PostgreSQL 15 or later (Debian: apt-get install postgresql)"

// BinDir finds initdb, pg_ctl and postgres: $TERMSGATE_PG_BIN, pg_config
// --bindir, the newest /usr/lib/postgresql/*/bin, or PATH.
func BinDir() (string, error) {
	if d := os.Getenv("TERMSGATE_PG_BIN"); d != "" {
		return d, nil
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		d := string(bytes.TrimSpace(out))
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("initdb not found")
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// Start initialises and starts a server for tb, stopped when tb ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin, err := BinDir()
	if err != nil {
		testenv.Missing(tb, "PostgreSQL's initdb not found; install "+Install)
	}
	dir, err := os.MkdirTemp("", "termsgate-pg-")
	if err != nil {
		tb.Fatal(err)
	}
	s := &Server{bin: bin, dir: dir, data: filepath.Join(dir, "data")}
	tb.Cleanup(func() {
		s.Stop(tb)
		os.RemoveAll(dir)
	})
	if os.Geteuid() == 0 {
		s.cred = unprivileged(tb)
		if err := os.Chmod(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.Chown(dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			tb.Fatal(err)
		}
	}
	tmpl, err := template(s)
	if err != nil {
		tb.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", tmpl, s.data).CombinedOutput(); err != nil {
		tb.Fatalf("copying the initdb template: %v\n%s", err, out)
	}
	s.port = freePort(tb)
	s.Restart(tb)
	return s
}

// template is a data directory made by initdb, kept under the user's cache
// directory (like Go's build cache) and copied for each server: initdb takes
// seconds, a copy a fraction of one.
func template(s *Server) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	uid := os.Geteuid()
	if s.cred != nil {
		uid = int(s.cred.Uid)
	}
	dir := filepath.Join(cache, "termsgate", fmt.Sprintf("pg-template-%s-%d", filepath.Base(filepath.Dir(s.bin)), uid))
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err == nil {
		return dir, nil
	}
	// initdb into the server's own directory (which the unprivileged user
	// can write), then move it into the cache; a concurrent test binary
	// doing the same loses the rename harmlessly.
	tmp := filepath.Join(s.dir, "template")
	// initdb without syncing: a crash loses only a cache. The server itself
	// syncs as in production, so benchmarks pay for it.
	if out, err := s.run("initdb", "-D", tmp, "-U", "postgres", "--auth=trust", "--no-instructions",
		"-E", "UTF8", "--no-locale", "--no-sync"); err != nil {
		return "", fmt.Errorf("initdb: %v\n%s", err, out)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "PG_VERSION")); statErr == nil {
			return dir, nil
		}
		return "", err
	}
	return dir, nil
}

// unprivileged is the user the server runs as when the test runs as root.
func unprivileged(tb testing.TB) *syscall.Credential {
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	tb.Fatal("pgtest: running as root and there is no postgres or nobody user to run PostgreSQL as")
	return nil
}

func freePort(tb testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func (s *Server) run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return cmd.CombinedOutput()
}

// URL is the connection string of database postgres on the server.
func (s *Server) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
}

// Restart starts the server (again, after Stop) and waits until it accepts
// connections.
func (s *Server) Restart(tb testing.TB) {
	tb.Helper()
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c max_connections=200", s.port, s.dir)
	out, err := s.run("pg_ctl", "start", "-w", "-t", "60", "-D", s.data, "-l", filepath.Join(s.dir, "log"), "-o", opts)
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		tb.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	s.running = true
}

// Stop stops the server (fast shutdown: open sessions are cut).
func (s *Server) Stop(tb testing.TB) {
	tb.Helper()
	if !s.running {
		return
	}
	start := time.Now()
	if out, err := s.run("pg_ctl", "stop", "-w", "-m", "fast", "-D", s.data); err != nil {
		tb.Errorf("pg_ctl stop after %s: %v\n%s", time.Since(start), err, out)
	}
	s.running = false
}

// NewDatabase creates an empty database on the server and returns its
// connection string.
func (s *Server) NewDatabase(tb testing.TB) string {
	tb.Helper()
	s.ndb++
	name := fmt.Sprintf("test%d", s.ndb)
	if out, err := s.run("psql", "-X", "-q", "-h", s.dir, "-p", strconv.Itoa(s.port), "-U", "postgres", "-d", "postgres",
		"-c", "CREATE DATABASE "+name); err != nil {
		tb.Fatalf("CREATE DATABASE: %v\n%s", err, out)
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, name)
}
