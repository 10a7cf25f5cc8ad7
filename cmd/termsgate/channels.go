package main

// The channel calls as commands (docs/protocol.md, "Channels"): hold the channel a
// paid opening opened, sign the next voucher (or the close) in it, record
// what the seller charged. Each reads one JSON object, whose members are
// the previous command's output plus what the step adds, and prints JSON.
// The hold is printed in full and read back whole: keep the latest one.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/tempo"
)

func init() {
	commands["channel-open"] = command{"hold the channel a paid opening opened (signs nothing)", runChannelOpen}
	commands["channel-within"] = command{"sign the next voucher, or the close, in a held channel with a local key", runChannelWithin}
	commands["channel-charge"] = command{"record the seller's cumulative charge in a held channel", runChannelCharge}
}

// channelFlags are the steps' flags with the pairing defaulting to the
// channel pairing termsgate has.
func channelFlags(name, usage string, stderr io.Writer) *stepsFlags {
	f := newStepsFlags(name, usage, stderr).addNetwork()
	f.pairing = tempo.SessionID
	f.fs.Lookup("pairing").DefValue = tempo.SessionID
	return f
}

func runChannelOpen(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := channelFlags("channel-open", "channel-open [--pairing ID] [INPUT|-]\n\nINPUT is transact's (or finish's output with \"atr\" added) for a payment that opens a channel:\n{atr, signed, landed?}. Prints {atrHash, hold}.", stderr)
	if err := parseFlags(f.fs, args); err != nil {
		return exitUsage
	}
	data, name, err := readArg(f.fs, stdin)
	if err != nil {
		return usageError(stderr, "channel-open", err)
	}
	o, err := parseObject(data, name, "atrHash", "atr", "signed", "landed")
	if err != nil {
		return usageError(stderr, "channel-open", err)
	}
	b, err := atrBytesOf(o)
	if err != nil {
		return usageError(stderr, "channel-open", err)
	}
	signed, ok := o.Get("signed")
	if !ok {
		return usageError(stderr, "channel-open", errors.New(`missing member "signed" (the payment that opened the channel)`))
	}
	landed, _ := o.Get("landed")
	h, err := f.gate().OpenChannel(b, f.pairing, signed, landed)
	if err != nil {
		return printResult(stdout, stderr, nil, err)
	}
	return printResult(stdout, stderr, holdResult(h), nil)
}

func holdResult(h *gate.Hold) *jsonv.Object { return jsonv.Obj("atrHash", h.H, "hold", h.JSON()) }

const missingHold = `missing member "hold" (the hold channel-open, channel-within or channel-charge printed last)`

func runChannelWithin(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := channelFlags("channel-within", "channel-within (--key-file FILE|--dev-key) --max-amount N [--budget N] [--asset A] [--payee A] [--pairing ID] [INPUT|-]\n\nINPUT is {hold, document, refund?, inputs?}: the latest hold, the seller's new payment document as JSON\n(for MPP, the list of challenges), and refund {} to close the channel instead of signing a voucher.\nPrints {atrHash, signed, hold}: send signed, keep hold. --max-amount bounds what one voucher adds to the channel.", stderr)
	keys := addKeyFlags(f.fs)
	limits := addLimitFlags(f.fs)
	if err := parseFlags(f.fs, args); err != nil {
		return exitUsage
	}
	// Checked now; the limit's network is the hold's unless --network
	// names one.
	if _, err := limits.forKey(keys, keys.network); err != nil {
		return usageError(stderr, "channel-within", err)
	}
	data, name, err := readArg(f.fs, stdin)
	if err != nil {
		return usageError(stderr, "channel-within", err)
	}
	// atrHash and signed are accepted (and ignored) so that the previous
	// step's output can be passed on with the new document added.
	o, err := parseObject(data, name, "atrHash", "signed", "hold", "document", "refund", "inputs")
	if err != nil {
		return usageError(stderr, "channel-within", err)
	}
	hv, ok := o.Get("hold")
	if !ok {
		return usageError(stderr, "channel-within", errors.New(missingHold))
	}
	hold, err := gate.ParseHold(hv) // a malformed hold is the gate's decline
	if err != nil {
		return printResult(stdout, stderr, nil, err)
	}
	doc, ok := o.Get("document")
	if !ok {
		return usageError(stderr, "channel-within", errors.New(`missing member "document" (the seller's new payment document)`))
	}
	refund, err := refundMember(o)
	if err != nil {
		return usageError(stderr, "channel-within", err)
	}
	in, _ := o.Get("inputs")
	pairing := f.pairing
	if !flagSet(f.fs, "pairing") {
		pairing = hold.Pairing
	}
	// The key signs on the hold's chain unless --network names one: a
	// Solana channel's hold takes the Solana key without --network.
	network := keys.network
	if !flagSet(f.fs, "network") {
		network = hold.Network
		keys.network = network
	}
	s, err := keys.signer(stderr)
	if err != nil {
		return usageError(stderr, "channel-within", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	policy, err := limits.forKey(keys, network)
	if err != nil {
		return usageError(stderr, "channel-within", err)
	}
	r, err := withPolicy(f.gate(), policy).Within(ctx, doc, hold, pairing, s, refund, in)
	if err != nil {
		return printResult(stdout, stderr, nil, err)
	}
	return printResult(stdout, stderr, r.JSON(), nil)
}

// refundMember reads refund: absent, {} (close) or {amount: string}.
func refundMember(o *jsonv.Object) (*gate.Refund, error) {
	v, ok := o.Get("refund")
	if !ok {
		return nil, nil
	}
	ro, ok := jsonv.AsObject(v)
	if !ok {
		return nil, errors.New(`"refund" is not a JSON object ({} closes the channel)`)
	}
	r := &gate.Refund{}
	for _, m := range ro.Members() {
		if m.Key != "amount" {
			return nil, fmt.Errorf(`refund: unknown member %q (expected amount)`, m.Key)
		}
		s, ok := m.Value.(string)
		if !ok {
			return nil, errors.New(`"refund.amount" is not a string`)
		}
		r.Amount = &s
	}
	return r, nil
}

func runChannelCharge(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := channelFlags("channel-charge", "channel-charge [INPUT|-]\n\nINPUT is {hold, charged}: the latest hold and the seller's cumulative charge (a decimal). Prints {atrHash, hold}.", stderr)
	if err := parseFlags(f.fs, args); err != nil {
		return exitUsage
	}
	data, name, err := readArg(f.fs, stdin)
	if err != nil {
		return usageError(stderr, "channel-charge", err)
	}
	o, err := parseObject(data, name, "atrHash", "signed", "hold", "charged")
	if err != nil {
		return usageError(stderr, "channel-charge", err)
	}
	hv, ok := o.Get("hold")
	if !ok {
		return usageError(stderr, "channel-charge", errors.New(missingHold))
	}
	hold, err := gate.ParseHold(hv) // a malformed hold is the gate's decline
	if err != nil {
		return printResult(stdout, stderr, nil, err)
	}
	cv, ok := o.Get("charged")
	if !ok {
		return usageError(stderr, "channel-charge", errors.New(`missing member "charged" (the seller's cumulative charge, a decimal string)`))
	}
	charged, ok := cv.(string)
	if !ok {
		return usageError(stderr, "channel-charge", errors.New(`"charged" is not a string (write the decimal in quotes)`))
	}
	next, err := gate.RecordCharge(hold, charged)
	if err != nil {
		return printResult(stdout, stderr, nil, err)
	}
	return printResult(stdout, stderr, holdResult(next), nil)
}
