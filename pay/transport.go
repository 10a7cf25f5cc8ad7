// Package pay is the paying side of HTTP: an http.RoundTripper that answers
// a 402 by paying through the gate, so that nothing is signed before the
// seller's terms (the ATR) were fetched and their SHA-256 matched the
// advertised hash, a spend Policy allowed the payment, and the optional
// BeforeSign hook approved its Summary. It pays x402 v2 (PAYMENT-REQUIRED)
// and MPP (WWW-Authenticate: Payment) 402s, x402 first when a 402 offers
// both.
//
//	t := &pay.Transport{Signer: wallet, Policy: policy}
//	client := pay.NewClient(t)
//	resp, err := client.Get("https://api.seller.example/v1/report")
//	// err wraps a *gate.Decline when the gate declined (nothing signed);
//	// pay.ResultOf(resp) is the payment made, if one was.
//
// One request gets at most one signature: the 402's offer is decoded
// strictly, the payment is sent once (in PAYMENT-SIGNATURE, or in the
// header the MPP challenge names) to the URL that answered 402, and whatever
// the seller answers to it is the response. See docs/paying-client.md.
package pay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
)

// The x402 v2 headers.
const (
	HeaderRequired  = "PAYMENT-REQUIRED"
	HeaderSignature = "PAYMENT-SIGNATURE"
	HeaderResponse  = "PAYMENT-RESPONSE"
)

// DefaultMax402Body is how much of a 402's body is read (and discarded)
// before paying; a longer body is cut off and its connection closed, so a
// seller cannot make the buyer read an endless 402.
const DefaultMax402Body = 64 << 10

var _ http.RoundTripper = (*Transport)(nil)

// Detail codes the Transport writes into a *gate.Decline of its own.
const (
	// DetailRequiredUnreadable: the PAYMENT-REQUIRED header is not one
	// strict base64 JSON object (or there are several). Code offer-unreadable.
	DetailRequiredUnreadable = "pay/payment-required-unreadable"
	// DetailVetoed: the BeforeSign hook returned an error that is no
	// *gate.Decline. Code no-payable-option.
	DetailVetoed = "pay/before-sign-vetoed"
	// DetailNotChecked: the gate produced a payment the policy was never
	// asked about (a pairing with nothing to sign); it is not sent. Code
	// no-payable-option.
	DetailNotChecked = "pay/payment-not-checked"
	// DetailAgreementNeedsApproval: the pairing's payment is no public proof
	// and its agreement payment needs approval (gate.Transacted.Approve),
	// which Hooks.ApproveAgreement did not give (unset, or it refused).
	// Code agreement-pending; nothing signed.
	DetailAgreementNeedsApproval = "pay/agreement-needs-approval"
	// DetailCredentialHeaderTaken: the MPP credential would go in
	// Authorization, which the request already carries (a Bearer token, say):
	// sending the payment would replace it. Code no-payable-option; asked
	// before the policies, so nothing is signed or reserved.
	DetailCredentialHeaderTaken = "pay/credential-header-taken"
	// DetailPlainHTTP: the 402 came over plain http (the URL asked for, or
	// one a redirect led to), where anyone on the path could change what it
	// asks for and read the payment, and the Transport does not AllowHTTP.
	// Code no-payable-option; nothing fetched or signed.
	DetailPlainHTTP = "pay/plain-http"
	// DetailNoPolicy: neither Transport.Policy nor Gate.Policy is set, so
	// nothing limits what would be paid. Code no-payable-option; nothing
	// fetched or signed. Set a Policy (NewPolicy), or NoLimits to pay
	// without any.
	DetailNoPolicy = "pay/no-policy"
)

// errNoPolicy is the cause of a DetailNoPolicy decline: how to opt in.
var errNoPolicy = errors.New("the Transport has no spend limits: set Transport.Policy (pay.NewPolicy) or Gate.Policy; to pay any amount to anyone, set Policy: pay.NoLimits()")

