package main

// termsgate pay: curl for x402 and MPP resources, paying through the gate.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/ledger"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

func init() {
	commands["pay"] = command{"request a URL, paying its x402 or MPP 402 through the gate", runPay}
}

const payUsage = `pay (--key-file FILE|--dev-key) (--max-amount N|--max-usd D) [flags] URL

Requests URL (GET, or -X POST -d DATA). When the seller answers 402 with an
x402 v2 PAYMENT-REQUIRED or an MPP WWW-Authenticate: Payment challenge, the
gate fetches its terms (the ATR), checks their SHA-256 against the
advertised hash, checks the spend limits, signs once and sends the request
again with the payment (PAYMENT-SIGNATURE, or Authorization: Payment). A
402 offering both is paid by x402 when it offers the signer's network. The
response body goes to standard output, the payment summary to standard
error.

--network picks the signer's account, and so which of the seller's options is
paid: eip155:84532 (Base Sepolia, the default) for x402 and MPP EVM
sellers, eip155:42431 (Tempo Moderato, where an MPP Tempo charge pays when
its challenge names no chain) for MPP Tempo sellers. --max-amount is the
most one payment may move, in atomic units of the asset the seller asks for
on that network (6 decimals for USDC and pathUSD: 10000 is 0.01); it is
required unless --dry-run, which shows the offer, what would be signed and
what the limits say, and signs nothing (it needs no key: without one it is
shown for the published development account). --budget caps all payments together; it is counted in --state (a
file under the user's state directory by default, or a postgres:// URL a
fleet shares), which also journals each payment before it is sent: one
signed but never answered (the process died, the connection broke) is
presented again by the next pay of the same URL instead of being signed
anew. "termsgate payments" lists them.

An offer payable only after the agreement exchange (its payment is no
public proof of the terms) is paid under an approval given up front:
--approve-agreement-up-to N approves its agreement payment of at most N
atomic units, which the limits are asked about as any payment; --agent
ACCOUNT pays the offer as an agent identity (cloudflare:402:NAME) while the
key pays the agreement.

--max-usd and --budget-usd state the same limits in US dollars (0.10, 5),
for the USD stablecoins termsgate knows (USDC on Ethereum, Base and their
testnets, Solana, Stellar and the XRPL; pathUSD on Tempo), with their
decimals from termsgate's own table, never from the seller: a payment in any
other asset is refused (policy/asset-not-usd). --budget-usd is one total
across every asset and network; --budget, like a limit without --asset,
counts each token contract apart.

--origin (repeatable) pays only 402s from these origins: a URL, or a
redirect before the 402, that leads to any other is declined
(policy/origin-not-allowed) with nothing fetched or signed.

An offer that publishes no terms (no ATR, no hash) is declined
(offer-unreadable, x402/no-legal-context or mpp/no-legal-context): paying
it binds you to nothing you could read first. --allow-unbound pays it
anyway, as clients without the Legal Context Protocol do (x402 exact
EIP-3009 under a random nonce; an MPP EVM charge by authorization), under
the same limits, and marks the payment UNBOUND; other pairings decline it.

Exit status: 0 paid (or nothing to pay) and a 2xx answer; 1 the gate
declined (the decline JSON on standard output, nothing signed); 2 usage;
3 a failure, including a seller that refused the payment.`

// payClient is the network the command uses for the resource and the ATR;
// tests replace it with a loopback client.
var payClient = func(allowPrivate bool) *http.Client { return atr.NewClient(allowPrivate) }

// payFlags are the command's flags; Go's flag package stops at the first
// positional argument, so parsePayArgs lets the URL come anywhere.
type payFlags struct {
	fs                   *flag.FlagSet
	keys                 *keyFlags
	method, data, asset  string
	maxAmount, budget    string
	usd                  *usdFlags
	origins              headerList
	extra                headerList // --limit NETWORK[/ASSET]=MAX (limits.go)
	headers              headerList
	maxPayable, timeout  time.Duration
	allowPrivate, dryRun bool
	allowHTTP            bool
	allowUnbound         bool
	verbose              bool
	verifySettlement     bool
	ca                   *caFlag
	url                  string
	approveAgreement     string // --approve-agreement-up-to (pay_more.go)
	agent                string
	state                *string
	xrpl                 *xrplFlags
	stellar              *stellarFlags
	solana               *solanaFlags
}

