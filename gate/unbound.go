package gate

import (
	"context"
	"crypto/rand"
	"errors"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// DetailUnboundNotSupported starts the detail of a decline for a pairing
// that pays no offer without terms; UnboundNotSupported writes it whole.
const DetailUnboundNotSupported = "gate/unbound-not-supported"

// UnboundNotSupported is the no-payable-option detail for a pairing that
// cannot pay an offer without terms: "gate/unbound-not-supported: unbound
// payment not supported for <pairing>".
func UnboundNotSupported(pairing string) string {
	return DetailUnboundNotSupported + ": unbound payment not supported for " + pairing
}

// DetailUnboundNonce is the signed-not-bound detail of an unbound payment
// whose completed form does not carry the nonce it was built with.
const DetailUnboundNonce = "What was signed does not carry the nonce it was built with."

// TransactUnbound pays an offer that publishes no terms: nothing is fetched
// and no H is bound, so the payment binds the buyer to nothing it could
// read first (docs/protocol.md, "Unbound payments"). Calling it is the
// opt-in; Transact never falls back to it. Only a pairing that implements
// rails.Unbound pays such an offer (others decline no-payable-option,
// UnboundNotSupported), and a document that does advertise terms is
// refused by the pairing's ReadUnbound.
//
// The order is Transact's without the ATR: read, choose, build (for x402
// exact, 32 bytes from crypto/rand as the EIP-3009 nonce), the policy asked
// with PaymentSummary.Unbound set, one signature, and the completed
// payment's nonce read back and compared with the one built.
func (g *Gate) TransactUnbound(ctx context.Context, doc jsonv.Value, pairing string, signer Signer, opts *TransactOptions) (*Transacted, error) {
	p, d := g.lookup(pairing)
	if d != nil {
		return nil, d
	}
	ns := rails.Namespace(pairing)
	ub, ok := p.(rails.Unbound)
	if !ok {
		return nil, decline(NoPayableOption, UnboundNotSupported(pairing))
	}
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
	read, err := call(ns+"/read-failed", func() (rails.Read, error) { return ub.ReadUnbound(doc) })
	if err != nil {
		return nil, decline(OfferUnreadable, refusalCode(err))
	}
	ref := g.newRef()
	choice, err := call(ns+"/no-payable-option", func() (jsonv.Value, error) {
		return p.Choose(read, signer.Account(), inputs, g.now(), ref)
	})
	if err != nil {
		return nil, decline(NoPayableOption, refusalCode(err))
	}
	chosen := rails.Chosen{Pairing: pairing, Choice: choice, Ref: ref}
	var random [32]byte
	if _, err := rand.Read(random[:]); err != nil {
		return nil, decline(NoPayableOption, ns+"/build-failed").because(err)
	}
	type built struct {
		u     rails.Unsigned
		nonce string
	}
	b, err := call(ns+"/build-failed", func() (built, error) {
		u, nonce, err := ub.BuildUnbound(choice, random)
		return built{u, nonce}, err
	})
	if err != nil {
		return nil, decline(OfferUnreadable, refusalCode(err))
	}
	req, err := call(ns+"/build-failed", func() (rails.Request, error) { return p.Request(b.u) })
	if err != nil {
		return nil, decline(OfferUnreadable, refusalCode(err))
	}
	held, err := g.allow(ctx, PaymentSummary{Pairing: pairing, Request: req, Chosen: chosen, Rail: p, Unbound: true})
	if err != nil {
		return nil, err
	}
	if f := progressOf(ctx); f != nil {
		f("asking the signer to sign a " + kindOf(req) + " request (unbound: the offer publishes no terms)")
	}
	answer, err := signSafely(ctx, signer, req)
	if err != nil {
		err = decline(SignerFailed, DetailSignerFailed).because(err)
		held.settle(ctx, err)
		return nil, err
	}
	done, err := protect(func() (rails.Completion, error) { return p.Complete(b.u, answer, chosen) })
	switch {
	case errors.Is(err, errThrew):
		err = decline(SignedNotBound, DetailNotCompleted)
	case err != nil:
		err = decline(SignedNotBound, refusalCode(err))
	case done.Next != nil:
		err = decline(SignedNotBound, DetailTooManySignatures)
	}
	if err == nil {
		got, rerr := call("bound-failed", func() (string, error) { return ub.UnboundNonce(done.Signed) })
		if rerr != nil || got != b.nonce {
			err = decline(SignedNotBound, DetailUnboundNonce)
		}
	}
	// Nothing signed left the gate on a decline (these pairings move no
	// value themselves), so what the policy reserved is released.
	held.settle(ctx, err)
	if err != nil {
		return nil, err
	}
	return &Transacted{Signed: done.Signed, Unbound: true, Nonce: b.nonce}, nil
}
