package gate

import (
	"context"
	"errors"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// MaxSignerCalls is the most signatures one payment takes (a funding, then a
// voucher).
const MaxSignerCalls = 2

// TransactOptions are the optional parts of Transact.
type TransactOptions struct {
	Inputs *jsonv.Object
	// AgreementSigner pays the agreement payment; nil means the main signer.
	AgreementSigner Signer
	// Approved is the agreement payment a previous Transact returned in
	// Approve, passed back unchanged once the agent approved it.
	Approved *AgreementPayment
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
}

// Transact confirms the offer, asks the policy, signs with signer and
// finishes (upstream-api.md §2.4). The signer is called only after the ATR's
// hash matched, at most twice.
func (g *Gate) Transact(ctx context.Context, doc jsonv.Value, pairing string, signer Signer, opts *TransactOptions) (*Transacted, error) {
	if _, d := g.lookup(pairing); d != nil {
		return nil, d
	}
	if signer == nil {
		return nil, decline(NoPayableOption, rails.Namespace(pairing)+"/input-malformed")
	}
	var inputs *jsonv.Object
	if opts != nil {
		inputs = opts.Inputs
	}
	c, p, err := g.confirm(ctx, doc, pairing, signer.Account(), inputs)
	if err != nil {
		return nil, err
	}
	if c.Chosen.Agreement != "" {
		// The agreement exchange (pay the public-proof agreement first) is not
		// in this build: refuse rather than sign a payment that proves nothing.
		return nil, decline(AgreementFailed, "This gate cannot run the agreement exchange the pairing needs.")
	}
	if g.Policy != nil && c.Request != nil {
		if err := g.Policy.Allow(ctx, PaymentSummary{Pairing: pairing, H: c.H, Request: c.Request, Chosen: c.Chosen}); err != nil {
			var d *Decline
			if errors.As(err, &d) {
				return nil, d
			}
			return nil, decline(NoPayableOption, err.Error())
		}
	}
	f, err := signSteps(ctx, p, c.Chosen, c.Request, signer, c.Bytes, c.H)
	if err != nil {
		return nil, err
	}
	return &Transacted{Signed: f.Signed, Landed: f.Landed, Bytes: c.Bytes, H: c.H}, nil
}

// signSteps drives the signer through at most MaxSignerCalls requests,
// finishing after each answer (upstream-api.md §2.7).
func signSteps(ctx context.Context, p rails.Pairing, chosen rails.Chosen, first rails.Request, signer Signer, bytes []byte, h atr.Hash) (*Finished, error) {
	if first == nil {
		f, err := finish(p, bytes, chosen, nil)
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
		moves = m.Moves(first)
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
		answer, err := protect(func() (jsonv.Value, error) { return signer.Sign(ctx, req) })
		if err != nil {
			return nil, decline(SignerFailed, DetailSignerFailed).with(soFar())
		}
		answers = append(answers, answer)
		var sig jsonv.Value = answers[0]
		if len(answers) > 1 {
			sig = append([]jsonv.Value(nil), answers...)
		}
		f, err := finish(p, bytes, chosen, sig)
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
