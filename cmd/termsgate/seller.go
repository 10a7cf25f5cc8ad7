package main

// termsgate seller: something to try every command against, on this
// machine. It serves a seller with published terms on loopback TLS and
// writes its certificate for the other commands' --ca-file.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/rails/cloudflare"
	"github.com/termsgate/termsgate/termsgatetest"
)

func init() {
	commands["seller"] = command{"serve a seller with published terms on loopback TLS, to try the other commands against", runSeller}
}

const sellerUsage = `seller [--addr 127.0.0.1:8402] [--listen-any] [--mpp] [--cert-file seller.pem] [--url-file FILE] [--lie] [--slow DURATION] [--no-terms|--agreement]

Serves, until interrupted, a seller of one report that publishes its terms
(an ATR) and checks every payment: an x402 seller asking 0.01 USDC on Base
Sepolia, or with --mpp an MPP seller asking 1 pathUSD on Tempo Moderato.
It settles nothing and moves no value. Its certificate is written to
--cert-file; give that file to pay, confirm, transact, hash and mcp as
--ca-file, with --allow-private (the seller is on a loopback address).
It prints its URL on standard output, and with --url-file also writes it
to that file (for scripts: --addr 127.0.0.1:0 picks a free port).

--addr must be a loopback address: the seller accepts any signature and is
for trying termsgate. --listen-any allows another one; give the address
others reach this machine by (the certificate, the terms' link and the URL
name it). On 0.0.0.0 or [::] they name the loopback address, which works
from this machine.

--lie serves other bytes at the terms' link than the hash the offer
advertises (the buyer must decline, hash-mismatch); --slow makes the link
answer late (past 10 s the buyer declines, atr-unfetchable); --no-terms
(x402 only) publishes no terms at all, as sellers without the Legal Context
Protocol do: pay declines it (x402/no-legal-context) unless --allow-unbound.
--agreement (x402 only) needs the agreement exchange: its offer is
x402/batch-settlement/cloudflare, paid by an agent's identity
(cloudflare:402:agent.example) and no public proof of the terms, and it
names an agreement URL (/agree) that sells a receipt for 1 atomic unit of
USDC; the resource answers only once an agreement was paid there. agree
--url pays the agreement; transact --agent pays both.`

