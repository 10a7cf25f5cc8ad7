package main

// termsgate mcp: the gate as MCP tools for AI agents (docs/mcp.md).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/mcpserver"
	"github.com/termsgate/termsgate/pay"
)

func init() {
	commands["mcp"] = command{"serve the gate as MCP tools for agents (stdio, or --http)", runMCP}
}

const mcpUsage = `mcp [--http 127.0.0.1:PORT [--allow-remote] [--token-file FILE]]
                [--key-file FILE [--passphrase-file FILE] | --dev-key] [--network CAIP2] [--rpc URL]
                [--max-amount N|--max-usd D [--budget N] [--budget-usd D] [--asset A] [--payee A] [--max-payable D]]
                [--agent CAIP10] [--confirm-above N|--confirm-above-usd D]
                [--state PATH|postgres://...] [--seal-key-file FILE] [--allow-private]

Serves MCP on standard input and output (the default), or streamable HTTP
at http://ADDR/mcp with --http. Without a key the server offers atr_read,
atr_confirm, atr_finish, atr_check, atr_channel_open and
atr_channel_record_charge; with one, also atr_transact, atr_agree and
atr_channel_within, which sign with it, and then --max-amount is required:
the most one payment (or what one voucher adds to a channel) may move, in
atomic units of the asset on --network. With --agent ID, atr_transact
pays offers as that agent identity (cloudflare:402:NAME), approving and
paying the agreement with the key first, as transact --agent does. When
the client declares elicitation (over stdio), agreement payments, and with
--confirm-above N (atomic units) or --confirm-above-usd D any payment above
it, are put to the human before they are signed; a refusal signs nothing.
A client without elicitation keeps the approve round trip. The server's instructions and its
atr_confirm and atr_transact results state the limits in force. --budget
is counted in --state (a file under the user's state directory by default,
shared with the other termsgate commands; a postgres:// URL for instances
that share one budget), so a restart does not reset it. --max-usd and
--budget-usd state the limits in US dollars, for the USD stablecoins
termsgate knows (as termsgate pay --help says); --budget-usd is one total
across every asset.

The seal key (32 random bytes: head -c 32 /dev/urandom > seal.key) comes from
--seal-key-file, else $TERMSGATE_SEAL_KEY (64 hex digits), else a fresh
random key per process. Give the same key to every instance that must accept
another's chosen values (behind a load balancer, across restarts).`

// mcpClient fetches the ATRs; tests replace it with a loopback client.
var mcpClient = func(allowPrivate bool) atr.Doer { return atr.NewClient(allowPrivate) }