// Transport pays x402 v2 and MPP 402s through the gate. The zero value is not
// usable: Signer is required. A Transport is safe for concurrent use if its
// Signer, Policy and hooks are.
type Transport struct {
	// Base sends the requests; nil means one transport shared by every
	// Transport, with http.DefaultTransport's settings and a pool sized
	// for concurrent payers (NewBaseTransport). It must not follow
	// redirects (no http.RoundTripper does).
	Base http.RoundTripper
	// Gate runs the checks; nil means the zero gate.Gate: every pairing, the
	// wall clock, and an ATR fetch that connects only to public addresses
	// (its client is not Base: set Gate.Fetcher.Client to fetch otherwise).
	Gate *gate.Gate
	// Signer signs the payments; its Account picks the network.
	Signer gate.Signer
	// AgreementSigner pays the agreement payment of a pairing that needs
	// the agreement exchange (Signer may then be an agent identity that
	// signs nothing); nil means Signer.
	AgreementSigner gate.Signer
	// Policy is asked, after Gate.Policy if that is set, before any signer
	// call. With neither set the Transport pays nothing: every 402 is
	// declined (DetailNoPolicy) before anything is fetched or signed.
	// NoLimits is the explicit opt-out. Even then the Transport refuses a
	// signing request it cannot summarise (policy/request-unreadable).
	Policy gate.Policy
	Hooks  Hooks
	// Logger receives one record per payment event; nil discards them.
	Logger *slog.Logger
	// MaxReplayBody bounds the body buffered for the paid retry of a request
	// without GetBody; 0 means DefaultMaxReplayBody.
	MaxReplayBody int64
	// Max402Body bounds what is read of a 402's body; 0 means
	// DefaultMax402Body.
	Max402Body int64
	// Inputs gives the buyer inputs a pairing needs, by pairing id (for
	// mpp/charge/evm/authorization, its tokenDomain: the token's EIP-712
	// name and version); nil, or a nil answer, means none.
	Inputs func(pairing string) *jsonv.Object
	// InputsFor, when set, gives a pairing its inputs for the offer at hand
	// (doc, the decoded 402 document; account, the signer's), before
	// Inputs is asked: a Stellar payment's inputs are a simulation of the
	// very transfer offered (sorobanrpc.Client.Inputs). It is asked once
	// per pairing and offer; nil, nil means none (inputs_for.go).
	InputsFor func(ctx context.Context, pairing string, doc jsonv.Value, account string) (*jsonv.Object, error)
	// Journal, when set, keeps each payment from its signature to the
	// seller's answer, and a payment never answered is presented again to
	// its URL instead of a new one being signed (journal.go).
	Journal Journal
	// AllowHTTP pays 402s that came over plain http, for a seller under
	// development on the local machine. Without it such a 402 is declined
	// (DetailPlainHTTP), whether the URL was http:// or a redirect from an
	// https:// one led there.
	AllowHTTP bool
	// ATRCache keeps the terms fetched, by their hash, so that a repeat
	// payment under the same hash fetches nothing (cache.go); nil means
	// the Transport's own cache of DefaultATRCacheEntries records and
	// DefaultATRCacheBytes bytes. It replaces the Gate's Fetcher.Cache.
	ATRCache *atr.Cache
	// NoATRCache fetches the terms for every payment, whatever ATRCache
	// and the Gate's Fetcher.Cache say.
	NoATRCache bool
	// Verify, when set, reads each accepted payment's settlement from the
	// chain (Result.Verified; verify.go).
	Verify *Verifier

	ownCache struct {
		once  sync.Once
		cache *atr.Cache
	}
}

// NoLimits is a Policy that allows every payment the Transport can
// summarise: any amount, any asset, any payee, payable for any time.
//
// Dangerous: a seller then decides what is paid. It is for programs that
// vet each payment themselves (Hooks.BeforeSign) or hold only funds they
// can lose; a Transport without a Policy declines every 402 instead.
func NoLimits() gate.Policy { return noLimits{} }

type noLimits struct{}

func (noLimits) Allow(context.Context, gate.PaymentSummary) error { return nil }

// inputsFor is Inputs for one pairing, never nil.
func (t *Transport) inputsFor(pairing string) *jsonv.Object {
	if t.Inputs != nil {
		if in := t.Inputs(pairing); in != nil {
			return in
		}
	}
	return &jsonv.Object{}
}

