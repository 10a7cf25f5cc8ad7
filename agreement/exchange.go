package agreement

import (
	"context"
	"errors"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/x402"
)

// Bounds of the exchange (docs/protocol.md, "The agreement exchange").
const (
	UnpaidDeadline   = 10 * time.Second
	ExchangeSlack    = 180 * time.Second // added to maxTimeoutSeconds for the whole paid loop
	MaxReceiptBytes  = 64 << 10
	RetryAfterAbsent = 2 * time.Second // after a 202 without a usable Retry-After, a 5xx or no answer
)

// PaidDeadline is one paid request's deadline for an option whose
// maxTimeoutSeconds is mts: min(mts, 120) + 60 + 10 seconds.
func PaidDeadline(mts int64) time.Duration {
	return time.Duration(min(mts, 120)+70) * time.Second
}

// PayFunc builds the chosen agreement payment with the hash of atrBytes,
// signs it and reads H back (the gate's own signing steps). It returns the
// payment, nil when there was nothing to sign, or the gate's decline.
type PayFunc func(ctx context.Context, p rails.Pairing, chosen rails.Chosen, signer rails.Signer, atrBytes []byte) (jsonv.Value, error)

// Exchange holds what the exchange needs from outside. Now and Sleep are
// injected so that tests cover minutes of simulated time in milliseconds.
type Exchange struct {
	Client   atr.Doer
	Pairings *rails.Registry
	Pay      PayFunc
	Now      func() time.Time
	Sleep    func(ctx context.Context, d time.Duration) error
	NewRef   func() string
	Progress func(step string)
}

// Options are the optional parts of Run.
type Options struct {
	Approved *Payment
	Inputs   *jsonv.Object
	// Namespace is the main pairing's namespace when Transact runs the
	// exchange; empty when agree is called directly. It only shapes details.
	Namespace string
}

// Result is a payment to approve (nothing signed) or the receipt.
type Result struct {
	Approve *Payment
	Receipt *Receipt
}

// Run runs the exchange for atrBytes at url. Its failures are *Failure
// values, or the declines the Pay function returned.
func (x *Exchange) Run(ctx context.Context, atrBytes []byte, url string, signer rails.Signer, opts Options) (*Result, error) {
	if v := atr.CheckLink(url); v != atr.LinkOK {
		detail := DetailNotHTTPS
		if opts.Namespace != "" {
			detail = opts.Namespace + "/legal-context-malformed"
			if v == atr.LinkOtherScheme {
				detail = opts.Namespace + "/link-not-https"
			}
		}
		return nil, &Failure{Code: CodeLinkNotHTTPS, Detail: detail}
	}
	if ctx.Err() != nil {
		return nil, &Failure{Code: CodeFailed, Detail: DetailSignalBefore}
	}
	h := atr.Sum(atrBytes)
	if opts.Approved == nil {
		return x.discover(ctx, atrBytes, h, url, signer, opts)
	}
	return x.pay(ctx, atrBytes, h, url, signer, opts)
}

// discover makes the one unpaid request and returns what to approve.
func (x *Exchange) discover(ctx context.Context, atrBytes []byte, h atr.Hash, url string, signer rails.Signer, opts Options) (*Result, error) {
	x.progress("asking the agreement URL for its terms")
	ans, fail := x.get(ctx, url, "", UnpaidDeadline)
	if ctx.Err() != nil {
		return nil, &Failure{Code: CodeFailed, Detail: DetailSignalBefore}
	}
	if fail != nil {
		return nil, fail
	}
	switch {
	case !ans.answered:
		return nil, &Failure{Code: CodeFailed, Detail: DetailUnreachable, Err: ans.err}
	case ans.status == 200:
		r, fail := receipt(ans.body, h)
		if fail != nil {
			return nil, fail
		}
		return &Result{Receipt: r}, nil
	case ans.status == 202:
		return nil, &Failure{Code: CodePending, Detail: DetailSettling}
	case ans.status != 402:
		return nil, &Failure{Code: CodeFailed, Detail: statusDetail(ans.status, false)}
	}
	required, err := x402.DecodeHeader(ans.required)
	if ans.required == "" || err != nil {
		return nil, &Failure{Code: CodeFailed, Detail: DetailNoRequired}
	}
	sel, err := x.selectOption(required, signer, opts.Inputs, h)
	if err != nil {
		return nil, err
	}
	return &Result{Approve: &Payment{URL: url, Option: sel.option, Required: required}}, nil
}

