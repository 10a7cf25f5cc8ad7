package main

// What the step commands read a seller's offer from: a file (or standard
// input) holding the 402's document as JSON, a header value as the seller
// sent it (x402's PAYMENT-REQUIRED, MPP's WWW-Authenticate: Payment …), or
// the header lines themselves; or the resource's URL, which they request
// unpaid as pay would, to read the 402 it answers.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

// offerDocs is what a 402 asks for: the x402 document (PAYMENT-REQUIRED,
// decoded) and the MPP challenges (WWW-Authenticate: Payment), either or
// both.
type offerDocs struct {
	x402 jsonv.Value
	mpp  []jsonv.Value
}

// doc is the document the pairings of namespace ns read; nil when the offer
// has none.
func (d *offerDocs) doc(ns string) jsonv.Value {
	switch {
	case ns == pay.ProtocolX402 && d.x402 != nil:
		return d.x402
	case ns == pay.ProtocolMPP && len(d.mpp) > 0:
		return d.mpp
	}
	return nil
}

// errNoOffer: the text holds neither protocol's offer.
var errNoOffer = errors.New("no offer in it: expected the 402's document as JSON, a PAYMENT-REQUIRED value (base64), a WWW-Authenticate value (Payment id=…), the header lines themselves, or the resource's https URL")

// parseOffer reads a 402 offer from text: JSON (an x402 document object, or
// a list of MPP challenges), header lines ("PAYMENT-REQUIRED: …",
// "WWW-Authenticate: Payment …", other lines ignored, as curl -i prints
// them), or one header value as the seller sent it.
func parseOffer(data []byte) (*offerDocs, error) {
	return rails.Guard("the offer reader", "the offer", func() (*offerDocs, error) { return readOffer(data) })
}

// readOffer is parseOffer without the guard.
func readOffer(data []byte) (*offerDocs, error) {
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return nil, errors.New("empty: " + strings.TrimPrefix(errNoOffer.Error(), "no offer in it: "))
	}
	if t[0] == '{' || t[0] == '[' {
		v, err := jsonv.Parse(t)
		if err != nil {
			return nil, err
		}
		if list, ok := v.([]jsonv.Value); ok {
			return &offerDocs{mpp: list}, nil
		}
		return &offerDocs{x402: v}, nil
	}
	h := http.Header{}
	lines := 0
	for _, line := range strings.Split(string(t), "\n") {
		if name, value, ok := headerLine(strings.TrimRight(line, "\r")); ok {
			h.Add(name, value)
			lines++
		}
	}
	if lines == 0 {
		s := string(t)
		if len(s) > 8 && strings.EqualFold(s[:8], "payment ") {
			h.Add(pay.HeaderAuthenticate, s)
		} else {
			h.Add(pay.HeaderRequired, s)
		}
	}
	return offerOfHeader(h)
}

// headerLine splits "Name: value" whose name is an HTTP token; a base64
// value or an MPP challenge (whose first colon follows a space or a quote)
// is no header line.
func headerLine(line string) (name, value string, ok bool) {
	name, value, ok = strings.Cut(line, ":")
	if !ok || name == "" {
		return "", "", false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return "", "", false
		}
	}
	return name, strings.TrimSpace(value), true
}

// offerOfHeader reads a 402's headers as pay does: PAYMENT-REQUIRED (once),
// and the Payment challenges of WWW-Authenticate. One protocol's unreadable
// header is an error only when the other offers nothing either, as pay
// then pays the other.
func offerOfHeader(h http.Header) (*offerDocs, error) {
	d := &offerDocs{}
	var bad error
	if vs := h.Values(pay.HeaderRequired); len(vs) > 1 {
		bad = fmt.Errorf("%s appears %d times; a seller sends it once", pay.HeaderRequired, len(vs))
	} else if len(vs) == 1 {
		doc, err := x402.DecodeHeader(vs[0])
		if err != nil {
			bad = fmt.Errorf("%s: %w", pay.HeaderRequired, err)
		} else {
			d.x402 = doc
		}
	}
	for _, v := range h.Values(pay.HeaderAuthenticate) {
		if !strings.Contains(strings.ToLower(v), "payment") {
			continue
		}
		list, err := mpp.ChallengesFromHeader(h)
		if err != nil && bad == nil {
			bad = fmt.Errorf("%s: %w", pay.HeaderAuthenticate, err)
		}
		d.mpp = list
		break
	}
	switch {
	case d.x402 != nil || len(d.mpp) > 0:
		return d, nil
	case bad != nil:
		return nil, bad
	}
	return nil, errNoOffer
}

// isURL reports whether the argument names a resource to request rather
// than a file.
func isURL(arg string) bool {
	l := strings.ToLower(arg)
	return strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://")
}