type headerList []string

func (h *headerList) String() string     { return strings.Join(*h, ", ") }
func (h *headerList) Set(v string) error { *h = append(*h, v); return nil }

func newPayFlags(stderr io.Writer) *payFlags {
	f := &payFlags{fs: flag.NewFlagSet("pay", flag.ContinueOnError)}
	fs := f.fs
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: termsgate %s\n\nFlags:\n", payUsage)
		fs.PrintDefaults()
	}
	f.keys = addKeyFlags(fs)
	f.xrpl = addXRPLFlags(fs)
	f.stellar = addStellarFlags(fs)
	f.solana = addSolanaFlags(fs)
	f.state = addStateFlag(fs)
	fs.StringVar(&f.method, "X", "", "the HTTP method (default GET, or POST with -d)")
	fs.StringVar(&f.data, "d", "", "the request body, sent byte for byte")
	fs.Var(&f.headers, "H", `a request header "Name: value" (repeatable)`)
	fs.StringVar(&f.maxAmount, "max-amount", "", "the most one payment may move, in the asset's atomic units")
	fs.StringVar(&f.budget, "budget", "", "the most all payments may move, in atomic units, counted in --state across runs (default: no cumulative ceiling)")
	fs.StringVar(&f.asset, "asset", "", "pay only in this token contract (default: any asset on --network)")
	f.usd = addUSDFlags(fs)
	addLimitFlag(fs, &f.extra)
	fs.Var(&f.origins, "origin", "pay only a 402 from this origin (https://host[:port], repeatable; default: any), also when a redirect led elsewhere")
	fs.DurationVar(&f.maxPayable, "max-payable", pay.DefaultMaxPayable, "the longest a signed payment may stay payable")
	fs.BoolVar(&f.allowPrivate, "allow-private", false, "allow loopback and private addresses for the resource and the ATR (local development only)")
	fs.BoolVar(&f.allowHTTP, "allow-http", false, "pay a 402 that came over plain http, asked for or redirected to (local development only)")
	fs.BoolVar(&f.allowUnbound, "allow-unbound", false, "also pay an x402 or MPP offer that publishes no terms (a payment bound to no terms; spend limits still apply)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "show the offer, what would be signed and what the limits say, then stop: nothing is signed, no payment sent (no key needed)")
	fs.StringVar(&f.approveAgreement, "approve-agreement-up-to", "", "approve up front an agreement payment of at most N atomic units, for an offer payable only after the agreement exchange (the limits still apply)")
	fs.Var(agentFlag{&f.agent}, "agent", "pay the offer as this agent identity (CAIP-10, e.g. cloudflare:402:NAME; it signs no payment), the key paying only the agreement")
	fs.BoolVar(&f.verbose, "v", false, "log each payment step to standard error")
	addVerifyFlag(fs, &f.verifySettlement)
	f.ca = addCAFlag(fs)
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "the limit on the whole exchange")
	return f
}

func (f *payFlags) parse(args []string) error {
	for {
		if err := parseFlags(f.fs, args); err != nil {
			return err
		}
		if f.fs.NArg() == 0 {
			break
		}
		if f.url != "" {
			return fmt.Errorf("expected one URL, also got %q", f.fs.Arg(0))
		}
		f.url, args = f.fs.Arg(0), f.fs.Args()[1:]
	}
	if f.url == "" {
		return errors.New("no URL")
	}
	u, err := url.Parse(f.url)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", f.url)
	}
	if f.method == "" {
		f.method = http.MethodGet
		if flagSet(f.fs, "d") {
			f.method = http.MethodPost
		}
	}
	if f.maxAmount == "" && f.usd.maxUSD == "" && !f.dryRun {
		return errors.New("--max-amount is required (atomic units of the asset), or --max-usd (US dollars); --dry-run shows what the seller asks")
	}
	if f.approveAgreement != "" {
		if _, err := atomicFlag("--approve-agreement-up-to", f.approveAgreement); err != nil {
			return err
		}
	}
	if (f.asset != "" || f.budget != "" || f.usd.budgetUSD != "") && !flagSet(f.fs, "max-amount") && !flagSet(f.fs, "max-usd") {
		return errors.New("--asset, --budget and --budget-usd need --max-amount or --max-usd")
	}
	return nil
}