// Hooks observe (and BeforeSign may veto) each payment. They run on the
// goroutine of the request.
type Hooks struct {
	// BeforeSign is called after every policy allowed the payment and before
	// the signer: a non-nil error vetoes it (a *gate.Decline is returned as
	// is; any other error becomes no-payable-option pay/before-sign-vetoed)
	// and nothing is signed.
	BeforeSign func(ctx context.Context, req *http.Request, s Summary) error
	// AfterSign is called with the signed payment before it is sent.
	// StatusCode and Settlement are not set yet; ResultOf the response
	// returns the same *Result completed.
	AfterSign func(ctx context.Context, req *http.Request, r *Result)
	// ApproveAgreement is asked when the offer's pairing needs the agreement
	// exchange and its agreement payment p is to be approved: nil approves
	// it, and the Transport pays the agreement (under the same policies and
	// BeforeSign as any payment) and then the offer. Unset, or an error,
	// declines agreement-pending pay/agreement-needs-approval with nothing
	// signed.
	ApproveAgreement func(ctx context.Context, req *http.Request, p *gate.AgreementPayment) error
	// Declined is called when the gate (or the Transport) declined to pay a
	// 402; the request then fails with an error wrapping d.
	Declined func(ctx context.Context, req *http.Request, d *gate.Decline)
}

// NewClient returns an *http.Client that pays through t and stops at a
// redirect that would leave the origin of a paid request (CheckRedirect).
// It keeps no cookies and sets no timeout; set those on the result.
func NewClient(t *Transport) *http.Client {
	return &http.Client{Transport: t, CheckRedirect: CheckRedirect(nil)}
}

