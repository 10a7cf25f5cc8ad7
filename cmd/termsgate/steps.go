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
	"strconv"
	"strings"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
	"github.com/termsgate/termsgate/rails/evm"
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

// stepsFlags are the flags the steps share; each command adds only those it
// uses, so that its -h lists no flag it ignores.
type stepsFlags struct {
	fs           *flag.FlagSet
	pairing      string
	allowPrivate bool
	allowHTTP    bool
	verbose      bool
	ca           *caFlag
}

// newStepsFlags is a step's flag set with --pairing.
func newStepsFlags(name, usage string, stderr io.Writer) *stepsFlags {
	f := newFlags(name, usage, stderr)
	f.addPairing("the pairing id")
	f.fs.Lookup("pairing").DefValue = f.pairing
	return f
}

// newFlags is a step's flag set with no flag yet.
func newFlags(name, usage string, stderr io.Writer) *stepsFlags {
	f := &stepsFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError), ca: &caFlag{}}
	f.fs.SetOutput(stderr)
	f.fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: termsgate %s\n\n", usage)
		f.fs.PrintDefaults()
	}
	f.pairing = evm.ExactEIP3009ID
	return f
}

// addPairing adds --pairing; what says its default, so PrintDefaults does
// not.
func (f *stepsFlags) addPairing(what string) *stepsFlags {
	f.fs.Var(pairingFlag{&f.pairing}, "pairing", what+"; known: "+strings.Join(all.Default().IDs(), ", "))
	f.fs.Lookup("pairing").DefValue = ""
	return f
}

// addNetwork adds the flags of a step that fetches: --allow-private,
// --ca-file and -v.
func (f *stepsFlags) addNetwork() *stepsFlags {
	f.fs.BoolVar(&f.allowPrivate, "allow-private", false, "allow fetching from loopback and private addresses (local development only)")
	f.fs.BoolVar(&f.verbose, "v", false, "log each step with its time to standard error")
	f.ca = addCAFlag(f.fs)
	return f
}

// addOffer adds the flags of a step that reads an offer, which may be a
// URL it requests: --pairing (picked from the offer when absent), the
// network's and --allow-http.
func (f *stepsFlags) addOffer() *stepsFlags {
	f.addPairing("the pairing id (default: the first that reads the offer" + ", x402 before MPP)")
	f.addNetwork()
	f.fs.BoolVar(&f.allowHTTP, "allow-http", false, "request a URL over plain http (local development only)")
	return f
}

// offerUsage is the OFFER argument's description in the steps' usages.
const offerUsage = `OFFER is the seller's 402 offer: its resource's URL (requested unpaid, as
pay would: https only, public addresses only, no redirect followed), or a
file (or standard input) holding the 402's document as JSON, its
PAYMENT-REQUIRED value (x402, base64) or WWW-Authenticate value (MPP,
"Payment id=…"), or those header lines as curl -i prints them. Without
--pairing, the first pairing that reads the offer (and, with an account,
can pay it) is used, x402 before MPP.`

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

// parseObject reads a JSON object whose members must all be in allowed: an
// unknown member is refused by name (a dropped member is a check the caller
// thought was made).
func parseObject(data []byte, what string, allowed ...string) (*jsonv.Object, error) {
	v, err := rails.Guard("the JSON reader", what, func() (jsonv.Value, error) { return jsonv.Parse(bytes.TrimSpace(data)) })
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
		if h := limitHint(d); h != "" {
			fmt.Fprintf(stderr, "termsgate: hint: %s\n", termText(h))
		}
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
	if errors.As(err, new(saidError)) {
		return exitUsage // parseOneLine said it
	}
	fmt.Fprintf(stderr, "termsgate %s: %v\n", cmd, err)
	return exitUsage
}

func runHash(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	f := newFlags("hash", "hash [--allow-private] FILE|https://LINK", stderr).addNetwork()
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
	f := newFlags("read", "read [--pairing ID] [OFFER|-]\n\nShows what the offer advertises; nothing is fetched but the offer itself.\n"+offerUsage, stderr).addOffer()
	if err := parseFlags(f.fs, args); err != nil {
		return exitUsage
	}
	d, err := f.offerInput(context.Background(), stdin, stderr)
	if err != nil {
		return offerError(stderr, "read", err)
	}
	pairing, doc, err := f.pairingFor(d, "", nil)
	if err != nil {
		return usageError(stderr, "read", err)
	}
	offer, err := f.gate().Read(doc, pairing)
	if err != nil {
		return printResult(stdout, stderr, nil, err)
	}
	return printResult(stdout, stderr, offer.JSON(), nil)
}