// policy is the spend policy the flags describe, its budget kept in budget
// (nil: in memory); nil when --max-amount is not given (only with
// --dry-run).
func (f *payFlags) policy(budget pay.Budget) (*pay.Policy, error) {
	if f.maxAmount == "" && f.usd.maxUSD == "" {
		return nil, nil
	}
	var max *big.Int
	if f.maxAmount != "" {
		var ok bool
		max, ok = new(big.Int).SetString(f.maxAmount, 10)
		if !ok || max.Sign() < 0 || strings.Trim(f.maxAmount, "0123456789") != "" {
			return nil, fmt.Errorf("--max-amount %q is not a decimal number of atomic units", f.maxAmount)
		}
	}
	var ceiling *big.Int
	if f.budget != "" {
		var err error
		if ceiling, err = atomicFlag("--budget", f.budget); err != nil {
			return nil, err
		}
	}
	limit := pay.Limit{Network: f.keys.network, Asset: f.asset, MaxAmount: max, Budget: ceiling}
	cfg := pay.PolicyConfig{MaxPayable: f.maxPayable, Budget: budget, AllowUnbound: f.allowUnbound, Origins: f.origins}
	if err := f.usd.apply(&limit, &cfg); err != nil {
		return nil, err
	}
	more, err := extraLimits(f.extra)
	if err != nil {
		return nil, err
	}
	cfg.Limits = append([]pay.Limit{limit}, more...)
	return pay.NewPolicy(cfg)
}

func (f *payFlags) request(ctx context.Context) (*http.Request, error) {
	var body io.Reader
	if flagSet(f.fs, "d") {
		body = strings.NewReader(f.data) // GetBody set: replayed without buffering
	}
	req, err := http.NewRequestWithContext(ctx, f.method, f.url, body)
	if err != nil {
		return nil, err
	}
	for _, h := range f.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("-H %q is not \"Name: value\"", h)
		}
		req.Header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	return req, nil
}

// errDryRun stops a dry run at BeforeSign.
var errDryRun = errors.New("dry run")

// refuseToSign is the dry run's signer: the hook stops the payment first,
// and if anything ever got past it, this signs nothing.
type refuseToSign struct{ gate.Signer }

func (refuseToSign) Sign(context.Context, rails.Request) (jsonv.Value, error) {
	return nil, errors.New("dry run: nothing is signed")
}