func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: termsgate %s\n\n", mcpUsage)
		fs.PrintDefaults()
	}
	keys := addKeyFlags(fs)
	limits := addLimitFlags(fs)
	agent := new(string)
	fs.Var(agentFlag{agent}, "agent", "atr_transact pays offers as this agent identity (CAIP-10, e.g. cloudflare:402:NAME; it signs no payment), the key paying only the agreement")
	confirmAbove := fs.String("confirm-above", "", "with a client that declares elicitation (stdio or HTTP): put every payment above this many atomic units of its asset to the human before it is signed (agreement payments are always put to the human)")
	confirmAboveUSD := fs.String("confirm-above-usd", "", "as --confirm-above, in US dollars (0.50), for the USD stablecoins termsgate knows; any other asset is put to the human")
	allowPrivate := fs.Bool("allow-private", false, "allow fetching from loopback and private addresses (local development only)")
	stellarRPC := addStellarFlags(fs)
	solanaRPC := addSolanaFlags(fs)
	ca := addCAFlag(fs)
	httpAddr := new(string)
	fs.Var(addrFlag{httpAddr}, "http", "serve streamable HTTP on this address (loopback, e.g. 127.0.0.1:8402) instead of stdio")
	allowRemote := fs.Bool("allow-remote", false, "allow --http on an address that is not loopback")
	tokenFile, sealKeyFile := new(string), new(string)
	fs.Var(fileFlag{tokenFile}, "token-file", "with --http: a file holding the bearer token every request must carry")
	fs.Var(fileFlag{sealKeyFile}, "seal-key-file", "a file of 32 random bytes sealing chosen values (else $TERMSGATE_SEAL_KEY, else per process)")
	if err := parseFlags(fs, args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 0 {
		return usageError(stderr, "mcp", fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if *httpAddr == "" && (*allowRemote || *tokenFile != "") {
		return usageError(stderr, "mcp", errors.New("--allow-remote and --token-file go with --http"))
	}

	if *agent != "" && !keys.devKey && keys.keyFile == "" {
		return usageError(stderr, "mcp", errors.New("--agent needs a key (--key-file or --dev-key) to pay the agreement"))
	}
	if (*confirmAbove != "" || *confirmAboveUSD != "") && !keys.devKey && keys.keyFile == "" {
		return usageError(stderr, "mcp", errors.New("--confirm-above and --confirm-above-usd need a key (--key-file or --dev-key): without one the server signs nothing"))
	}
	cfg := mcpserver.Config{Client: ca.apply(mcpClient(*allowPrivate)), Version: version()}
	if *confirmAbove != "" {
		n, err := atomicFlag("--confirm-above", *confirmAbove)
		if err != nil {
			return usageError(stderr, "mcp", err)
		}
		cfg.ConfirmAbove = n
	}
	if *confirmAboveUSD != "" {
		d, err := pay.ParseUSD(*confirmAboveUSD)
		if err != nil {
			return usageError(stderr, "mcp", fmt.Errorf("--confirm-above-usd: %w", err))
		}
		cfg.ConfirmAboveUSD = d
	}
	cfg.InputsFor = solanaRPC.inputsFor(atr.NewClient(*allowPrivate), stellarRPC.inputsFor(atr.NewClient(*allowPrivate)))
	if keys.devKey || keys.keyFile != "" {
		policy, err := limits.forKey(keys, keys.network)
		if err != nil {
			return usageError(stderr, "mcp", err)
		}
		cfg.Policy = policy
		s, err := keys.signer(stderr)
		if err != nil {
			return usageError(stderr, "mcp", err)
		}
		if keys.devKey {
			fmt.Fprintln(stderr, "termsgate mcp: ******** WARNING ********")
			fmt.Fprintln(stderr, "termsgate mcp: atr_transact and atr_agree sign with the PUBLISHED Anvil development key", s.Account())
			fmt.Fprintln(stderr, "termsgate mcp: anyone can spend what that account holds; use it only on test networks")
		}
		cfg.Signer = s
		if *agent != "" {
			// As transact --agent: the identity pays the offer, approved
			// and paid agreement first; the key pays only the agreement.
			cfg.Signer, cfg.AgreementSigner = agentIdentity(*agent), s
		}
	}
	key, err := sealKey(*sealKeyFile)
	if err != nil {
		return usageError(stderr, "mcp", err)
	}
	cfg.SealKey = key
	srv, err := mcpserver.New(cfg)
	if err != nil {
		return usageError(stderr, "mcp", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *httpAddr == "" {
		if err := srv.ServeStdio(ctx, stdin, stdout, slog.New(slog.NewTextHandler(stderr, nil))); err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "termsgate mcp:", err)
			return exitFailure
		}
		return exitOK
	}
	if !mcpserver.IsLoopbackAddr(*httpAddr) && !*allowRemote {
		return usageError(stderr, "mcp", fmt.Errorf("--http %s is not a loopback address; give --allow-remote to serve it (and a --token-file)", *httpAddr))
	}
	var token string
	if *tokenFile != "" {
		b, err := os.ReadFile(*tokenFile)
		if err != nil {
			return usageError(stderr, "mcp", err)
		}
		if token = strings.TrimSpace(string(b)); token == "" {
			return usageError(stderr, "mcp", fmt.Errorf("--token-file %s is empty", *tokenFile))
		}
	} else if !mcpserver.IsLoopbackAddr(*httpAddr) {
		fmt.Fprintln(stderr, "termsgate mcp: WARNING: serving a non-loopback address without --token-file: anyone who reaches it can use the tools")
	}
	return serveMCPHTTP(ctx, srv, *httpAddr, token, stderr)
}

// sealKey reads the seal key from the file, else $TERMSGATE_SEAL_KEY; nil
// means a per-process key.
func sealKey(file string) ([]byte, error) {
	if file != "" {
		return mcpserver.SealKeyFromFile(file)
	}
	if v, ok := os.LookupEnv("TERMSGATE_SEAL_KEY"); ok {
		k, err := mcpserver.SealKeyFromHex(v)
		if err != nil {
			return nil, fmt.Errorf("$TERMSGATE_SEAL_KEY: %w", err)
		}
		return k, nil
	}
	return nil, nil
}

func serveMCPHTTP(ctx context.Context, srv *mcpserver.Server, addr, token string, stderr io.Writer) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(stderr, "termsgate mcp:", err)
		return exitFailure
	}
	hs := &http.Server{
		Handler:           srv.HTTPHandler(mcpserver.HTTPOptions{Token: token}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	// Tests and scripts read the bound address (port 0 picks one) from here.
	fmt.Fprintf(stderr, "termsgate mcp: serving MCP at http://%s/mcp\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		fmt.Fprintln(stderr, "termsgate mcp:", err)
		return exitFailure
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(shutdown)
		return exitOK
	}
}
