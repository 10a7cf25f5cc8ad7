package main

import (
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
)

// TestFetchFailureNamesItsCause: a refused private address prints the same
// pinned detail as any fetch failure, then the cause and the flag that
// allows it.
func TestFetchFailureNamesItsCause(t *testing.T) {
	old := stepsClient
	stepsClient = func(allowPrivate bool) atr.Doer { return atr.NewClient(allowPrivate) }
	t.Cleanup(func() { stepsClient = old })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	link := "https://127.0.0.1:" + strconv.Itoa(port) + "/atr"
	code, _, errs := runCLI(t, "", "hash", link)
	if code != exitFailure || !strings.Contains(errs, atr.DetailUnfetchable) ||
		!strings.Contains(errs, "because: ") ||
		!strings.Contains(errs, "hint: 127.0.0.1 is not a public address; --allow-private allows it for local development") {
		t.Fatalf("exit %d:\n%s", code, errs)
	}
	// With --allow-private the address is dialled; the cause is then the
	// refused connection, and no hint about addresses.
	code, _, errs = runCLI(t, "", "hash", "--allow-private", link)
	if code != exitFailure || !strings.Contains(errs, "connection refused") || strings.Contains(errs, "--allow-private allows") {
		t.Fatalf("exit %d:\n%s", code, errs)
	}
}

// TestPayVerboseTimesEachStep: -v logs the request, the answer, the fetch,
// the hash, the signature and the paid request, each with its time.
func TestPayVerboseTimesEachStep(t *testing.T) {
	s := newPaySeller(t)
	code, _, errs := runCLI(t, "", "pay", "-v", "--dev-key", "--max-amount", "10000", s.ResourceURL())
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		`termsgate: +\d+ ms  sending GET https://`,
		`the seller answered 402 Payment Required`,
		`termsgate: +\d+ ms  fetching the ATR at https://`,
		`termsgate: +\d+ ms  the ATR's hash matched: 0x[0-9a-f]{64} \(138 bytes\)`,
		`termsgate: +\d+ ms  asking the signer to sign a eip712 request`,
		`termsgate: +\d+ ms  sending GET https://\S+ with the payment`,
		`the seller answered 200 OK`,
	} {
		if !regexp.MustCompile(want).MatchString(errs) {
			t.Errorf("no line matching %q in:\n%s", want, errs)
		}
	}
	// Not a terminal: no progress line, whatever the step's length.
	if strings.Contains(errs, "\r") {
		t.Fatal("progress written to a non-terminal")
	}
}

// TestProgressLine: on a terminal a step running past a second shows on one
// line it keeps current, seller text escaped, and the line is erased when
// the step ends; a quick step shows nothing.
func TestProgressLine(t *testing.T) {
	var buf syncBuffer
	l := &stepLog{w: termWriter{w: &buf}, raw: &buf, live: true, stop: make(chan struct{})}
	go l.tick()
	l.begin("quick")
	l.begin("fetching the ATR at https://atr.seller.example/\x1b[2Kx")
	time.Sleep(progressAfter + 400*time.Millisecond)
	l.done()
	out := buf.String()
	if strings.Contains(out, "quick") {
		t.Fatalf("a quick step was shown: %q", out)
	}
	if !strings.Contains(out, "\rtermsgate: fetching the ATR at https://atr.seller.example/\\x1b[2Kx … 1 s\x1b[K") || !strings.HasSuffix(out, "\r\x1b[K") {
		t.Fatalf("progress %q", out)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
