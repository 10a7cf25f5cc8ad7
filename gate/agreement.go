package gate

import (
	"context"
	"errors"

	"github.com/termsgate/termsgate/agreement"
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// AgreementPayment is the agreement payment shown to the agent for approval
// before anything is signed: {url, option, required}.
type AgreementPayment = agreement.Payment

// AgreementReceipt is the agreement URL's receipt for H.
type AgreementReceipt = agreement.Receipt

// ParseAgreementPayment reads an approved agreement payment from JSON.
// Anything but {url: string, option: object, required: object} is
// no-payable-option, <ns>/input-malformed (ns "x402" when empty).
func ParseAgreementPayment(v jsonv.Value, ns string) (*AgreementPayment, error) {
	if ns == "" {
		ns = "x402"
	}
	p, ok := agreement.ParsePayment(v)
	if !ok {
		return nil, decline(NoPayableOption, ns+"/input-malformed")
	}
	return p, nil
}

// AgreeOptions are the optional parts of Agree. Inputs is a JSON object of
// buyer inputs for the agreement option; anything else is declined.
type AgreeOptions struct {
	Approved *AgreementPayment
	Inputs   jsonv.Value
}

// Agreed is what Agree gives: either the payment to approve (nothing
// signed), or the receipt.
type Agreed struct {
	H       atr.Hash
	Approve *AgreementPayment
	Receipt *AgreementReceipt
}

// Agree runs the agreement exchange for atrBytes at url (docs/protocol.md, "The agreement exchange"):
// the first call (no Approved) makes one unpaid request and returns the
// payment to approve, signing nothing; the second, given that payment
// unchanged, pays it and returns the receipt. Cancelling ctx before the
// payment is sent is agreement-failed; after, agreement-pending with the
// payment kept as moved, to present again later.
func (g *Gate) Agree(ctx context.Context, atrBytes []byte, url string, signer Signer, opts *AgreeOptions) (*Agreed, error) {
	if opts == nil {
		opts = &AgreeOptions{}
	}
	inputs, err := inputsObject(opts.Inputs, "x402")
	if err != nil {
		return nil, err
	}
	if signer == nil {
		return nil, decline(NoPayableOption, "x402/input-malformed")
	}
	return g.agree(ctx, atrBytes, url, signer, opts.Approved, inputs, "")
}

func (g *Gate) agree(ctx context.Context, atrBytes []byte, url string, signer Signer, approved *AgreementPayment, inputs *jsonv.Object, ns string) (*Agreed, error) {
	h := atr.Sum(atrBytes)
	x := &agreement.Exchange{
		Client:   g.fetcher().Client,
		Pairings: g.pairings(),
		Pay:      g.payAgreement,
		Now:      g.Now,
		Sleep:    g.Sleep,
		NewRef:   g.NewRef,
		Progress: func(step string) { progress(ctx, step) },
	}
	res, err := x.Run(ctx, atrBytes, url, signer, agreement.Options{Approved: approved, Inputs: inputs, Namespace: ns})
	if err != nil {
		var f *agreement.Failure
		if errors.As(err, &f) {
			d := decline(Code(f.Code), f.Detail).because(f.Err)
			if f.Moved != nil {
				d.Moved = &Moved{Signed: f.Moved, Bytes: atrBytes, H: h}
			}
			return nil, d
		}
		return nil, err // the gate's own decline from payAgreement
	}
	return &Agreed{H: h, Approve: res.Approve, Receipt: res.Receipt}, nil
}

// payAgreement signs an agreement payment exactly as a main payment is
// signed: built with the hash of the bytes, the policy asked first, H read
// back before it is released.
func (g *Gate) payAgreement(ctx context.Context, p rails.Pairing, chosen rails.Chosen, signer rails.Signer, atrBytes []byte) (jsonv.Value, error) {
	h := atr.Sum(atrBytes)
	u, req, d := build(p, chosen, atrBytes, h)
	if d != nil {
		return nil, d
	}
	held, err := g.allow(ctx, PaymentSummary{Pairing: p.ID(), H: h, Request: req, Chosen: chosen, Rail: p})
	if err != nil {
		return nil, err
	}
	f, err := signSteps(ctx, p, chosen, u, req, signer, atrBytes, h)
	held.settle(ctx, err) // once returned, the exchange sends it: it has left
	if err != nil {
		return nil, err
	}
	return f.Signed, nil
}

// inputsObject reads buyer inputs given as JSON: absent is none, an object is
// the inputs, anything else is declined before anything is fetched.
func inputsObject(v jsonv.Value, ns string) (*jsonv.Object, error) {
	switch x := v.(type) {
	case nil:
		return &jsonv.Object{}, nil
	case *jsonv.Object:
		if x == nil {
			return &jsonv.Object{}, nil
		}
		return x, nil
	default:
		return nil, decline(NoPayableOption, ns+"/input-malformed")
	}
}