// CheckRedirect wraps next (nil means net/http's default of at most 10
// redirects) for http.Client.CheckRedirect: after a paid response, a
// redirect to another origin (scheme, host and port) is not followed and the
// 3xx itself is returned. A same-origin redirect is followed; the Transport
// never pays again in the same redirect chain.
func CheckRedirect(next func(req *http.Request, via []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if r := ResultOf(req.Response); r != nil && origin(req.URL) != r.origin {
			return http.ErrUseLastResponse
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// RoundTrip sends req; on a 402 that asks for payment it pays and sends req
// once more with the payment, returning that answer. A decline is an error
// wrapping *gate.Decline, and then nothing was signed or sent.
//
// A 402 asks for payment with PAYMENT-REQUIRED (x402 v2) or with
// WWW-Authenticate: Payment challenges (MPP). When it carries both, x402 is
// paid if a registered x402 pairing can pay it for the signer's account;
// otherwise MPP is (decided before anything is fetched); when neither can,
// the decline is x402's.
//
// It does not pay, and returns the 402 as it came, when the 402 asks for
// neither, when req already carries a payment (PAYMENT-SIGNATURE,
// Payment-Authorization or Authorization: Payment: the caller pays itself),
// or when req is a redirect followed from a paid response.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if paysItself(req.Header) {
		return t.base().RoundTrip(req)
	}
	first, again := replay(req, t.maxReplay())
	resp, err := t.base().RoundTrip(first)
	if err != nil || resp.StatusCode != http.StatusPaymentRequired {
		return resp, err
	}
	var buf [2]offer // no allocation for the list on the paying path
	offers := offersOf(resp.Header, buf[:0], t.InputsFor == nil)
	if len(offers) == 0 {
		return resp, nil
	}
	log := t.logger()
	if ResultOf(req.Response) != nil {
		log.WarnContext(ctx, "pay: not paying twice in one redirect chain", "url", logURL(req.URL))
		return resp, nil
	}
	if resp.Request != nil && resp.Request.URL != nil && !sameOrigin(resp.Request.URL, req.URL) {
		log.WarnContext(ctx, "pay: the 402 came from another origin than the request", "url", logURL(req.URL))
		return resp, nil
	}
	discard(resp.Body, t.max402())
	if log.Enabled(ctx, slog.LevelDebug) { // the arguments cost allocations even when discarded
		log.DebugContext(ctx, "pay: payment required", "url", logURL(req.URL), "protocol", offers[0].protocol)
	}
	// Each hop of a redirect chain comes through here, so this is the
	// scheme the 402 itself came over.
	if !strings.EqualFold(req.URL.Scheme, "https") && !t.AllowHTTP {
		return nil, t.declined(req, &gate.Decline{Code: gate.NoPayableOption, Detail: DetailPlainHTTP})
	}

	if d := allBad(offers); d != nil {
		return nil, t.declined(req, d)
	}
	if t.Policy == nil && t.gate().Policy == nil {
		return nil, t.declined(req, &gate.Decline{Code: gate.NoPayableOption, Detail: DetailNoPolicy, Err: errNoPolicy})
	}
	if d := t.originRefused(req); d != nil {
		return nil, t.declined(req, d)
	}
	if t.Signer == nil {
		return nil, errors.New("pay: Transport has no Signer")
	}
	// The retry's body is obtained before anything is signed, so that a body
	// that cannot be replayed costs no signature.
	var body io.ReadCloser
	if again != nil {
		if body, err = again(); err != nil {
			log.WarnContext(ctx, "pay: not paying", "url", logURL(req.URL), "err", err)
			return nil, fmt.Errorf("pay: %w", err)
		}
	}
	closeBody := func() {
		if body != nil {
			body.Close()
		}
	}
	// A payment journaled for this URL and never answered is presented
	// again rather than a new one signed.
	res, journaled, err := t.unanswered(ctx, req)
	if err != nil {
		closeBody()
		return nil, err
	}
	if res == nil {
		o, pairing, d := t.choose(ctx, offers)
		if d != nil {
			closeBody()
			return nil, t.declined(req, d)
		}
		if res, err = t.pay(ctx, req, o, pairing); err != nil {
			closeBody()
			return nil, err
		}
		if journaled, err = t.record(ctx, req, res); err != nil {
			closeBody()
			return nil, err
		}
	}

	retry := paidRequest(req, res.HeaderName, res.Header)
	retry.Body, retry.GetBody, retry.ContentLength = req.Body, nil, first.ContentLength
	if again != nil {
		retry.Body, retry.GetBody = body, again
	}
	paid, err := t.base().RoundTrip(retry)
	if err != nil {
		// The payment may have reached the seller: it stays reserved, and
		// the error carries it so that it is presented again, not re-signed.
		log.WarnContext(ctx, "pay: sending the payment failed", "url", logURL(req.URL), "err", err)
		t.unsent(ctx, journaled)
		return nil, &SendError{Result: res, Err: err}
	}
	res.StatusCode = paid.StatusCode
	t.answered(ctx, req, journaled, paid.StatusCode)
	switch res.Protocol {
	case ProtocolX402:
		if h := paid.Header.Get(HeaderResponse); h != "" {
			res.Settlement, res.SettlementErr = readSettlement(h)
		}
	case ProtocolMPP:
		if h := paid.Header.Get(HeaderReceipt); h != "" {
			res.Settlement, res.SettlementErr = readReceipt(h)
		}
	}
	t.verify(ctx, journaled, res)
	withResult(paid, req, res)
	if log.Enabled(ctx, slog.LevelInfo) {
		attrs := []slog.Attr{slog.String("url", logURL(req.URL)),
			slog.Int("status", paid.StatusCode), slog.String("summary", res.Summary.String())}
		if res.Unbound {
			attrs = append(attrs, slog.Bool("unbound", true), slog.String("nonce", res.Nonce))
		}
		log.LogAttrs(ctx, slog.LevelInfo, "pay: paid", attrs...)
	}
	return paid, nil
}

// allBad is the first offer's decline when no offer can be read at all.
func allBad(offers []offer) *gate.Decline {
	for _, o := range offers {
		if o.bad == nil {
			return nil
		}
	}
	return offers[0].bad
}

// choose picks the offer to pay and its pairing: the first offer, in the
// order offersOf gives (x402 before MPP), with a pairing the signer's
// account can pay. When none has one, the decline is the first offer's. It
// fetches and signs nothing, so falling back from one protocol to the other
// costs no signature.
func (t *Transport) choose(ctx context.Context, offers []offer) (offer, string, *gate.Decline) {
	g, account := t.gate(), t.Signer.Account()
	unbound := t.allowsUnbound()
	var first *gate.Decline
	for _, o := range offers {
		d := o.bad
		if d == nil {
			var pairing string
			o.inputs = t.offerInputs(ctx, o.doc, account)
			// With unbound payments allowed, a decline must be known
			// here, to tell an offer without terms from the others.
			if pairing, o.chose, d = pickPairing(g, o.doc, account, o.protocol, len(offers) == 1 && !unbound, o.inputs); d == nil {
				return o, pairing, nil
			}
			if unbound && noTerms(d) {
				if pairing, d = pickUnbound(g, o.doc, account, o.protocol, o.inputs); d == nil {
					o.unbound = true
					return o, pairing, nil
				}
			}
		}
		if first == nil {
			first = d
		}
	}
	return offer{}, "", first
}

// SendError is a payment that was signed but whose sending failed (the
// connection broke, the context ended). The seller may have received it:
// to retry, send Result.Header again in the header Result.HeaderName names
// rather than signing a new payment, and keep Result.ATR with Result.H.
type SendError struct {
	Result *Result
	Err    error
}

func (e *SendError) Error() string { return "pay: sending the payment: " + e.Err.Error() }
func (e *SendError) Unwrap() error { return e.Err }

// pay runs the gate on the chosen offer with pairing and returns the signed
// payment, or an error wrapping the decline.
func (t *Transport) pay(ctx context.Context, req *http.Request, o offer, pairing string) (*Result, error) {
	g := t.gate()
	a := &attempt{t: t, req: req, protocol: o.protocol}
	a.policies, a.passed = a.bufs[0][:0], a.bufs[1][:0] // no allocation for the two lists
	if g.Policy != nil {
		a.policies = append(a.policies, g.Policy)
	}
	if t.Policy != nil {
		a.policies = append(a.policies, t.Policy)
	}
	// The gate's copy lives in the attempt, its policy: one allocation
	// for both.
	a.gate = *g
	gc := &a.gate
	gc.Policy = a
	gc.Fetcher = t.cachingFetcher(g.Fetcher)
	if o.unbound {
		t.logger().WarnContext(ctx, "pay: paying unbound: the offer publishes no terms", "url", logURL(req.URL), "pairing", pairing)
	}
	// A function, not a method value of gc: that was an allocation of
	// its own on every payment.
	transact := func(ctx context.Context, doc jsonv.Value, pairing string, signer gate.Signer, opts *gate.TransactOptions) (*gate.Transacted, error) {
		if o.unbound {
			return gc.TransactUnbound(ctx, doc, pairing, signer, opts)
		}
		return gc.Transact(ctx, doc, pairing, signer, opts)
	}
	opts := &gate.TransactOptions{Inputs: o.inputsFor(t, pairing), AgreementSigner: t.AgreementSigner, Chose: o.chose}
	tx, err := transact(ctx, o.doc, pairing, t.Signer, opts)
	if err == nil && tx.Approve != nil && t.Hooks.ApproveAgreement != nil {
		if t.Hooks.ApproveAgreement(ctx, req, tx.Approve) == nil {
			// Approved up front: the agreement payment is asked about
			// first, then the offer's.
			// The second call chooses afresh: its own ref, its own clock.
			a.agreementFirst, opts.Approved, opts.Chose = true, tx.Approve, nil
			tx, err = transact(ctx, o.doc, pairing, t.Signer, opts)
		}
	}
	if err != nil {
		var d *gate.Decline
		if !errors.As(err, &d) {
			d = &gate.Decline{Code: gate.NoPayableOption, Detail: err.Error()}
		}
		if d.Moved == nil {
			a.release(ctx) // nothing signed left the process
		}
		return nil, t.declined(req, d)
	}
	if tx.Approve != nil {
		// The pairing needs an agreement payment approved first; the
		// transport has no one to ask, and nothing was signed.
		a.release(ctx)
		return nil, t.declined(req, &gate.Decline{Code: gate.AgreementPending, Detail: DetailAgreementNeedsApproval})
	}
	if !a.allowed || tx.Signed == nil {
		a.release(ctx)
		return nil, t.declined(req, refuse(DetailNotChecked))
	}
	res := &Result{
		URL: req.URL.String(), origin: origin(req.URL), Protocol: o.protocol, Pairing: pairing, Summary: a.summary,
		ATR: tx.Bytes, H: tx.H, Signed: tx.Signed, Unbound: tx.Unbound, Nonce: tx.Nonce,
	}
	switch o.protocol {
	case ProtocolX402:
		res.HeaderName, res.Header, res.PaymentID = HeaderSignature, encodeHeader(tx.Signed), paymentID(tx.Signed)
	case ProtocolMPP:
		cred, ok := jsonv.AsObject(tx.Signed)
		if !ok || cred == nil {
			// No MPP pairing completes with anything but a credential
			// object. Something was signed: its reservation stays.
			return nil, fmt.Errorf("pay: the %s payment is no credential", pairing)
		}
		res.HeaderName, res.Header = mpp.Header(cred)
	}
	if f := t.Hooks.AfterSign; f != nil {
		f(ctx, req, res)
	}
	return res, nil
}

// paidRequest is req to be sent again carrying the payment in header name:
// a shallow copy with a header map of its own, as RoundTrip may not change
// req (golang.org/x/oauth2's Transport copies a request the same way).
// req.Clone's deep copy of the URL and its header map grown by the extra
// member were three allocations that nothing needed: net/http neither
// changes an outgoing request's URL nor keeps it.
func paidRequest(req *http.Request, name, value string) *http.Request {
	retry := new(http.Request)
	*retry = *req
	n := 1
	for _, vv := range req.Header {
		n += len(vv)
	}
	values := make([]string, 0, n) // one array for every value, as Header.Clone makes
	h := make(http.Header, len(req.Header)+1)
	for k, vv := range req.Header {
		if vv == nil {
			h[k] = nil // Header.Clone keeps a nil value nil: net/http then omits the header
			continue
		}
		values = append(values, vv...)
		h[k] = values[len(values)-len(vv) : len(values) : len(values)]
	}
	values = append(values, value)
	h[http.CanonicalHeaderKey(name)] = values[len(values)-1:]
	retry.Header = h
	return retry
}

// declined reports d and returns the error the request fails with.
func (t *Transport) declined(req *http.Request, d *gate.Decline) error {
	ctx := req.Context()
	t.logger().WarnContext(ctx, "pay: declined", "url", logURL(req.URL), "code", string(d.Code), "detail", d.Detail)
	if f := t.Hooks.Declined; f != nil {
		f(ctx, req, d)
	}
	return fmt.Errorf("pay: %w", d)
}

// attempt is the policy the gate asks for one payment: the summary check,
// then every configured policy, then the BeforeSign hook. It remembers which
// policies allowed, to release them if nothing gets signed.
type attempt struct {
	t        *Transport
	req      *http.Request
	protocol string
	policies []gate.Policy

	ps      gate.PaymentSummary
	summary Summary
	passed  []gate.Policy
	allowed bool
	// agreementFirst: the first payment asked about is an approved
	// agreement payment, and the offer's may follow it.
	agreementFirst bool
	bufs           [2][2]gate.Policy // what policies and passed start in: Gate.Policy and Transport.Policy
	gate           gate.Gate         // the Transport's gate with this attempt as its Policy
}

func (a *attempt) Allow(ctx context.Context, ps gate.PaymentSummary) error {
	if a.allowed && !a.agreementFirst {
		return refuse(DetailNotChecked) // one payment per attempt; the gate asks once
	}
	a.agreementFirst = a.agreementFirst && !a.allowed
	if a.protocol == ProtocolMPP && a.req.Header.Get(credentialHeader(ps.Chosen)) != "" {
		return refuse(DetailCredentialHeaderTaken)
	}
	s, err := Summarize(ps)
	if err != nil {
		return err
	}
	a.ps, a.summary = ps, s
	for _, p := range a.policies {
		var err error
		if pp, ok := p.(*Policy); ok && pp != nil {
			err = pp.allowSummarized(ctx, ps, s) // the summary read once
		} else {
			err = p.Allow(ctx, ps)
		}
		if err != nil {
			a.release(ctx)
			return err
		}
		a.passed = append(a.passed, p)
	}
	if f := a.t.Hooks.BeforeSign; f != nil {
		if err := f(ctx, a.req, s); err != nil {
			a.release(ctx)
			var d *gate.Decline
			if errors.As(err, &d) {
				return d
			}
			a.t.logger().InfoContext(ctx, "pay: BeforeSign vetoed", "url", logURL(a.req.URL), "err", err)
			return refuse(DetailVetoed)
		}
	}
	a.allowed = true
	return nil
}

// Commit implements gate.Reserver: a signature left the gate, so what the
// policies that allowed reserved is spent.
func (a *attempt) Commit(ctx context.Context, _ gate.PaymentSummary) {
	for i := len(a.passed) - 1; i >= 0; i-- {
		if r, ok := a.passed[i].(gate.Reserver); ok {
			r.Commit(ctx, a.ps)
		}
	}
	a.passed = nil
}

// Release implements gate.Reserver.
func (a *attempt) Release(ctx context.Context, _ gate.PaymentSummary) { a.release(ctx) }

// release gives back, newest first, what the policies that allowed reserved.
// Once the gate settled the attempt (or after a first release) it does
// nothing.
func (a *attempt) release(ctx context.Context) {
	for i := len(a.passed) - 1; i >= 0; i-- {
		if r, ok := a.passed[i].(gate.Reserver); ok {
			r.Release(ctx, a.ps)
		}
	}
	a.passed = nil
}

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return defaultBase()
}

