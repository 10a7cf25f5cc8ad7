package gate

import (
	"context"
	"errors"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// MaxSignerCalls is the most signatures one payment takes (a funding, then a
// voucher).
const MaxSignerCalls = 2

// TransactOptions are the optional parts of Transact.
type TransactOptions struct {
	// Inputs are the buyer's inputs as JSON: nil, or an object.
	Inputs jsonv.Value
	// AgreementSigner pays the agreement payment; nil means the main signer.
	AgreementSigner Signer
	// Approved is the agreement payment a previous Transact returned in
	// Approve, passed back unchanged once the agent approved it.
	Approved *AgreementPayment
	// Chose, when set, is the pairing's read of doc and its choice for the
	// signer's account, made by the caller just before this call with
	// Inputs, the gate's clock and a fresh ref (pay.Transport reads and
	// chooses to pick the pairing): Transact uses them instead of reading
	// and choosing again, and runs every later check as it would. A Choice
	// for another pairing is ignored.
	Chose *Choice
}

// Choice is a pairing's Read of a document and the Choose that followed it.
type Choice struct {
	Read   rails.Read
	Chosen rails.Chosen // Pairing, Choice and Ref as Choose was given them
}

// Transacted is a signed payment whose read-back carried H, with the ATR
// bytes it agrees to. Signed is nil when the pairing had nothing for the
// buyer to sign.
//
// When the pairing needs the agreement exchange and no approved agreement
// payment was passed, Transact signs nothing and returns Approve: the
// agreement payment to show the agent, to pass back as
// TransactOptions.Approved.
type Transacted struct {
	Signed    jsonv.Value
	Landed    jsonv.Value
	Bytes     []byte
	H         atr.Hash
	Agreement *AgreementReceipt // the receipt, when an agreement was paid
	Approve   *AgreementPayment // set (and nothing signed) when approval is needed
	// Unbound is set by TransactUnbound: the offer published no terms,
	// Bytes is nil, H zero, and the payment carries Nonce instead of H.
	Unbound bool
	Nonce   string
}

// Transact confirms the offer, runs the agreement exchange when the pairing's
// payment is no public proof, asks the policy, signs with signer and
// finishes (docs/protocol.md, "Transact"). The signer is called only after the ATR's
// hash matched (and, where one is needed, after the agreement's receipt), at
// most twice for the payment.
func (g *Gate) Transact(ctx context.Context, doc jsonv.Value, pairing string, signer Signer, opts *TransactOptions) (*Transacted, error) {
	p, d := g.lookup(pairing)
	if d != nil {
		return nil, d
	}
	ns := rails.Namespace(pairing)
	if opts == nil {
		opts = &TransactOptions{}
	}
	inputs, err := inputsObject(opts.Inputs, ns)
	if err != nil {
		return nil, err
	}
	if signer == nil {
		return nil, decline(NoPayableOption, ns+"/input-malformed")
	}
	// A pairing that needs the agreement exchange leaves cancellation to
	// the exchange (docs/agreement.md): the ATR is still fetched, within
	// its own deadline, so that a cancelled call declines agreement-failed
	// with nothing sent rather than atr-unfetchable.
	fetchCtx := ctx
	if !p.Pattern().PublicProof {
		fetchCtx = context.WithoutCancel(ctx)
	}
	var pre *Choice
	if opts.Chose != nil && opts.Chose.Chosen.Pairing == pairing && opts.Chose.Chosen.Choice != nil {
		pre = opts.Chose
	}
	c, _, err := g.confirm(fetchCtx, doc, p, signer.Account(), inputs, pre)
	if err != nil {
		return nil, err
	}
	out := &Transacted{Bytes: c.Bytes, H: c.H}
	// A confirm-only payment (a checkout) commits the buyer when it is
	// returned: the policy is asked about what it commits to first, before
	// the agreement is paid, and what it reserved is kept only if the
	// payment is returned.
	var committed reservation
	if _, ok := p.(rails.ConfirmSummarizer); ok && c.Request == nil {
		if committed, err = g.allow(ctx, PaymentSummary{Pairing: pairing, H: c.H, Chosen: c.Chosen, Rail: p, ConfirmOnly: true}); err != nil {
			return nil, err
		}
	}
	if c.Chosen.Agreement != "" {
		payer := opts.AgreementSigner
		if payer == nil {
			payer = signer
		}
		agreed, err := g.agree(ctx, c.Bytes, c.Chosen.Agreement, payer, opts.Approved, inputs, ns)
		if err != nil {
			committed.settle(ctx, errNotConfirmed)
			return nil, err
		}
		if agreed.Receipt == nil {
			committed.settle(ctx, errNotConfirmed)
			out.Approve = agreed.Approve
			return out, nil
		}
		out.Agreement = agreed.Receipt
	}
	held, err := g.allow(ctx, PaymentSummary{Pairing: pairing, H: c.H, Request: c.Request, Chosen: c.Chosen, Rail: p})
	if err != nil {
		return nil, err
	}
	f, err := signSteps(ctx, p, c.Chosen, c.unsigned, c.Request, signer, c.Bytes, c.H)
	held.settle(ctx, err)
	if err != nil {
		committed.settle(ctx, errNotConfirmed)
		return nil, err
	}
	committed.settle(ctx, nil)
	out.Signed, out.Landed = f.Signed, f.Landed
	return out, nil
}

// errNotConfirmed settles a confirm-only payment's reservation as released:
// the payment was not returned.
var errNotConfirmed = errors.New("gate: the confirm-only payment was not returned")

// allow asks the policy about a payment about to be signed. When it allows,
// the caller calls settle on the reservation once with the outcome of the
// signing: nil or a decline that kept the payment as moved commits what the
// policy reserved, any other error releases it.
func (g *Gate) allow(ctx context.Context, ps PaymentSummary) (reservation, error) {
	if g.Policy == nil || ps.Request == nil && !ps.ConfirmOnly {
		return reservation{}, nil
	}
	progress(ctx, "asking the policy")
	if err := g.Policy.Allow(ctx, ps); err != nil {
		var d *Decline
		if errors.As(err, &d) {
			return reservation{}, d
		}
		return reservation{}, decline(NoPayableOption, err.Error())
	}
	r, ok := g.Policy.(Reserver)
	if !ok {
		return reservation{}, nil
	}
	return reservation{r: r, ps: ps}, nil
}

// reservation is what a Reserver policy holds for one payment it allowed,
// until settle. A value the caller keeps, not a closure: a closure and the
// summary it captured were two allocations on every payment.
type reservation struct {
	r  Reserver // nil: nothing is held
	ps PaymentSummary
}

// settle commits (err nil, or a decline that kept the payment as moved) or
// releases what the policy reserved; after the first call it does nothing.
func (s *reservation) settle(ctx context.Context, err error) {
	r := s.r
	if r == nil {
		return
	}
	s.r = nil
	if err == nil || keptMoved(err) {
		r.Commit(ctx, s.ps)
	} else {
		r.Release(ctx, s.ps)
	}
}

// keptMoved reports a decline that kept the payment as moved (its
// signature may have left). Its own function, so that the target
// errors.As needs is made only on a decline.
func keptMoved(err error) bool {
	var d *Decline
	return errors.As(err, &d) && d.Moved != nil
}

// signSteps drives the signer through at most MaxSignerCalls requests,
// finishing after each answer (docs/protocol.md, "Transact", the signing steps).
// u is the unsigned payment first was made from (nil: built again); only
// the first answer completes it, a later step builds afresh as Finish does.
func signSteps(ctx context.Context, p rails.Pairing, chosen rails.Chosen, u rails.Unsigned, first rails.Request, signer Signer, bytes []byte, h atr.Hash) (*Finished, error) {
	if first == nil {
		f, err := finish(p, bytes, h, chosen, nil, nil)
		if err != nil {
			var d *Decline
			if errors.As(err, &d) && nothingToSign(d.Detail) {
				return &Finished{H: h}, nil
			}
			return nil, err
		}
		if f.Next != nil {
			return nil, decline(SignedNotBound, DetailUnaskedSignature)
		}
		return f, nil
	}
	moves := false
	if m, ok := p.(rails.Mover); ok {
		// Asked before the signer: a pairing that cannot say whether its
		// signer moves value is a build that failed, and nothing is signed.
		mv, err := callIn(rails.Namespace(p.ID()), "/build-failed", func() (bool, error) { return m.Moves(first), nil })
		if err != nil {
			return nil, decline(OfferUnreadable, refusalCode(err))
		}
		moves = mv
	}
	var answers []jsonv.Value
	soFar := func() *Moved {
		if !moves || len(answers) == 0 {
			return nil
		}
		if len(answers) == 1 {
			return &Moved{Signed: answers[0], Bytes: bytes, H: h}
		}
		return &Moved{Signed: append([]jsonv.Value(nil), answers...), Bytes: bytes, H: h}
	}
	req := first
	for range MaxSignerCalls {
		if f := progressOf(ctx); f != nil {
			f("asking the signer to sign a " + kindOf(req) + " request")
		}
		answer, err := signSafely(ctx, signer, req)
		if err != nil {
			return nil, decline(SignerFailed, DetailSignerFailed).because(err).with(soFar())
		}
		answers = append(answers, answer)
		var sig jsonv.Value = answers[0]
		if len(answers) > 1 {
			sig = append([]jsonv.Value(nil), answers...)
		}
		var pre *prebuilt
		if len(answers) == 1 && u != nil {
			pre = &prebuilt{u: u, moves: moves}
		}
		f, err := finish(p, bytes, h, chosen, sig, pre)
		if err != nil {
			return nil, err
		}
		if f.Next == nil {
			return f, nil
		}
		req = f.Next
	}
	return nil, decline(SignedNotBound, DetailTooManySignatures).with(soFar())
}

func kindOf(req rails.Request) string {
	k, _ := req.GetString("kind")
	return k
}