func runConfirm(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := newFlags("confirm", "confirm --account CAIP10 [--pairing ID] [--inputs JSON] [OFFER|-]\n\n"+offerUsage, stderr).addOffer()
	account, inputs := new(string), new(string)
	f.fs.Var(caip10Flag{account}, "account", "the payer's CAIP-10 account, e.g. eip155:84532:0x…")
	f.fs.Var(objectFlag{inputs}, "inputs", "the buyer's inputs as a JSON object, if the pairing needs any")
	if err := parseFlags(f.fs, args); err != nil {
		return exitUsage
	}
	if *account == "" {
		return usageError(stderr, "confirm", errors.New("--account is required (the payer's CAIP-10 account)"))
	}
	var in jsonv.Value
	var err error
	if *inputs != "" {
		if in, err = jsonv.Parse([]byte(*inputs)); err != nil {
			return usageError(stderr, "confirm", fmt.Errorf("--inputs: %w", err))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := f.offerInput(ctx, stdin, stderr)
	if err != nil {
		return offerError(stderr, "confirm", err)
	}
	pairing, doc, err := f.pairingFor(d, *account, in)
	if err != nil {
		return usageError(stderr, "confirm", err)
	}
	var c *gate.Confirmed
	err = f.run(ctx, stderr, func(ctx context.Context) (err error) {
		c, err = f.gate().Confirm(ctx, doc, pairing, *account, in)
		return err
	})
	if err != nil {
		code := printResult(stdout, stderr, nil, err)
		if isDecline(err, gate.NoPayableOption) {
			network := *account
			if i := strings.LastIndexByte(network, ':'); i > 0 {
				network = network[:i]
			}
			noPayableHint(stderr, d, network, true)
		}
		return code
	}
	return printResult(stdout, stderr, c.JSON(), nil)
}

func runFinish(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := newFlags("finish", "finish [--pairing ID] [--header] [INPUT|-]\n\nINPUT is confirm's output with a \"signature\" member added: {atr, chosen, signature}.\nIt fetches nothing.", stderr)
	f.addPairing("the pairing id (default: the one confirm chose)")
	header := f.fs.Bool("header", false, "print only the header line to send the payment in (PAYMENT-SIGNATURE: … or Authorization: Payment …)")
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
	if d := staleConfirmed(stderr, name, pairing, chosen, b); d != nil {
		return printResult(stdout, stderr, nil, d)
	}
	fin, err := f.gate().Finish(b, pairing, chosen, sig)
	if err != nil {
		code := printResult(stdout, stderr, nil, err)
		if isDecline(err, gate.SignerFailed) {
			var d *gate.Decline
			errors.As(err, &d)
			if d.Detail == gate.DetailSignatureMalformed {
				fmt.Fprintln(stderr, "termsgate: hint: \"signature\" must be the signer's answer to \"request\" as it gave it: 0x and 130 hex digits for an ECDSA signature")
			}
		}
		return code
	}
	if *header && fin.Next == nil {
		return printHeader(stdout, stderr, pairing, fin.Signed)
	}
	out := fin.JSON()
	if fin.Next == nil {
		// With the ATR beside the payment, finish's output is check's input.
		out.Set("atr", gate.ATRJSON(b))
	}
	return printResult(stdout, stderr, out, nil)
}

// printHeader prints the one header line that sends signed.
func printHeader(stdout, stderr io.Writer, pairing string, signed jsonv.Value) int {
	line, err := signedHeader(pairing, signed)
	if err != nil {
		fmt.Fprintln(stderr, "termsgate:", err)
		return exitFailure
	}
	fmt.Fprintln(stdout, line)
	return exitOK
}

// staleConfirmed declines a confirmed payment whose validity window has
// already closed, before anything else is read of it: no signature can make
// it payable again, so it says so, and what to do, rather than how the
// signature is wrong.
func staleConfirmed(stderr io.Writer, name, pairing string, chosen rails.Chosen, b []byte) *gate.Decline {
	p, ok := all.Default().Lookup(pairing)
	if !ok || chosen.Pairing != pairing {
		return nil
	}
	u, err := guardedCall(func() (rails.Unsigned, error) { return p.Build(chosen.Choice, b, atr.Sum(b)) })
	if err != nil {
		return nil // Finish declines it
	}
	req, err := guardedCall(func() (rails.Request, error) { return p.Request(u) })
	if err != nil {
		return nil
	}
	until := requestWindow(pairing, req)
	now := stepsNow().Unix()
	if until == 0 || until > now {
		return nil
	}
	fmt.Fprintf(stderr, "termsgate: %s is stale: the payment confirm chose was payable until %s (%s ago); run confirm again and sign its new request\n",
		name, time.Unix(until, 0).UTC().Format(time.RFC3339), time.Duration(now-until)*time.Second)
	return &gate.Decline{Code: gate.SignerFailed, Detail: gate.DetailWindowClosed}
}

// isDecline reports whether err is a decline with code.
func isDecline(err error, code gate.Code) bool {
	var d *gate.Decline
	return errors.As(err, &d) && d.Code == code
}

func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := newFlags("check", `check [--pairing ID] [INPUT|-]

INPUT is {atr, presented}, or finish's or transact's output as printed.
Prints {atrHash} when the payment carries the hash of the ATR's bytes, with
its validity window (payableUntil, Unix seconds and RFC 3339) and whether it
has passed ("expired"). Exit status: 0 bound and still payable; 1 not bound
(declined signed-not-bound), or bound but past its window (a seller refuses
it as expired); 2 bad input. It fetches nothing.`, stderr)
	f.addPairing("the pairing id (default: the first whose payments read this one, " + evm.ExactEIP3009ID + " when none does)")
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
	pairing := f.pairing
	if !flagSet(f.fs, "pairing") {
		pairing = boundPairing(presented)
	}
	h, err := f.gate().Check(b, pairing, presented)
	if err != nil {
		return printResult(stdout, stderr, nil, err)
	}
	out := jsonv.Obj("atrHash", h.String())
	_, until, known := paymentWindow(pairing, presented)
	if !known || until == 0 {
		return printResult(stdout, stderr, out, nil)
	}
	now := stepsNow().Unix()
	out.Set("payableUntil", strconv.FormatInt(until, 10))
	out.Set("payableUntilTime", time.Unix(until, 0).UTC().Format(time.RFC3339))
	out.Set("expired", until <= now)
	if until > now {
		return printResult(stdout, stderr, out, nil)
	}
	fmt.Fprintf(stdout, "%s\n", jsonv.Marshal(out))
	fmt.Fprintf(stderr, "termsgate: the payment carries the terms' hash, but its validity window closed at %s (%s ago): a seller refuses it as expired; sign a new one\n",
		time.Unix(until, 0).UTC().Format(time.RFC3339), time.Duration(now-until)*time.Second)
	return exitDeclined
}

// boundPairing is the first pairing whose read-back reads presented (it
// need not carry the hash asked about: Check says that), else the default.
func boundPairing(presented jsonv.Value) string {
	for _, p := range all.Default().All() {
		if _, err := guardedCall(func() (string, error) { return p.Bound(presented) }); err == nil {
			return p.ID()
		}
	}
	return evm.ExactEIP3009ID
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
	f := newFlags("transact", "transact (--key-file FILE|--dev-key) --max-amount N [--budget N] [--asset A] [--payee A] [--pairing ID] [--agent ACCOUNT] [--approved FILE] [--header] [OFFER|-]\n\n"+offerUsage+"\nWith --header it prints only the header line to send the payment in.", stderr).addOffer()
	header := f.fs.Bool("header", false, "print only the header line to send the payment in (PAYMENT-SIGNATURE: … or Authorization: Payment …)")
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
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	ctx, intr := catchInterrupt(ctx) // Ctrl-C says what was signed (interrupt.go)
	defer intr.stop()
	d, err := f.offerInput(ctx, stdin, stderr)
	if intr.interrupted() {
		return intr.transactReport(stdout, stderr, nil, err)
	}
	if err != nil {
		return offerError(stderr, "transact", err)
	}
	var s gate.Signer
	intr.asking(func() { s, err = keys.signer(stderr) }) // a passphrase prompt ends on Ctrl-C as always
	if err != nil {
		return usageError(stderr, "transact", err)
	}
	s = intr.watch(s)
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
	pairing, doc, err := f.pairingFor(d, s.Account(), opts.Inputs)
	if err != nil {
		return usageError(stderr, "transact", err)
	}
	var res *gate.Transacted
	g := withPolicy(f.gate(), policy)
	err = f.run(ctx, stderr, func(ctx context.Context) (err error) {
		res, err = g.Transact(ctx, doc, pairing, s, opts)
		return err
	})
	if intr.interrupted() {
		if err == nil {
			printResult(stdout, stderr, res.JSON(), nil)
		}
		return intr.transactReport(stdout, stderr, res, err)
	}
	if err != nil {
		code := printResult(stdout, stderr, nil, err)
		if isDecline(err, gate.NoPayableOption) {
			noPayableHint(stderr, d, keys.network, false)
		}
		return code
	}
	if res.Approve != nil {
		fmt.Fprintln(stderr, "termsgate: nothing signed: approve the agreement payment under \"approve\", then run again with --approved FILE holding it unchanged")
	} else if *header && res.Signed != nil {
		return printHeader(stdout, stderr, pairing, res.Signed)
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
	f := newFlags("agree", "agree --url AGREEMENT_URL (--key-file FILE|--dev-key) --max-amount N [--budget N] [--asset A] [--payee A] [--approved FILE] ATR_FILE", stderr).addNetwork()
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
