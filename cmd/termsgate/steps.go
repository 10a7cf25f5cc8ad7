package main

// The gate's steps as commands that read JSON and print JSON, so that a
// payment can be confirmed here, signed elsewhere (a hardware wallet, another
// process) and finished here.

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	commands["hash"] = command{"print SHA-256 of an ATR file or https link", runHash}
	commands["read"] = command{"show what a seller's 402 document advertises (no fetch)", runRead}
	commands["confirm"] = command{"fetch and compare the ATR, print the request to sign", runConfirm}
	commands["finish"] = command{"join a signature to a confirmed payment, check H inside", runFinish}
	commands["check"] = command{"check that a payment carries the hash of an ATR", runCheck}
	commands["transact"] = command{"confirm, sign with a local key, finish", runTransact}
	commands["agree"] = command{"run the agreement exchange for an ATR and agreement URL", runAgree}
}

// stepsClient is the network the commands use; tests replace it with a
// loopback client.
var stepsClient = func(allowPrivate bool) atr.Doer { return atr.NewClient(allowPrivate) }

// stepsNow is the commands' clock; tests pin it to the vectors' time.
var stepsNow = time.Now

// stepsFlags are the flags every step shares.
type stepsFlags struct {
	fs           *flag.FlagSet
	pairing      string
	allowPrivate bool
	verbose      bool
	ca           *caFlag
}

func newStepsFlags(name, usage string, stderr io.Writer) *stepsFlags {
	f := &stepsFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError)}
	f.fs.SetOutput(stderr)
	f.fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: termsgate %s\n\n", usage)
		f.fs.PrintDefaults()
	}
	f.pairing = evm.ExactEIP3009ID
	f.fs.Var(pairingFlag{&f.pairing}, "pairing", "the pairing id (known: "+strings.Join(all.Default().IDs(), ", ")+")")
	f.fs.BoolVar(&f.allowPrivate, "allow-private", false, "allow fetching from loopback and private addresses (local development only)")
	f.fs.BoolVar(&f.verbose, "v", false, "log each step with its time to standard error")
	f.ca = addCAFlag(f.fs)
	return f
}

// client is the network the step fetches over: public addresses only unless
// --allow-private, trusting --ca-file's certificates too.
func (f *stepsFlags) client() atr.Doer { return f.ca.apply(stepsClient(f.allowPrivate)) }

// run calls the gate with ctx, reporting its steps to stderr (-v, and
// progress on a terminal).
func (f *stepsFlags) run(ctx context.Context, stderr io.Writer, call func(context.Context) error) error {
	steps := newStepLog(stderr, f.verbose)
	defer steps.done()
	return call(steps.context(ctx))
}

func (f *stepsFlags) gate() *gate.Gate {
	return &gate.Gate{Fetcher: &atr.Fetcher{Client: f.client()}, Now: stepsNow}
}

// readArg reads the file named by the one positional argument, or stdin when
// there is none or it is "-".
func readArg(fs *flag.FlagSet, stdin io.Reader) ([]byte, string, error) {
	switch fs.NArg() {
	case 0:
		b, err := io.ReadAll(io.LimitReader(stdin, 8<<20))
		return b, "standard input", err
	case 1:
		if fs.Arg(0) == "-" {
			b, err := io.ReadAll(io.LimitReader(stdin, 8<<20))
			return b, "standard input", err
		}
		b, err := os.ReadFile(fs.Arg(0))
		return b, fs.Arg(0), err
	default:
		return nil, "", fmt.Errorf("expected one input file, got %d arguments", fs.NArg())
	}
}

// parseDocument reads a seller's 402 document: its JSON, or the
// PAYMENT-REQUIRED header value (base64) as the seller sent it.
func parseDocument(data []byte) (jsonv.Value, error) {
	t := bytes.TrimSpace(data)
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return jsonv.Parse(t)
	}
	return x402.DecodeHeader(string(t))
}