// pay pays an approved agreement payment and waits for its receipt.
func (x *Exchange) pay(ctx context.Context, atrBytes []byte, h atr.Hash, url string, signer rails.Signer, opts Options) (*Result, error) {
	approved := opts.Approved
	if approved.URL != url {
		return nil, &Failure{Code: CodeFailed, Detail: DetailOtherURL}
	}
	// The approved document is the agent's decision: it is not fetched again,
	// but it must still advertise this H and be payable with a public proof.
	doc := approved.Required.Clone()
	doc.Set("accepts", []jsonv.Value{approved.Option.Clone()})
	sel, err := x.selectOption(doc, signer, opts.Inputs, h)
	if err != nil {
		return nil, err
	}
	x.progress("signing the approved agreement payment")
	signed, err := x.Pay(ctx, sel.pairing, sel.chosen, signer, atrBytes)
	if err != nil {
		return nil, err
	}
	if signed == nil {
		return nil, &Failure{Code: CodeOfferUnreadable, Detail: DetailNothingToSign}
	}
	if ctx.Err() != nil {
		return nil, &Failure{Code: CodeFailed, Detail: DetailSignalBefore}
	}
	// From here on the payment is out: every failure carries it as moved.
	header := x402.EncodeHeader(signed)
	moved := func(code, detail string) *Failure { return &Failure{Code: code, Detail: detail, Moved: signed} }
	end := x.now().Add(time.Duration(sel.maxTimeout)*time.Second + ExchangeSlack)
	for attempt := 1; ; attempt++ {
		remaining := end.Sub(x.now())
		if remaining <= 0 {
			return nil, moved(CodePending, DetailNotYetRecorded)
		}
		x.progress("presenting the agreement payment (attempt " + itoa(attempt) + ", " + itoa(int(remaining.Round(time.Second)/time.Second)) + " s of the window left)")
		ans, fail := x.get(ctx, url, header, min(PaidDeadline(sel.maxTimeout), remaining))
		if ctx.Err() != nil {
			return nil, moved(CodePending, DetailSignalAfter)
		}
		if fail != nil {
			return nil, moved(fail.Code, fail.Detail)
		}
		wait := RetryAfterAbsent
		if ans.answered && ans.status < 500 {
			switch ans.status {
			case 200:
				r, fail := receipt(ans.body, h)
				if fail != nil {
					return nil, moved(fail.Code, fail.Detail)
				}
				return &Result{Receipt: r}, nil
			case 202:
				wait = retryAfter(ans.retryAfter)
			default:
				return nil, moved(CodeFailed, statusDetail(ans.status, true))
			}
		}
		if err := x.sleep(ctx, min(wait, end.Sub(x.now()))); err != nil || ctx.Err() != nil {
			return nil, moved(CodePending, DetailSignalAfter)
		}
	}
}

type selected struct {
	pairing    rails.Pairing
	chosen     rails.Chosen
	option     *jsonv.Object
	maxTimeout int64
}

// selectOption picks the first option, in document order, that the signer
// can pay with a public-proof x402 pairing, then checks the option's
// maxTimeoutSeconds and that the document advertises H.
func (x *Exchange) selectOption(doc *jsonv.Object, signer rails.Signer, inputs *jsonv.Object, h atr.Hash) (*selected, error) {
	acc, _ := doc.Get("accepts")
	accepts, ok := jsonv.AsArray(acc)
	if !ok || len(accepts) == 0 {
		return nil, &Failure{Code: CodeOfferUnreadable, Detail: x402.CodeNoPayableOption}
	}
	if len(accepts) > x402.MaxOptions {
		return nil, &Failure{Code: CodeOfferUnreadable, Detail: x402.CodeOptionMalformed}
	}
	if inputs == nil {
		inputs = &jsonv.Object{}
	}
	var unreadable, unpayable string
	var now int64
	if x.Now != nil {
		now = x.Now().Unix()
	} else {
		now = time.Now().Unix()
	}
	for _, a := range accepts {
		option, ok := jsonv.AsObject(a)
		if !ok {
			continue
		}
		single := doc.Clone()
		single.Set("accepts", []jsonv.Value{option})
		p, read, ok := x.readOption(single, &unreadable)
		if !ok || !p.Pattern().PublicProof {
			continue
		}
		ref := x.newRef()
		choice, err := safeChoose(p, read, signer.Account(), inputs, now, ref)
		if err != nil {
			if unpayable == "" {
				unpayable = code(err)
			}
			continue
		}
		mts, ok := jsonv.AsSafeInt(mustGet(option, "maxTimeoutSeconds"))
		if !ok || mts < 1 {
			return nil, &Failure{Code: CodeOfferUnreadable, Detail: x402.CodeOptionMalformed}
		}
		if !atr.EqualText(read.H, h) {
			return nil, &Failure{Code: CodeHashMismatch, Detail: DetailOtherHash}
		}
		return &selected{
			pairing: p, option: option, maxTimeout: mts,
			chosen: rails.Chosen{Pairing: p.ID(), Choice: choice, Ref: ref},
		}, nil
	}
	if unpayable == "" && unreadable != "" {
		return nil, &Failure{Code: CodeOfferUnreadable, Detail: unreadable}
	}
	if unpayable == "" {
		unpayable = x402.CodeNoPayableOption
	}
	return nil, &Failure{Code: CodeNoPayableOption, Detail: unpayable}
}

