package main

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/termsgatetest"
)

// stallingSeller is an x402 seller on loopback TLS whose ATR link, or whose
// answer to a paid request, waits until the buyer gives up: the places a
// person presses Ctrl-C. reached is told when the buyer got there.
type stallingSeller struct {
	srv     *loopback.Server
	x       *x402seller.Seller
	url     string
	pemFile string
	reached chan string
}

func newStallingSeller(t *testing.T, stallATR, stallPaid bool) *stallingSeller {
	t.Helper()
	s := &stallingSeller{x: x402seller.New(termsgatetest.DefaultATR, []byte(`{"report":"paid"}`)), reached: make(chan string, 4)}
	stall := func(w http.ResponseWriter, r *http.Request, what string) {
		s.reached <- what
		<-r.Context().Done()
	}
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case stallATR && r.URL.Path == "/"+s.x.Hash().String():
			stall(w, r, "atr")
		case stallPaid && r.Header.Get("Payment-Signature") != "":
			stall(w, r, "paid")
		default:
			s.x.ServeHTTP(w, r)
		}
	}), "localhost")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	host := srv.Listener.Addr().String()
	s.srv, s.x.ATRHost, s.x.APIHost = srv, host, host
	s.url = "https://" + host + s.x.ResourcePath
	s.pemFile = filepath.Join(t.TempDir(), "seller.pem")
	if err := os.WriteFile(s.pemFile, srv.CertificatePEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// interruptChild runs termsgate (this test binary, as TestMain makes it) in
// a child process with args (its state in memory unless --state says), sends it SIGINT once the seller saw it reach
// want, and returns its exit code and output.
func interruptChild(t *testing.T, s *stallingSeller, want string, args ...string) (int, string, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "termsgate")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(link, args...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case got := <-s.reached:
		if got != want {
			t.Fatalf("the buyer reached %s, not %s", got, want)
		}
	case err := <-exited:
		t.Fatalf("termsgate ended (%v) before reaching %s: %s", err, want, errs.String())
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("termsgate never reached %s: %s", want, errs.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("termsgate did not end after SIGINT: %s", errs.String())
	}
	return cmd.ProcessState.ExitCode(), out.String(), errs.String()
}

// lastLine is the last line s holds.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestCtrlCSaysWhatWasSigned: SIGINT to pay or transact in a child process
// ends it with 130 after one line saying what was signed or sent: nothing,
// while the ATR is being fetched; a payment kept in the journal, while the
// seller sits on the paid request (and the journal holds it, unanswered, for
// the next pay to present again).
func TestCtrlCSaysWhatWasSigned(t *testing.T) {
	t.Run("pay while fetching", func(t *testing.T) {
		s := newStallingSeller(t, true, false)
		code, out, errs := interruptChild(t, s, "atr",
			"pay", "--dev-key", "--max-amount", "10000", "--allow-private", "--ca-file", s.pemFile, s.url)
		if code != exitInterrupted || lastLine(errs) != "termsgate: interrupted: nothing signed, nothing sent" || out != "" {
			t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errs)
		}
		if strings.Count(errs, "interrupted") != 1 || s.x.Paid.Load() != 0 {
			t.Fatalf("%d payments accepted; stderr:\n%s", s.x.Paid.Load(), errs)
		}
	})
	t.Run("pay while the seller holds the payment", func(t *testing.T) {
		s := newStallingSeller(t, false, true)
		state := filepath.Join(t.TempDir(), "state.db")
		code, _, errs := interruptChild(t, s, "paid",
			"pay", "--dev-key", "--max-amount", "10000", "--state", state, "--allow-private", "--ca-file", s.pemFile, s.url)
		want := "termsgate: interrupted: signed 10000 atomic units of USDC"
		if code != exitInterrupted || !strings.HasPrefix(lastLine(errs), want) || !strings.Contains(lastLine(errs), "kept in the journal, and the next pay of this URL presents it again") {
			t.Fatalf("exit %d, stderr:\n%s", code, errs)
		}
		code, out, errs := runCLI(t, "", "payments", "--state", state, "--json")
		if code != exitOK || strings.Count(strings.TrimSpace(out), "\n") != 0 || !strings.Contains(out, s.url) {
			t.Fatalf("payments: exit %d, %s %s; want the one unanswered payment", code, out, errs)
		}
	})
	t.Run("transact while fetching", func(t *testing.T) {
		s := newStallingSeller(t, true, false)
		resp, err := s.srv.Client().Get(s.url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		offer := filepath.Join(t.TempDir(), "offer.txt")
		os.WriteFile(offer, []byte(resp.Header.Get("PAYMENT-REQUIRED")), 0o600)
		code, out, errs := interruptChild(t, s, "atr",
			"transact", "--dev-key", "--max-amount", "10000", "--allow-private", "--ca-file", s.pemFile, offer)
		if code != exitInterrupted || lastLine(errs) != "termsgate: interrupted: nothing signed, nothing sent" || out != "" {
			t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errs)
		}
	})
}
