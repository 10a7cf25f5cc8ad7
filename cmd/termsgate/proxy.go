package main

// termsgate proxy: the stdio MCP server an agent host starts in place of a
// paid MCP server; it forwards every message both ways and pays the paid
// tool calls through the gate, under the limits of termsgate pay
// (package mcppay, docs/mcp.md "Paying paid MCP tools").

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/ledger"
	"github.com/termsgate/termsgate/mcppay"
	"github.com/termsgate/termsgate/pay"
)

func init() {
	commands["proxy"] = command{"serve a paid MCP server to an agent over stdio, paying its paid tools through the gate", runProxy}
}

const proxyUsage = `proxy (--key-file FILE|--dev-key) (--max-amount N|--max-usd D) [flags] (-- CMD ARGS…|--upstream URL)

Runs CMD ARGS… as the paid MCP server (stdio), or talks to the one at URL
(streamable HTTP), and serves it to the agent host on standard input and
output, forwarding every message both ways. A tool call the server answers
with payment required (x402's MCP transport: an isError result carrying a
PaymentRequired, or a JSON-RPC error 402; MPP's: a JSON-RPC error -32042
with its challenges) is paid as termsgate pay pays a 402: the terms fetched
and their SHA-256 compared with the advertised hash, the hash bound into
the payment, the limits asked, the payment journaled in --state, and the
call sent once more with the payment in _meta. A decline is given to the
agent as a tool error whose text is the decline's JSON (code, detail, and
moved when a payment was already made). The limits are required: a wallet
without them is refused. Payments and declines are logged on standard
error.`

type proxyFlags struct {
	*payFlags
	upstream string
	command  []string
}

func parseProxy(args []string, stderr io.Writer) (*proxyFlags, error) {
	f := &proxyFlags{payFlags: newPayFlags(stderr)}
	fs := f.fs
	fs.Init("proxy", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: termsgate %s\n\nFlags:\n", proxyUsage)
		fs.PrintDefaults()
	}
	fs.StringVar(&f.upstream, "upstream", "", "the paid MCP server's streamable HTTP URL, in place of CMD")
	before, after := args, []string(nil)
	for i, a := range args {
		if a == "--" {
			before, after = args[:i], args[i+1:]
			break
		}
	}
	if err := parseOneLine(fs, before); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected %q: the server's command comes after --", fs.Arg(0))
	}
	f.command = after
	switch {
	case f.upstream == "" && len(f.command) == 0:
		return nil, errors.New("no server: give -- CMD ARGS… or --upstream URL")
	case f.upstream != "" && len(f.command) > 0:
		return nil, errors.New("give -- CMD ARGS… or --upstream URL, not both")
	}
	if f.upstream != "" {
		u, err := url.Parse(f.upstream)
		if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
			return nil, fmt.Errorf("--upstream %q is not an http(s) URL", f.upstream)
		}
	}
	if f.maxAmount == "" && f.usd.maxUSD == "" {
		return nil, errors.New("--max-amount is required (atomic units of the asset), or --max-usd (US dollars): the proxy does not pay without limits")
	}
	if f.dryRun {
		return nil, errors.New("--dry-run is pay's; the proxy pays or declines each call")
	}
	return f, nil
}

// proxyUpstreamClient is the client of an --upstream server; tests
// replace it.
var proxyUpstreamClient = func() *http.Client {
	return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
}

func runProxy(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, err := parseProxy(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return usageError(stderr, "proxy", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	store, done, err := openState(ctx, *f.state)
	if err != nil {
		fmt.Fprintln(stderr, "termsgate proxy:", err)
		return exitFailure
	}
	defer done()
	var budget pay.Budget
	if store != nil {
		budget = ledger.Budget(store)
	}
	policy, err := f.policy(budget)
	if err != nil {
		return usageError(stderr, "proxy", err)
	}
	s, err := f.keys.signer(stderr)
	if err != nil {
		return usageError(stderr, "proxy", err)
	}
	hc := f.ca.applyClient(payClient(f.allowPrivate))
	t := &pay.Transport{
		Gate:   &gate.Gate{Fetcher: &atr.Fetcher{Client: hc}},
		Signer: s,
		Policy: policy,
	}
	if store != nil {
		t.Journal = ledger.Journal(store)
	}
	if f.agent != "" {
		t.Signer, t.AgreementSigner = agentIdentity(f.agent), s
	}
	if f.approveAgreement != "" {
		up, _ := atomicFlag("--approve-agreement-up-to", f.approveAgreement)
		t.Hooks.ApproveAgreement = approveAgreementUpTo(up, stderr)
	}
	rpc := f.ca.applyClient(payClient(f.allowPrivate))
	t.Inputs = f.xrpl.inputs(s, rpc)
	t.InputsFor = f.solana.inputsFor(rpc, f.stellar.inputsFor(rpc))
	log := slog.New(slog.NewTextHandler(stderr, nil))
	if f.verbose {
		t.Logger = log
	}
	var conn mcppay.Conn
	server := f.upstream
	if f.upstream != "" {
		conn = mcppay.DialHTTP(f.upstream, f.ca.applyClient(proxyUpstreamClient()), nil)
	} else {
		server = f.command[0]
		cmd := exec.CommandContext(ctx, f.command[0], f.command[1:]...)
		cmd.Stderr = stderr
		c, err := mcppay.StartStdio(cmd, log)
		if err != nil {
			fmt.Fprintln(stderr, "termsgate proxy: starting the server:", err)
			return exitFailure
		}
		conn = c
	}
	fmt.Fprintf(stderr, "termsgate proxy: paying %s's paid tools as %s\n", termText(server), s.Account())
	p := &mcppay.Proxy{Payer: &mcppay.Payer{Transport: t, Server: "upstream"}, Server: conn, Logger: log}
	if err := p.Serve(ctx, stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "termsgate proxy:", err)
		return exitFailure
	}
	return exitOK
}