// readOption tries every x402 pairing, in registry order, on a document
// holding one option; the first whose read accepts it wins.
func (x *Exchange) readOption(doc *jsonv.Object, unreadable *string) (rails.Pairing, rails.Read, bool) {
	for _, p := range x.Pairings.All() {
		if rails.Namespace(p.ID()) != "x402" {
			continue
		}
		read, err := safeRead(p, doc)
		if err == nil {
			return p, read, true
		}
		if c := code(err); c != x402.CodeNoPayableOption && *unreadable == "" {
			*unreadable = c
		}
	}
	return nil, rails.Read{}, false
}

// receipt checks a 200 body: strict UTF-8 JSON (no byte-order mark), an
// object naming H, agreed true, network and transaction strings.
func receipt(body []byte, h atr.Hash) (*Receipt, *Failure) {
	v, err := jsonv.Parse(body)
	o, ok := jsonv.AsObject(v)
	if err != nil || !ok {
		return nil, &Failure{Code: CodeFailed, Detail: DetailNoReceipt}
	}
	hash, ok := o.GetString("atrHash")
	if !ok || !atr.EqualText(hash, h) {
		return nil, &Failure{Code: CodeFailed, Detail: DetailReceiptOtherHash}
	}
	agreed, _ := o.Get("agreed")
	network, ok1 := o.GetString("network")
	tx, ok2 := o.GetString("transaction")
	if agreed != true || !ok1 || !ok2 {
		return nil, &Failure{Code: CodeFailed, Detail: DetailNotRecorded}
	}
	return &Receipt{ATRHash: hash, Network: network, Transaction: tx}, nil
}

func (x *Exchange) now() time.Time {
	if x.Now != nil {
		return x.Now()
	}
	return time.Now()
}

func (x *Exchange) newRef() string {
	if x.NewRef != nil {
		return x.NewRef()
	}
	return rails.NewRef()
}

func (x *Exchange) progress(step string) {
	if x.Progress != nil {
		x.Progress(step)
	}
}

func (x *Exchange) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if x.Sleep != nil {
		return x.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func mustGet(o *jsonv.Object, k string) jsonv.Value { v, _ := o.Get(k); return v }

func code(err error) string {
	var r *rails.Refusal
	if errors.As(err, &r) {
		return r.Code
	}
	return "x402/no-payable-option"
}

// safeRead and safeChoose keep a pairing's panic on a hostile document from
// escaping the exchange: a panic reads as "this pairing cannot read it".
func safeRead(p rails.Pairing, doc jsonv.Value) (r rails.Read, err error) {
	defer func() {
		if recover() != nil {
			r, err = rails.Read{}, rails.Refuse(rails.Namespace(p.ID())+"/read-failed")
		}
	}()
	return p.Read(doc)
}

func safeChoose(p rails.Pairing, read rails.Read, account string, inputs *jsonv.Object, now int64, ref string) (c jsonv.Value, err error) {
	defer func() {
		if recover() != nil {
			c, err = nil, rails.Refuse(rails.Namespace(p.ID())+"/no-payable-option")
		}
	}()
	return p.Choose(read, account, inputs, now, ref)
}
