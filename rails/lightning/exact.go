package lightning

import (
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/x402"
)

// Exact is x402/exact/lnbtc. Where H goes: the m (payment metadata) field
// of the BOLT11 invoice in the option's extra.invoice, which the seller's
// node signs; the invoice's description hash is x402's request hash. The
// payer signs nothing, its node pays the invoice, so nothing public shows
// the payment: the gate runs the agreement exchange first
// (docs/lightning.md).
type Exact struct{}

// ExactID is the pairing id.
const ExactID = "x402/exact/lnbtc"

var (
	_ rails.Pairing    = Exact{}
	_ rails.Summarizer = Exact{}
	_ rails.Inspector  = Exact{}
	_ rails.Mover      = Exact{}

	exactServes = withMetadata(true)
)

func (Exact) ID() string { return ExactID }

// Pattern: H sits in a field the seller signs, not the payer; the payment
// is no public proof.
func (Exact) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: false} }

// Read serves the options whose invoice carries an m field.
func (Exact) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, exactServes) }

// Choose: a Lightning node account on the option's network, and the
// buyer's own request (inputs.request) hashing to the option's requestHash.
func (Exact) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	return chooseX402(read, account, inputs, now)
}

// Build checks the invoice against h (its m), the request and the clock,
// and asks the payer's node to pay it.
func (Exact) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	return buildX402(choice, h.String(), exactServes)
}

func (Exact) Request(u rails.Unsigned) (rails.Request, error) {
	return u.(*x402Unsigned).request.Clone(), nil
}

// Moves: the node pays when it answers, so a decline after it keeps the
// preimage.
func (Exact) Moves(first rails.Request) bool {
	k, _ := first.GetString("kind")
	return k == KindBolt11Pay
}

// Complete joins the preimage: x402's payload {preimage}.
func (Exact) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	return completeX402(u, answer, chosen)
}

// Bound reads H from the paid invoice's m field, once the invoice verifies
// under payTo and the preimage pays it.
func (Exact) Bound(presented jsonv.Value) (string, error) {
	_, in, err := presentedX402(presented)
	if err != nil {
		return "", err
	}
	return in.Metadata32()
}

func (Exact) Summarize(req rails.Request) (rails.Grant, error) { return summarize(req) }

// Inspect states what the paid invoice granted and where H sits.
func (p Exact) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	return inspectX402(ExactID, payment, h, "accepted.extra.invoice: the BOLT11 invoice's m (payment metadata) field, signed by the seller's node")
}

// Reference is what a seller records at claim (network, payment hash,
// settle-by time).
func (Exact) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	accepted, in, err := presentedX402(presented)
	if err != nil {
		return nil, err
	}
	if _, err := in.Metadata32(); err != nil {
		return nil, err
	}
	return reference(accepted, in), nil
}

// Unplaced is the option without extra.invoice, the dynamic field that
// carries H: what a seller's issued digest is taken over.
func Unplaced(option *jsonv.Object) *jsonv.Object {
	out := option.Clone()
	if extra, ok := out.GetObject("extra"); ok && extra.Has("invoice") {
		e := extra.Clone()
		e.Delete("invoice")
		out.Set("extra", e)
	}
	return out
}

// Advertise is the seller's side: doc advertising H at link (and the
// agreement URL), once its option's invoice carries H in m and passes every
// check the buyer makes of it.
func (Exact) Advertise(doc *jsonv.Object, h atr.Hash, link string, offer *jsonv.Object, agreement string) (*jsonv.Object, error) {
	placed, err := x402.Advertise(doc, h, link, agreement)
	if err != nil {
		return nil, err
	}
	if _, ok := lnOption(offer); !ok {
		return nil, rails.Refuse(x402.CodeOptionNotThisPairing)
	}
	if _, err := checkOption(offer, h.String()); err != nil {
		return nil, err
	}
	return placed, nil
}