func runPay(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	f := newPayFlags(stderr)
	if err := f.parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return usageError(stderr, "pay", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
	defer cancel()
	ctx, intr := catchInterrupt(ctx) // Ctrl-C says what was signed (interrupt.go)
	defer intr.stop()
	// The budget and the journal (--state); a dry run signs nothing and
	// keeps nothing.
	var store ledger.Store
	if !f.dryRun {
		st, done, err := openState(ctx, *f.state)
		if err != nil {
			fmt.Fprintln(stderr, "termsgate pay:", err)
			return exitFailure
		}
		defer done()
		store = st
	}
	var budget pay.Budget
	if store != nil {
		budget = ledger.Budget(store)
	}
	policy, err := f.policy(budget)
	if err != nil {
		return usageError(stderr, "pay", err)
	}
	var s gate.Signer
	var err2 error
	if f.dryRun && !f.keys.given() {
		// Looking before having a wallet: the offer is shown for the
		// published development account, which signs nothing here.
		s, err2 = f.keys.lookingSigner()
		if err2 == nil {
			fmt.Fprintf(stderr, "termsgate: dry run without a key: shown for the published development account %s\n", s.Account())
		}
	} else {
		// Ctrl-C at the passphrase prompt ends the command as it always
		// does: nothing is signed yet.
		intr.asking(func() { s, err2 = f.keys.signer(stderr) })
	}
	if err2 != nil {
		return usageError(stderr, "pay", err2)
	}
	s = intr.watch(s)
	steps := newStepLog(stderr, f.verbose)
	defer steps.done()
	ctx = steps.context(ctx)
	req, err := f.request(ctx)
	if err != nil {
		return usageError(stderr, "pay", err)
	}
	if req.URL.Scheme == "http" && f.allowHTTP {
		fmt.Fprintln(stderr, "termsgate: WARNING: plain http: anyone on the path can read the payment and the response")
	}

	hc := f.ca.applyClient(payClient(f.allowPrivate))
	seen := &last402{base: timedTransport{hc.Transport, steps}}
	t := &pay.Transport{
		Base:   seen,
		Gate:   &gate.Gate{Fetcher: &atr.Fetcher{Client: hc}},
		Signer: s,
		// A 402 over plain http (typed, or where a redirect led) is declined
		// unless --allow-http.
		AllowHTTP: f.allowHTTP,
	}
	if policy != nil { // not a typed nil in the interface
		t.Policy = policy
	} else if f.dryRun {
		t.Policy = allowAll{} // a dry run without limits stops at BeforeSign
	}
	if f.agent != "" {
		// The agent's identity pays the offer; the key pays the agreement.
		t.Signer, t.AgreementSigner = agentIdentity(f.agent), s
	}
	if f.approveAgreement != "" {
		up, _ := atomicFlag("--approve-agreement-up-to", f.approveAgreement)
		t.Hooks.ApproveAgreement = approveAgreementUpTo(up, stderr)
	}
	rpc := f.ca.applyClient(payClient(f.allowPrivate)) // the chains' RPCs, trusting --ca-file too
	t.Inputs = f.xrpl.inputs(s, rpc)
	t.InputsFor = f.solana.inputsFor(rpc, f.stellar.inputsFor(rpc))
	if f.verifySettlement && !f.dryRun {
		if t.Verify, err = f.verifier(ctx, rpc); err != nil {
			return usageError(stderr, "pay", err)
		}
	}
	if store != nil {
		t.Journal = ledger.Journal(store)
	}
	if f.verbose {
		t.Logger = slog.New(steps.logHandler()) // as step lines, not raw records
	}
	var wouldSign *pay.Summary
	var payee string // the origin the 402 came from, after any redirect
	if f.dryRun {
		t.Signer = refuseToSign{s}
		t.Hooks.BeforeSign = func(_ context.Context, r *http.Request, sum pay.Summary) error {
			wouldSign, payee = &sum, r.URL.Scheme+"://"+r.URL.Host
			return errDryRun
		}
	}
	resp, err := pay.NewClient(t).Do(req)
	steps.done()
	if intr.interrupted() && err != nil {
		return intr.payReport(stdout, stderr, nil, err, store != nil)
	}
	if wouldSign != nil {
		if d := seen.offer(); d != nil {
			fmt.Fprintln(stderr, "termsgate: dry run: the offer asks for:")
			for _, a := range d.asks() {
				fmt.Fprintf(stderr, "termsgate:   %s\n", a)
			}
		}
		fmt.Fprintf(stderr, "termsgate: dry run: %s asks for a signature granting %s\n", termText(payee), termText(wouldSign.String()))
		if policy == nil {
			fmt.Fprintf(stderr, "termsgate: dry run: no limits given: pay needs --max-amount, at least %s for this payment\n", wouldSign.Amount)
		} else {
			fmt.Fprintf(stderr, "termsgate: dry run: the limits allow it (--max-amount %s)\n", f.maxAmount)
		}
		fmt.Fprintln(stderr, "termsgate: dry run: nothing signed, no payment sent")
		return exitOK
	}
	if err != nil {
		var d *gate.Decline
		if errors.As(err, &d) {
			code := printResult(stdout, stderr, nil, d)
			if pay.DetailCode(d.Detail) == pay.DetailPlainHTTP {
				fmt.Fprintln(stderr, "termsgate: hint: the 402 came over plain http, where anyone on the path can change it; --allow-http pays it (local development only)")
			}
			if !f.allowUnbound && (d.Detail == x402.CodeNoLegalContext || d.Detail == mpp.CodeNoLegalContext) {
				fmt.Fprintln(stderr, "termsgate: hint: the seller publishes no terms, so a payment would bind you to none; --allow-unbound pays it anyway")
			}
			var ceiling *big.Int
			if f.budget != "" {
				ceiling, _ = atomicFlag("--budget", f.budget)
			}
			f.payDeclineHints(stderr, d, seen.offer(), store, ceiling)
			return code
		}
		fmt.Fprintln(stderr, "termsgate pay:", err)
		if h := hintFor(err); h != "" {
			fmt.Fprintf(stderr, "termsgate: hint: %s\n", h)
		}
		var se *pay.SendError
		if errors.As(err, &se) {
			// Signed, maybe delivered: never sign again; present this one.
			fmt.Fprintf(stderr, "termsgate: signed %s\n", termText(se.Result.Summary.String()))
			fmt.Fprintf(stderr, "termsgate: the seller may have it; to retry, send it again as is with -H '%s: ...':\n", se.Result.HeaderName)
			fmt.Fprintln(stderr, se.Result.Header)
		}
		return exitFailure
	}
	defer resp.Body.Close()
	res := pay.ResultOf(resp)
	if res == nil {
		if f.dryRun {
			fmt.Fprintf(stderr, "termsgate: dry run: nothing to pay (%s)\n", termText(resp.Status))
			return exitOK
		}
		fmt.Fprintf(stderr, "termsgate: nothing paid (%s)\n", termText(resp.Status))
	} else {
		reportPayment(stderr, res, resp)
	}
	if _, err := io.Copy(stdout, resp.Body); err != nil {
		if intr.interrupted() && res != nil {
			return intr.payReport(stdout, stderr, res, nil, store != nil)
		}
		fmt.Fprintln(stderr, "termsgate pay: reading the response:", err)
		return exitFailure
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return exitFailure
	}
	if t.Verify != nil && (res == nil || !reportVerification(stderr, res)) {
		return exitFailure
	}
	return exitOK
}

// reportPayment writes the summary of what was signed and what the seller
// made of it.
func reportPayment(stderr io.Writer, res *pay.Result, resp *http.Response) {
	if res.Unbound {
		fmt.Fprintf(stderr, "termsgate: UNBOUND payment (--allow-unbound): the seller published no terms; nonce %s\n", res.Nonce)
	}
	if res.Again {
		fmt.Fprintf(stderr, "termsgate: presented again a payment signed earlier and never answered: %s\n", termText(res.Summary.String()))
	} else {
		fmt.Fprintf(stderr, "termsgate: signed %s\n", termText(res.Summary.String()))
	}
	if res.PaymentID != "" {
		fmt.Fprintf(stderr, "termsgate: payment id %s\n", termText(res.PaymentID))
	}
	switch st := res.Settlement; {
	case st != nil && st.Success && st.Network == "": // an MPP receipt names no chain
		fmt.Fprintf(stderr, "termsgate: the seller reports it settled: transaction %s\n", termText(st.Transaction))
	case st != nil && st.Success:
		fmt.Fprintf(stderr, "termsgate: the seller reports it settled: transaction %s on %s\n", termText(st.Transaction), termText(st.Network))
	case st != nil:
		fmt.Fprintf(stderr, "termsgate: the seller reports it did not settle: %s\n", termText(st.ErrorReason))
	case res.SettlementErr != nil:
		fmt.Fprintf(stderr, "termsgate: the seller's %s is unreadable: %s\n", settlementHeader(res), termText(res.SettlementErr.Error()))
	}
	switch {
	case res.StatusCode >= 300 && res.StatusCode <= 399:
		fmt.Fprintf(stderr, "termsgate: the seller answered the payment with %d to %s: not followed (another origin)\n",
			res.StatusCode, termText(resp.Header.Get("Location")))
	case res.StatusCode == http.StatusPaymentRequired:
		fmt.Fprintln(stderr, "termsgate: the seller refused the payment (402 again); no second signature is made")
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		fmt.Fprintf(stderr, "termsgate: the seller answered %s\n", termText(resp.Status))
	}
}

// settlementHeader names the header a seller reports settlement in.
func settlementHeader(res *pay.Result) string {
	if res.Protocol == pay.ProtocolMPP {
		return pay.HeaderReceipt
	}
	return pay.HeaderResponse
}