// offerInput is the step's offer: from the URL, file or standard input its
// one argument names. A failure of the request is an error wrapping
// errRequest (exit 3); anything else is bad input (exit 2).
func (f *stepsFlags) offerInput(ctx context.Context, stdin io.Reader, stderr io.Writer) (*offerDocs, error) {
	if f.fs.NArg() == 1 && isURL(f.fs.Arg(0)) {
		return f.requestOffer(ctx, f.fs.Arg(0), stderr)
	}
	data, name, err := readArg(f.fs, stdin)
	if err != nil {
		return nil, err
	}
	d, err := parseOffer(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}

// errRequest marks a failure of the unpaid request (the network, the
// seller's answer), as opposed to bad input.
var errRequest = errors.New("the unpaid request")

// requestOffer makes the unpaid request pay would make and reads the 402's
// offer: https only unless --allow-http, public addresses only unless
// --allow-private, no redirect followed, bounded as pay.Transport is (the
// response's headers to 64 KiB, its body read to pay.DefaultMax402Body and
// dropped, the whole within atr.FetchTimeout).
func (f *stepsFlags) requestOffer(ctx context.Context, raw string, stderr io.Writer) (*offerDocs, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http(s) URL", shorten(raw))
	}
	if !strings.EqualFold(u.Scheme, "https") && !f.allowHTTP {
		return nil, fmt.Errorf("%s is plain http, where anyone on the path can change the offer; --allow-http reads it (local development only)", shorten(raw))
	}
	ctx, cancel := context.WithTimeout(ctx, atr.FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	steps := newStepLog(stderr, f.verbose)
	steps.begin("requesting " + u.Redacted() + " unpaid")
	resp, err := f.client().Do(req)
	steps.done()
	if err != nil {
		return nil, fmt.Errorf("%w to %s: %w", errRequest, u.Redacted(), err)
	}
	discard402(resp.Body)
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode <= 399:
		return nil, fmt.Errorf("%w: %s answered %s to %s, not followed: request that URL if it is the resource", errRequest, u.Redacted(), resp.Status, termText(shorten(resp.Header.Get("Location"))))
	case resp.StatusCode != http.StatusPaymentRequired:
		return nil, fmt.Errorf("%w: %s answered %s, not 402 Payment Required: it asks for no payment", errRequest, u.Redacted(), termText(resp.Status))
	}
	d, err := offerOfHeader(resp.Header)
	if err != nil {
		return nil, fmt.Errorf("%w: the 402 of %s: %w", errRequest, u.Redacted(), err)
	}
	return d, nil
}

func discard402(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, pay.DefaultMax402Body)
	body.Close()
}