func runSeller(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("seller", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: termsgate %s\n\nFlags:\n", sellerUsage)
		fs.PrintDefaults()
	}
	addr := "127.0.0.1:8402"
	fs.Var(addrFlag{&addr}, "addr", "the loopback address to listen on (port 0 picks a free one)")
	listenAny := fs.Bool("listen-any", false, "allow an --addr that is not loopback (anyone who reaches it can use the seller)")
	urlFile := fs.String("url-file", "", "also write the seller's URL to this file once it listens")
	mppFlag := fs.Bool("mpp", false, "sell over MPP (a Tempo charge) instead of x402")
	certFile := fs.String("cert-file", "seller.pem", "where to write the seller's certificate (PEM)")
	lie := fs.Bool("lie", false, "serve other bytes at the terms' link than the advertised hash")
	slow := fs.Duration("slow", 0, "make the terms' link answer after this long")
	noTerms := fs.Bool("no-terms", false, "publish no terms (x402 only): a seller pay declines unless --allow-unbound")
	agreement := fs.Bool("agreement", false, "need the agreement exchange (x402 only): an offer that is no public proof, with an agreement URL")
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() != 0 {
		return usageError(stderr, "seller", fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if !*listenAny && !isLoopbackAddr(addr) {
		return usageError(stderr, "seller", fmt.Errorf("--addr %s is not a loopback address; the seller accepts any signature and is for trying termsgate on this machine (--listen-any allows it)", addr))
	}
	cfg := termsgatetest.Config{Addr: addr, NoTerms: *noTerms, Agreement: *agreement}
	if *mppFlag {
		cfg.Protocol = termsgatetest.MPP
	}
	s, err := termsgatetest.Start(cfg)
	var netErr *net.OpError
	if errors.As(err, &netErr) {
		// Not a mistake in the command: the address is taken, or not this
		// machine's.
		fmt.Fprintf(stderr, "termsgate seller: %v\n", err)
		if errors.Is(err, syscall.EADDRINUSE) {
			fmt.Fprintln(stderr, "termsgate: hint: another program (another termsgate seller?) listens there; --addr 127.0.0.1:0 picks a free port")
		}
		return exitFailure
	}
	if err != nil {
		return usageError(stderr, "seller", err)
	}
	defer s.Close()
	if err := os.WriteFile(*certFile, s.CertificatePEM(), 0o644); err != nil {
		fmt.Fprintf(stderr, "termsgate seller: writing the certificate: %v\n", err)
		return exitFailure
	}
	if *urlFile != "" {
		if err := writeFileAtomic(*urlFile, []byte(s.URL+"\n")); err != nil {
			fmt.Fprintf(stderr, "termsgate seller: --url-file: %v\n", err)
			return exitFailure
		}
	}
	if *lie {
		s.Lie([]byte(`{"terms":"not the terms the offer advertises"}`))
	}
	s.SetDelay(*slow)
	network := "eip155:84532"
	if *mppFlag {
		network = "eip155:42431"
	}
	fmt.Fprintf(stdout, "%s\n", s.URL)
	terms, unbound := fmt.Sprintf("terms %s at %s", s.Hash(), s.ATRLink()), ""
	if *noTerms {
		terms, unbound = "no terms published", " --allow-unbound"
	}
	fmt.Fprintf(stderr, "termsgate seller: %s seller of %s (%s); certificate in %s\n", s.Protocol(), s.URL, terms, *certFile)
	if *agreement {
		fmt.Fprintf(stderr, "termsgate seller: the offer is %s for the agent %s, with the agreement URL %s\n", cloudflare.ID, termsgatetest.AgentAccount, s.AgreementURL())
		fmt.Fprintf(stderr, "termsgate seller: try: termsgate transact --agent %s --pairing %s --dev-key --max-amount 1 --allow-private --ca-file %s OFFER (its PAYMENT-REQUIRED), then again with --approved\n", termsgatetest.AgentAccount, cloudflare.ID, *certFile)
	} else {
		fmt.Fprintf(stderr, "termsgate seller: try: termsgate pay --dev-key --network %s --max-amount 1000000 --allow-private%s --ca-file %s %s\n", network, unbound, *certFile, s.URL)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	c := s.Counts()
	fmt.Fprintf(stderr, "termsgate seller: %d unpaid requests, %d payments accepted, %d refused, %d fetches of the terms\n", c.Unpaid, c.Paid, c.Rejected, c.ATRFetches)
	if *agreement {
		fmt.Fprintf(stderr, "termsgate seller: %d agreements paid\n", c.Agreements)
	}
	return exitOK
}

// isLoopbackAddr reports whether addr (host:port) names a loopback address:
// 127.0.0.0/8, ::1 or localhost.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// writeFileAtomic writes b to path through a temporary file in the same
// folder, so that a script waiting for path never reads half of it.
func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// caFlag is --ca-file: a PEM file of certificates to trust besides the
// system's (a local seller's, such as termsgate seller's), read when the
// flag is parsed.
type caFlag struct {
	file string
	pool *x509.CertPool
}

func (f *caFlag) String() string {
	if f == nil {
		return ""
	}
	return f.file
}

func (f *caFlag) Set(s string) error {
	b, err := os.ReadFile(s)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot read it: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(b) {
		return errors.New("no PEM certificate in it")
	}
	f.file, f.pool = s, pool
	return nil
}

func addCAFlag(fs *flag.FlagSet) *caFlag {
	f := &caFlag{}
	fs.Var(f, "ca-file", "also trust the certificates in this PEM file (a local seller's, such as termsgate seller's)")
	return f
}

// apply returns d trusting the file's certificates too; d unchanged when no
// file was given or d is not an *http.Client over an *http.Transport.
func (f *caFlag) apply(d atr.Doer) atr.Doer {
	if c, ok := d.(*http.Client); ok {
		return f.applyClient(c)
	}
	return d
}

func (f *caFlag) applyClient(c *http.Client) *http.Client {
	if f == nil || f.pool == nil || c == nil {
		return c
	}
	tr, ok := c.Transport.(*http.Transport)
	if !ok {
		return c
	}
	tr = tr.Clone()
	if tr.TLSClientConfig == nil {
		tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	tr.TLSClientConfig.RootCAs = f.pool
	cc := *c
	cc.Transport = tr
	return &cc
}