// parseObject reads a JSON object whose members must all be in allowed: an
// unknown member is refused by name (a dropped member is a check the caller
// thought was made).
func parseObject(data []byte, what string, allowed ...string) (*jsonv.Object, error) {
	v, err := jsonv.Parse(bytes.TrimSpace(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, fmt.Errorf("%s: not a JSON object", what)
	}
	for _, k := range o.Keys() {
		known := false
		for _, a := range allowed {
			known = known || k == a
		}
		if !known {
			return nil, fmt.Errorf("%s: unknown member %q (expected %s)", what, k, strings.Join(allowed, ", "))
		}
	}
	return o, nil
}

// atrBytesOf reads the ATR member: the base64 string, or {base64, utf8} as
// confirm prints it.
func atrBytesOf(o *jsonv.Object) ([]byte, error) {
	v, ok := o.Get("atr")
	if !ok {
		return nil, errors.New(`missing member "atr" (the ATR's bytes as base64, or {base64, utf8} as confirm prints it)`)
	}
	if inner, ok := jsonv.AsObject(v); ok {
		v, _ = inner.Get("base64")
	}
	s, ok := jsonv.AsString(v)
	if !ok {
		return nil, errors.New(`"atr" is not base64 text`)
	}
	b, err := gate.ParseATR(s)
	if err != nil {
		return nil, fmt.Errorf(`"atr" is not standard padded base64: %w`, err)
	}
	if h, ok := o.GetString("atrHash"); ok && !atr.EqualText(h, atr.Sum(b)) {
		return nil, fmt.Errorf(`"atrHash" %s is not the hash of "atr" (%s)`, h, atr.Sum(b))
	}
	return b, nil
}

// printResult prints a result or a decline as JSON and picks the exit code.
func printResult(stdout, stderr io.Writer, out *jsonv.Object, err error) int {
	var d *gate.Decline
	if errors.As(err, &d) {
		fmt.Fprintf(stdout, "%s\n", jsonv.Marshal(d.JSON()))
		fmt.Fprintf(stderr, "termsgate: declined %s: %s\n", d.Code, termText(d.Detail))
		explainCause(stderr, d)
		if d.Moved != nil {
			fmt.Fprintln(stderr, "termsgate: a payment was already released; it is kept under \"moved\": present it again, do not sign a new one")
		}
		return exitDeclined
	}
	if err != nil {
		fmt.Fprintln(stderr, "termsgate:", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "%s\n", jsonv.Marshal(out))
	return exitOK
}

func usageError(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "termsgate %s: %v\n", cmd, err)
	return exitUsage
}

func runHash(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	f := newStepsFlags("hash", "hash [--allow-private] FILE|https://LINK", stderr)
	if err := parseFlags(f.fs, args); err != nil {
		return exitUsage
	}
	if f.fs.NArg() != 1 {
		f.fs.Usage()
		return exitUsage
	}
	src := f.fs.Arg(0)
	var b []byte
	var err error
	if strings.HasPrefix(strings.ToLower(src), "https://") || strings.Contains(src, "://") {
		if atr.CheckLink(src) != atr.LinkOK {
			return usageError(stderr, "hash", fmt.Errorf("%q is not an https link the gate would fetch", src))
		}
		ctx, cancel := context.WithTimeout(context.Background(), atr.FetchTimeout)
		defer cancel()
		steps := newStepLog(stderr, f.verbose)
		steps.begin("fetching " + src)
		b, err = (&atr.Fetcher{Client: f.client()}).Fetch(ctx, src)
		steps.done()
	} else {
		// A file that cannot be read is bad input (exit 2), like a bad flag.
		if b, err = os.ReadFile(src); err != nil {
			return usageError(stderr, "hash", err)
		}
		if len(b) > atr.MaxBytes {
			return usageError(stderr, "hash", fmt.Errorf("%s: larger than %d bytes, the most an ATR may be", src, atr.MaxBytes))
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "termsgate hash:", err)
		explainCause(stderr, err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "%s  %d bytes\n", atr.Sum(b), len(b))
	return exitOK
}

func runRead(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := newStepsFlags("read", "read [--pairing ID] [DOCUMENT|-]", stderr)
	if err := parseFlags(f.fs, args); err != nil {
		return exitUsage
	}
	data, name, err := readArg(f.fs, stdin)
	if err != nil {
		return usageError(stderr, "read", err)
	}
	doc, err := parseDocument(data)
	if err != nil {
		return usageError(stderr, "read", fmt.Errorf("%s: %w", name, err))
	}
	offer, err := f.gate().Read(doc, f.pairing)
	if err != nil {
		return printResult(stdout, stderr, nil, err)
	}
	return printResult(stdout, stderr, offer.JSON(), nil)
}

func runConfirm(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := newStepsFlags("confirm", "confirm --account CAIP10 [--pairing ID] [--inputs JSON] [DOCUMENT|-]", stderr)
	account, inputs := new(string), new(string)
	f.fs.Var(caip10Flag{account}, "account", "the payer's CAIP-10 account, e.g. eip155:84532:0x…")
	f.fs.Var(objectFlag{inputs}, "inputs", "the buyer's inputs as a JSON object, if the pairing needs any")
	if err := parseFlags(f.fs, args); err != nil {
		return exitUsage
	}
	if *account == "" {
		return usageError(stderr, "confirm", errors.New("--account is required (the payer's CAIP-10 account)"))
	}
	data, name, err := readArg(f.fs, stdin)
	if err != nil {
		return usageError(stderr, "confirm", err)
	}
	doc, err := parseDocument(data)
	if err != nil {
		return usageError(stderr, "confirm", fmt.Errorf("%s: %w", name, err))
	}
	var in jsonv.Value
	if *inputs != "" {
		if in, err = jsonv.Parse([]byte(*inputs)); err != nil {
			return usageError(stderr, "confirm", fmt.Errorf("--inputs: %w", err))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var c *gate.Confirmed
	err = f.run(ctx, stderr, func(ctx context.Context) (err error) {
		c, err = f.gate().Confirm(ctx, doc, f.pairing, *account, in)
		return err
	})
	if err != nil {
		return printResult(stdout, stderr, nil, err)
	}
	return printResult(stdout, stderr, c.JSON(), nil)
}

func runFinish(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := newStepsFlags("finish", "finish [--pairing ID] [INPUT|-]\n\nINPUT is confirm's output with a \"signature\" member added: {atr, chosen, signature}.", stderr)
	if err := parseFlags(f.fs, args); err != nil {
		return exitUsage
	}
	data, name, err := readArg(f.fs, stdin)
	if err != nil {
		return usageError(stderr, "finish", err)
	}
	o, err := parseObject(data, name, "atrHash", "atr", "chosen", "request", "signature")
	if err != nil {
		return usageError(stderr, "finish", err)
	}
	b, err := atrBytesOf(o)
	if err != nil {
		return usageError(stderr, "finish", err)
	}
	sig, ok := o.Get("signature")
	if !ok {
		return usageError(stderr, "finish", errors.New(`missing member "signature" (the signer's answer to "request")`))
	}
	chosenV, _ := o.Get("chosen")
	chosen, err := gate.ParseChosen(chosenV)
	if err != nil {
		return printResult(stdout, stderr, nil, err)
	}
	pairing := f.pairing
	if !flagSet(f.fs, "pairing") && chosen.Pairing != "" {
		pairing = chosen.Pairing
	}
	fin, err := f.gate().Finish(b, pairing, chosen, sig)
	if err != nil {
		return printResult(stdout, stderr, nil, err)
	}
	out := fin.JSON()
	if fin.Next == nil {
		// With the ATR beside the payment, finish's output is check's input.
		out.Set("atr", gate.ATRJSON(b))
	}
	return printResult(stdout, stderr, out, nil)
}

func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := newStepsFlags("check", "check [--pairing ID] [INPUT|-]\n\nINPUT is {atr, presented}, or finish's or transact's output as printed.", stderr)
	if err := parseFlags(f.fs, args); err != nil {
		return exitUsage
	}
	data, name, err := readArg(f.fs, stdin)
	if err != nil {
		return usageError(stderr, "check", err)
	}
	o, err := parseObject(data, name, "atrHash", "atr", "presented", "signed", "landed", "agreement")
	if err != nil {
		return usageError(stderr, "check", err)
	}
	b, err := atrBytesOf(o)
	if err != nil {
		return usageError(stderr, "check", err)
	}
	presented, ok := o.Get("presented")
	if !ok {
		if presented, ok = o.Get("signed"); !ok {
			return usageError(stderr, "check", errors.New(`missing member "presented" (the payment to check)`))
		}
	}
	if landed, ok := o.Get("landed"); ok {
		// A push payment is checked with its landed receipt put back.
		if p, isObj := jsonv.AsObject(presented); isObj {
			p = p.Clone()
			p.Set("landed", landed)
			presented = p
		}
	}
	h, err := f.gate().Check(b, f.pairing, presented)
	if err != nil {
		return printResult(stdout, stderr, nil, err)
	}
	return printResult(stdout, stderr, jsonv.Obj("atrHash", h.String()), nil)
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// keyFlags select a local signer: a keystore file or the development key.
type keyFlags struct {
	keyFile, passphraseFile, network string
	clef, clefAccount                string
	devKey                           bool
	stdin                            io.Reader // where a passphrase prompt reads; nil: os.Stdin
	rpc                              string    // rpc.go
}

func addKeyFlags(fs *flag.FlagSet) *keyFlags {
	k := &keyFlags{}
	fs.Var(fileFlag{&k.keyFile}, "key-file", "an encrypted go-ethereum keystore JSON file")
	fs.Var(fileFlag{&k.passphraseFile}, "passphrase-file", "a file holding the keystore passphrase (else $TERMSGATE_PASSPHRASE, else asked on a terminal)")
	fs.BoolVar(&k.devKey, "dev-key", false, "sign with the published Anvil development key (never with value)")
	k.network = "eip155:84532"
	fs.Var(caip2Flag{&k.network}, "network", "the signer's CAIP-2 network")
	fs.StringVar(&k.clef, "clef", "", "sign with go-ethereum's Clef at this URL (http://localhost:8550) or IPC socket path")
	fs.StringVar(&k.clefAccount, "clef-account", "", "the Clef account to sign with (default: the one Clef holds)")
	k.addRPCFlag(fs)
	return k
}

// chainKey is how a chain other than the EVM's loads a local signer: its
// published development key and its key file. Keyed by the CAIP-2 namespace
// of --network ("stellar", "xrpl", "solana"); each rail's CLI file adds itself
// in init, so adding a chain does not touch this one.
type chainKey struct {
	dev  func(network string) (gate.Signer, error)
	file func(path, passphrase, network string) (gate.Signer, error)
	// plain: the key file is not encrypted, so no passphrase is asked.
	plain bool
}

var chainKeys = map[string]chainKey{}

func (k *keyFlags) signer(stderr io.Writer) (gate.Signer, error) {
	namespace, _, _ := strings.Cut(k.network, ":")
	ck, otherChain := chainKeys[namespace]
	if err := k.checkRPC(otherChain); err != nil {
		return nil, err
	}
	given := 0
	for _, g := range []bool{k.devKey, k.keyFile != "", k.clef != ""} {
		if g {
			given++
		}
	}
	switch {
	case given > 1:
		return nil, errors.New("give one of --key-file, --clef and --dev-key")
	case k.clefAccount != "" && k.clef == "":
		return nil, errors.New("--clef-account goes with --clef")
	case k.clef != "" && otherChain:
		return nil, fmt.Errorf("--clef signs for eip155 networks, not %s", k.network)
	case k.clef != "":
		return clefSigner(k.clef, k.clefAccount, k.network)
	case otherChain && k.devKey:
		fmt.Fprintf(stderr, "termsgate: WARNING: signing with a PUBLISHED %s development key. Anyone can spend what it holds.\n", namespace)
		return ck.dev(k.network)
	case otherChain && k.keyFile != "" && ck.plain:
		return ck.file(k.keyFile, "", k.network)
	case otherChain && k.keyFile != "":
		pass, err := k.passphrase(stderr)
		if err != nil {
			return nil, err
		}
		return ck.file(k.keyFile, pass, k.network)
	case k.devKey:
		fmt.Fprintln(stderr, "termsgate: WARNING: signing with the PUBLISHED Anvil development key. Anyone can spend what it holds.")
		return k.withNode(signer.FromHex(signer.AnvilKey, k.network))
	case k.keyFile != "":
		pass, err := k.passphrase(stderr)
		if err != nil {
			return nil, err
		}
		return k.withNode(signer.FromKeystoreFile(k.keyFile, pass, k.network))
	default:
		return nil, errors.New("no signer: give --key-file FILE (with --passphrase-file or $TERMSGATE_PASSPHRASE), --clef URL or --dev-key")
	}
}

// passphrase is the key file's passphrase: --passphrase-file, else
// $TERMSGATE_PASSPHRASE, else asked on the terminal without echo. With none
// of them it says the passphrase is missing, rather than that a wrong one
// did not open the file.
func (k *keyFlags) passphrase(stderr io.Writer) (string, error) {
	if k.passphraseFile != "" {
		return readPassphraseFile(k.passphraseFile)
	}
	if p, ok := os.LookupEnv("TERMSGATE_PASSPHRASE"); ok {
		return p, nil
	}
	in := k.stdin
	if in == nil {
		in = os.Stdin
	}
	return promptPassphrase(in, stderr, "Passphrase for "+k.keyFile+": ")
}

func runTransact(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := newStepsFlags("transact", "transact (--key-file FILE|--dev-key) --max-amount N [--budget N] [--asset A] [--payee A] [--pairing ID] [--agent ACCOUNT] [--approved FILE] [DOCUMENT|-]", stderr)
	keys := addKeyFlags(f.fs)
	limits := addLimitFlags(f.fs)
	approvedFile := new(string)
	f.fs.Var(fileFlag{approvedFile}, "approved", "the agreement payment a previous run printed under \"approve\", once approved")
	inputs := new(string)
	f.fs.Var(objectFlag{inputs}, "inputs", "the buyer's inputs as a JSON object, if the pairing needs any")
	agent := new(string)
	f.fs.Var(agentFlag{agent}, "agent", "pay the offer as this agent identity (CAIP-10, e.g. cloudflare:402:NAME; it signs no payment), the key paying only the agreement")
	if err := parseFlags(f.fs, args); err != nil {
		return exitUsage
	}
	policy, err := limits.forKey(keys, keys.network)
	if err != nil {
		return usageError(stderr, "transact", err)
	}
	data, name, err := readArg(f.fs, stdin)
	if err != nil {
		return usageError(stderr, "transact", err)
	}
	doc, err := parseDocument(data)
	if err != nil {
		return usageError(stderr, "transact", fmt.Errorf("%s: %w", name, err))
	}
	s, err := keys.signer(stderr)
	if err != nil {
		return usageError(stderr, "transact", err)
	}
	opts := &gate.TransactOptions{}
	if *agent != "" {
		// The agent's own stack authenticates the paid request; the key
		// pays the agreement the offer names.
		opts.AgreementSigner, s = s, agentIdentity(*agent)
	}
	if *inputs != "" {
		if opts.Inputs, err = jsonv.Parse([]byte(*inputs)); err != nil {
			return usageError(stderr, "transact", fmt.Errorf("--inputs: %w", err))
		}
	}
	if *approvedFile != "" {
		if opts.Approved, err = readApproved(*approvedFile); err != nil {
			return usageError(stderr, "transact", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	var res *gate.Transacted
	g := withPolicy(f.gate(), policy)
	err = f.run(ctx, stderr, func(ctx context.Context) (err error) {
		res, err = g.Transact(ctx, doc, f.pairing, s, opts)
		return err
	})
	if err != nil {
		return printResult(stdout, stderr, nil, err)
	}
	if res.Approve != nil {
		fmt.Fprintln(stderr, "termsgate: nothing signed: approve the agreement payment under \"approve\", then run again with --approved FILE holding it unchanged")
	}
	return printResult(stdout, stderr, res.JSON(), nil)
}

// agentFlag is transact --agent: an account in CAIP-10's shape, its
// namespace allowed up to 16 characters because cloudflare:402 (the agent
// identities of Cloudflare's pay-per-crawl) is longer than CAIP-2's 8.
type agentFlag struct{ p *string }

var agentPattern = regexp.MustCompile(`^[-a-z0-9]{3,16}:[-_a-zA-Z0-9]{1,32}:[-.%a-zA-Z0-9]{1,128}$`)

func (f agentFlag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f agentFlag) Set(s string) error {
	if !agentPattern.MatchString(s) {
		return errors.New("not an account namespace:reference:name (e.g. cloudflare:402:agent.example)")
	}
	*f.p = s
	return nil
}

// agentIdentity is transact --agent: an account that pays by who it is (a
// cloudflare:402 agent's registered key signs its HTTP requests), for which
// the gate signs nothing. Asked to sign, it refuses.
type agentIdentity string

func (a agentIdentity) Account() string { return string(a) }

func (a agentIdentity) Sign(context.Context, rails.Request) (jsonv.Value, error) {
	return nil, fmt.Errorf("the agent %s signs its HTTP requests, not payments", string(a))
}

func readApproved(path string) (*gate.AgreementPayment, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := jsonv.Parse(bytes.TrimSpace(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// Accept the payment itself or the whole printed result holding it.
	if o, ok := jsonv.AsObject(v); ok && o.Has("approve") {
		v, _ = o.Get("approve")
	}
	p, err := gate.ParseAgreementPayment(v, "")
	if err != nil {
		return nil, fmt.Errorf("%s: not an agreement payment {url, option, required}", path)
	}
	return p, nil
}

func runAgree(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := newStepsFlags("agree", "agree --url AGREEMENT_URL (--key-file FILE|--dev-key) --max-amount N [--budget N] [--asset A] [--payee A] [--approved FILE] ATR_FILE", stderr)
	keys := addKeyFlags(f.fs)
	limits := addLimitFlags(f.fs)
	url := f.fs.String("url", "", "the agreement URL the offer names")
	approvedFile := new(string)
	f.fs.Var(fileFlag{approvedFile}, "approved", "the agreement payment a previous run printed under \"approve\", once approved")
	if err := parseFlags(f.fs, args); err != nil {
		return exitUsage
	}
	policy, err := limits.forKey(keys, keys.network)
	if err != nil {
		return usageError(stderr, "agree", err)
	}
	if *url == "" {
		return usageError(stderr, "agree", errors.New("--url is required"))
	}
	b, _, err := readArg(f.fs, stdin)
	if err != nil {
		return usageError(stderr, "agree", err)
	}
	s, err := keys.signer(stderr)
	if err != nil {
		return usageError(stderr, "agree", err)
	}
	opts := &gate.AgreeOptions{}
	if *approvedFile != "" {
		if opts.Approved, err = readApproved(*approvedFile); err != nil {
			return usageError(stderr, "agree", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	var res *gate.Agreed
	g := withPolicy(f.gate(), policy)
	err = f.run(ctx, stderr, func(ctx context.Context) (err error) {
		res, err = g.Agree(ctx, b, *url, s, opts)
		return err
	})
	if err != nil {
		return printResult(stdout, stderr, nil, err)
	}
	if res.Approve != nil {
		fmt.Fprintln(stderr, "termsgate: nothing signed: approve the payment under \"approve\", then run again with --approved FILE holding it unchanged")
	}
	return printResult(stdout, stderr, res.JSON(), nil)
}