// shorten keeps an argument echoed in a message to 200 characters.
func shorten(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// offerError is the exit for a failed offerInput: 3 for the request, 2 for
// bad input.
func offerError(stderr io.Writer, cmd string, err error) int {
	if errors.Is(err, errRequest) {
		fmt.Fprintf(stderr, "termsgate %s: %v\n", cmd, err)
		if h := hintFor(err); h != "" {
			fmt.Fprintf(stderr, "termsgate: hint: %s\n", h)
		}
		return exitFailure
	}
	return usageError(stderr, cmd, err)
}

// pairingFor is --pairing with the offer's document for it, or, without
// --pairing, the first registered pairing (x402 before MPP, as pay prefers)
// that reads the offer and, when account is given, has an option the
// account can pay. When none does, it is the pairing that got furthest, so
// that the gate declines as it would for it.
func (f *stepsFlags) pairingFor(d *offerDocs, account string, inputs jsonv.Value) (string, jsonv.Value, error) {
	if flagSet(f.fs, "pairing") {
		ns := rails.Namespace(f.pairing)
		doc := d.doc(ns)
		if doc == nil {
			return "", nil, fmt.Errorf("--pairing %s reads %s offers, and this 402 has none (%s)", f.pairing, protocolOf(ns), d.protocols())
		}
		return f.pairing, doc, nil
	}
	in, _ := jsonv.AsObject(inputs)
	if in == nil {
		in = &jsonv.Object{}
	}
	now := stepsNow().Unix()
	var readOnly, none string
	var readOnlyDoc, noneDoc jsonv.Value
	for _, ns := range []string{pay.ProtocolX402, pay.ProtocolMPP} {
		doc := d.doc(ns)
		if doc == nil {
			continue
		}
		offered := d.offeredPairings(ns)
		for _, p := range all.Default().All() {
			if rails.Namespace(p.ID()) != ns || offered != nil && !offered[p.ID()] {
				continue
			}
			read, err := guardedCall(func() (rails.Read, error) { return p.Read(doc) })
			if err != nil {
				if none == "" {
					none, noneDoc = p.ID(), doc
				}
				continue
			}
			if account == "" {
				return p.ID(), doc, nil
			}
			if _, err := guardedCall(func() (jsonv.Value, error) { return p.Choose(read, account, in, now, "") }); err != nil {
				if readOnly == "" {
					readOnly, readOnlyDoc = p.ID(), doc
				}
				continue
			}
			return p.ID(), doc, nil
		}
	}
	if readOnly != "" {
		return readOnly, readOnlyDoc, nil
	}
	if none != "" {
		return none, noneDoc, nil
	}
	ns := rails.Namespace(f.pairing)
	if doc := d.doc(ns); doc != nil {
		return f.pairing, doc, nil
	}
	return "", nil, fmt.Errorf("no pairing termsgate has reads this offer (%s)", d.protocols())
}

// offeredPairings is, for MPP, the pairings the challenges name (an MPP
// pairing may read a challenge of another method); nil when the offer does
// not say (x402: each pairing's Read keeps only the options it serves).
func (d *offerDocs) offeredPairings(ns string) map[string]bool {
	if ns != pay.ProtocolMPP {
		return nil
	}
	var out map[string]bool
	for _, c := range d.mpp {
		ids, _ := guardedCall(func() ([]string, error) { return mpp.PairingsOfPlaced(c), nil })
		for _, id := range ids {
			if out == nil {
				out = map[string]bool{}
			}
			out[id] = true
		}
	}
	return out
}

func protocolOf(ns string) string {
	if ns == pay.ProtocolMPP {
		return "MPP (WWW-Authenticate: Payment)"
	}
	return "x402 (PAYMENT-REQUIRED)"
}

// protocols names what the offer holds.
func (d *offerDocs) protocols() string {
	var have []string
	if d.x402 != nil {
		have = append(have, "it holds an x402 PAYMENT-REQUIRED")
	}
	if len(d.mpp) > 0 {
		have = append(have, fmt.Sprintf("it holds %d MPP challenge(s)", len(d.mpp)))
	}
	return strings.Join(have, " and ")
}

// guardedCall runs one pairing member on seller input so that a panic is an
// error, as the gate does.
func guardedCall[T any](fn func() (T, error)) (out T, err error) {
	defer func() {
		if r := recover(); r != nil {
			var zero T
			out, err = zero, fmt.Errorf("the pairing failed on this input: %v", r)
		}
	}()
	return fn()
}

// asked is one option of an offer: what it asks for, where.
type asked struct {
	protocol, kind   string // "x402", "exact"; "mpp", "charge/tempo"
	network, asset   string
	amount           string
	payableByPairing string // a pairing termsgate has that serves it, if any
}

func (a asked) String() string {
	s := fmt.Sprintf("%s %s: %s of %s on %s", a.protocol, a.kind, orQ(a.amount), orQ(a.asset), orQ(a.network))
	if a.payableByPairing != "" {
		s += " (" + a.payableByPairing + ")"
	}
	return s
}

func orQ(s string) string {
	if s == "" {
		return "?"
	}
	return termText(shorten(s))
}

// asks lists what the offer's options ask for, read without trusting them
// (for a hint only: nothing is paid from this).
func (d *offerDocs) asks() []asked {
	var out []asked
	if o, ok := jsonv.AsObject(d.x402); ok {
		accepts, _ := o.Get("accepts")
		list, _ := accepts.([]jsonv.Value)
		for i, a := range list {
			if i == 16 {
				break
			}
			opt, ok := jsonv.AsObject(a)
			if !ok {
				continue
			}
			str := func(k string) string { s, _ := opt.GetString(k); return s }
			one := asked{protocol: "x402", kind: str("scheme"), network: str("network"), asset: str("asset"), amount: str("amount")}
			if one.amount == "" {
				one.amount = str("maxAmountRequired")
			}
			only := o.Clone()
			only.Set("accepts", []jsonv.Value{opt})
			one.payableByPairing = servingPairing(pay.ProtocolX402, only)
			out = append(out, one)
		}
	}
	for i, c := range d.mpp {
		if i == 16 {
			break
		}
		o, ok := jsonv.AsObject(c)
		if !ok {
			continue
		}
		issued := o.Clone()
		issued.Delete("opaque") // the seller's LCP keys are no taken carrier here
		ch, err := guardedCall(func() (*mpp.Checked, error) { return mpp.CheckChallenge(issued, false) })
		if err != nil {
			continue
		}
		network, _ := mpp.Network(c)
		amount, _ := ch.Request.GetString("amount")
		asset, _ := ch.Request.GetString("currency")
		one := asked{protocol: "mpp", kind: ch.Intent + "/" + ch.Method, network: network, asset: asset, amount: amount}
		if len(ch.Pairings) > 0 {
			one.payableByPairing = strings.Join(ch.Pairings, ", ")
		}
		out = append(out, one)
	}
	return out
}

// servingPairing is the first x402 pairing whose Read serves the one-option
// document, "" when none does.
func servingPairing(ns string, doc jsonv.Value) string {
	for _, p := range all.Default().All() {
		if rails.Namespace(p.ID()) != ns {
			continue
		}
		if _, err := guardedCall(func() (rails.Read, error) { return p.Read(doc) }); err == nil {
			return p.ID()
		}
	}
	return ""
}

// noPayableHint says, after a no-payable-option, what the offer asks for and
// the flag that would match it: --network (or, for confirm, an --account)
// for an option on another network, --agent for one an agent identity
// pays.
func noPayableHint(stderr io.Writer, d *offerDocs, network string, byAccount bool) {
	if d == nil {
		return
	}
	list := d.asks()
	if len(list) == 0 {
		return
	}
	fmt.Fprintln(stderr, "termsgate: the offer asks for:")
	flags := map[string]bool{}
	for _, a := range list {
		fmt.Fprintf(stderr, "termsgate:   %s\n", a)
		switch ns, _, _ := strings.Cut(a.network, ":"); {
		case a.network == "" || a.network == network:
		case strings.HasPrefix(a.network, "cloudflare:"):
			flags["--agent cloudflare:402:NAME (an agent identity pays it; the key pays the agreement)"] = true
		case ns == "eip155" || chainKeys[ns].dev != nil:
			switch {
			case pay.CheckNetwork(a.network) != nil:
			case byAccount:
				flags["--account "+termText(a.network)+":ADDRESS"] = true
			default:
				flags["--network "+termText(a.network)] = true
			}
		}
	}
	if len(flags) == 0 {
		fmt.Fprintf(stderr, "termsgate: hint: the signer's network is %s; no option there is one a pairing termsgate has can pay\n", network)
		return
	}
	names := make([]string, 0, len(flags))
	for f := range flags {
		names = append(names, f)
	}
	sort.Strings(names)
	fmt.Fprintf(stderr, "termsgate: hint: the signer's network is %s; %s would match\n", network, strings.Join(names, ", or "))
}

// signedHeader is the one header line that sends a payment of pairing:
// "PAYMENT-SIGNATURE: …" (x402) or "Authorization: Payment …" (MPP, or the
// header the challenge names).
func signedHeader(pairing string, signed jsonv.Value) (string, error) {
	switch rails.Namespace(pairing) {
	case pay.ProtocolX402:
		return pay.HeaderSignature + ": " + x402.EncodeHeader(signed), nil
	case pay.ProtocolMPP:
		cred, ok := jsonv.AsObject(signed)
		if !ok {
			return "", fmt.Errorf("the %s payment is no MPP credential", pairing)
		}
		name, value := mpp.Header(cred)
		return name + ": " + value, nil
	}
	return "", fmt.Errorf("the pairing %s is sent in no HTTP header", pairing)
}

// paymentWindow is the validity window a payment in the pairing's signed
// form states, read by the pairing's inspector: until is zero when it
// states no end (or the pairing has no inspector).
func paymentWindow(pairing string, presented jsonv.Value) (from, until int64, ok bool) {
	p, found := all.Default().Lookup(pairing)
	if !found {
		return 0, 0, false
	}
	// The inspector's form is either rails.Inspection or its JSON object.
	type inspection interface {
		Inspect(jsonv.Value) (rails.Inspection, error)
	}
	type inspectionJSON interface {
		Inspect(jsonv.Value) (*jsonv.Object, error)
	}
	var o *jsonv.Object
	switch in := p.(type) {
	case inspection:
		got, err := guardedCall(func() (rails.Inspection, error) { return in.Inspect(presented) })
		if err != nil {
			return 0, 0, false
		}
		o = got.JSON()
	case inspectionJSON:
		got, err := guardedCall(func() (*jsonv.Object, error) { return in.Inspect(presented) })
		if err != nil || got == nil {
			return 0, 0, false
		}
		o = got
	default:
		return 0, 0, false
	}
	read := func(names ...string) int64 {
		for _, n := range names {
			if s, ok := o.GetString(n); ok {
				if v, ok := new(big.Int).SetString(s, 10); ok && v.IsInt64() {
					return v.Int64()
				}
			}
		}
		return 0
	}
	return read("payableFrom", "validAfter"), read("payableUntil", "validBefore", "expires"), true
}

// requestWindow is when a signing request's payment stops being payable,
// read by the pairing's summarizer from the request itself; 0 when it says
// no end.
func requestWindow(pairing string, req rails.Request) int64 {
	p, found := all.Default().Lookup(pairing)
	if !found || req == nil {
		return 0
	}
	s, ok := p.(rails.Summarizer)
	if !ok {
		return 0
	}
	g, err := guardedCall(func() (rails.Grant, error) { return s.Summarize(req) })
	if err != nil || g.PayableUntil.IsZero() {
		return 0
	}
	return g.PayableUntil.Unix()
}