var zeroGate = &gate.Gate{}

func (t *Transport) gate() *gate.Gate {
	if t.Gate != nil {
		return t.Gate
	}
	return zeroGate
}

var discardLogger = slog.New(slog.DiscardHandler)

func (t *Transport) logger() *slog.Logger {
	if t.Logger != nil {
		return t.Logger
	}
	return discardLogger
}

func (t *Transport) maxReplay() int64 {
	if t.MaxReplayBody > 0 {
		return t.MaxReplayBody
	}
	return DefaultMaxReplayBody
}

func (t *Transport) max402() int64 {
	if t.Max402Body > 0 {
		return t.Max402Body
	}
	return DefaultMax402Body
}

// discard reads at most limit bytes of body and closes it. A body read to
// its end lets the connection be reused; a longer one is cut off.
func discard(body io.ReadCloser, limit int64) {
	if body == nil {
		return
	}
	_, _ = io.CopyN(io.Discard, body, limit)
	body.Close()
}

// origin is scheme://host:port with the default port written out, so that
// https://a.example and https://a.example:443 are one origin.
func origin(u *url.URL) string {
	if u == nil {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// sameOrigin is origin(a) == origin(b) without writing either: it is asked
// on every 402. Text that is not ASCII, where strings.ToLower and
// strings.EqualFold differ, is compared as origin writes it.
func sameOrigin(a, b *url.URL) bool {
	if a == nil || b == nil {
		return a == b
	}
	scheme, ok1 := sameASCIILower(a.Scheme, b.Scheme)
	host, ok2 := sameASCIILower(a.Hostname(), b.Hostname())
	if !ok1 || !ok2 {
		return origin(a) == origin(b)
	}
	return scheme && host && defaultPort(a) == defaultPort(b)
}

// sameASCIILower reports whether a and b are equal once ASCII letters are
// lowered; ok is false when either holds a byte that is not ASCII.
func sameASCIILower(a, b string) (same, ok bool) {
	for i := 0; i < len(a); i++ {
		if a[i] >= 0x80 {
			return false, false
		}
	}
	for i := 0; i < len(b); i++ {
		if b[i] >= 0x80 {
			return false, false
		}
	}
	if len(a) != len(b) {
		return false, true
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false, true
		}
	}
	return true, true
}

// defaultPort is u's port, or the one its scheme implies, as origin writes it.
func defaultPort(u *url.URL) string {
	if port := u.Port(); port != "" {
		return port
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// logURL is the URL without its query, which may hold credentials.
func logURL(u *url.URL) string {
	return u.Scheme + "://" + u.Host + u.EscapedPath()
}
