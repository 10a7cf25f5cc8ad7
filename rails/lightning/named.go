package lightning

import (
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/x402"
)

// InvoiceNamed is x402/exact/lnbtc/invoice-named. Where H goes: nowhere
// the payer or the node signs. The invoice has no m field; instead the
// ATR's own x402 slot names the option as issued, invoice included, and
// the payment's echoed extensions.legalContext names H. The gate pays only
// an invoice the ATR it fetched names. Nothing public shows the payment,
// so the agreement exchange runs first (docs/lightning.md).
type InvoiceNamed struct{}

// InvoiceNamedID is the pairing id.
const InvoiceNamedID = "x402/exact/lnbtc/invoice-named"

// Refusal codes of the invoice-named pairing.
const (
	CodeInvoiceNotNamed = "ln/invoice-not-named" // the fetched ATR does not name the offered invoice
	CodeNoLegalContext  = "ln/no-legal-context"  // the payment echoes no legal context
)

var (
	_ rails.Pairing    = InvoiceNamed{}
	_ rails.Summarizer = InvoiceNamed{}
	_ rails.Inspector  = InvoiceNamed{}
	_ rails.Mover      = InvoiceNamed{}

	namedServes = withMetadata(false)
)

func (InvoiceNamed) ID() string { return InvoiceNamedID }

func (InvoiceNamed) Pattern() rails.Pattern {
	return rails.Pattern{Name: "http-advisory", PublicProof: false}
}

// Read serves the options whose invoice has no m field.
func (InvoiceNamed) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, namedServes) }

func (InvoiceNamed) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	return chooseX402(read, account, inputs, now)
}

// Build checks the invoice (no m) and the request as x402/exact/lnbtc
// does, then pays it only if the fetched ATR names it.
func (InvoiceNamed) Build(choice jsonv.Value, atrBytes []byte, _ atr.Hash) (rails.Unsigned, error) {
	u, err := buildX402(choice, "", namedServes)
	if err != nil {
		return nil, err
	}
	inv, _ := u.request.GetString("invoice")
	if !ATRNamesInvoice(atrBytes, inv) {
		return nil, rails.Refuse(CodeInvoiceNotNamed)
	}
	return u, nil
}

func (InvoiceNamed) Request(u rails.Unsigned) (rails.Request, error) {
	return u.(*x402Unsigned).request.Clone(), nil
}

func (InvoiceNamed) Moves(first rails.Request) bool {
	k, _ := first.GetString("kind")
	return k == KindBolt11Pay
}

func (InvoiceNamed) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	return completeX402(u, answer, chosen)
}

// Bound is the candidate H: the echoed legal context's value, once the
// paid invoice checks (no m, its request hash, its signer payTo, the
// preimage). The invoice carries no H; what ties it to the ATR is the ATR
// naming it, which Build checked against the bytes it was given.
func (InvoiceNamed) Bound(presented jsonv.Value) (string, error) {
	accepted, _, err := presentedX402(presented)
	if err != nil {
		return "", err
	}
	if _, err := checkOption(accepted, ""); err != nil {
		return "", err
	}
	o, _ := jsonv.AsObject(presented)
	if ext, _ := o.GetObject("extensions"); !ext.Has("legalContext") {
		return "", rails.Refuse(CodeNoLegalContext)
	}
	return x402.EchoedLegalContext(o)
}

func (InvoiceNamed) Summarize(req rails.Request) (rails.Grant, error) { return summarize(req) }

func (p InvoiceNamed) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	return inspectX402(InvoiceNamedID, payment, h,
		"extensions.legalContext.info.value: only echoed; the ATR's x402 slot names the invoice (no public proof: the agreement exchange runs first)")
}

// Reference is what a seller records at claim.
func (InvoiceNamed) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	accepted, in, err := presentedX402(presented)
	if err != nil {
		return nil, err
	}
	if in.Has(fieldM) {
		return nil, rails.Refuse(CodeNotThisPairing)
	}
	return reference(accepted, in), nil
}

// Advertise is the seller's side: the option's invoice checks with no m,
// then doc advertises H (the hash of the ATR that names the option).
func (InvoiceNamed) Advertise(doc *jsonv.Object, h atr.Hash, link string, offer *jsonv.Object, agreement string) (*jsonv.Object, error) {
	if _, ok := lnOption(offer); ok {
		if _, err := checkOption(offer, ""); err != nil {
			return nil, err
		}
	}
	return x402.Advertise(doc, h, link, agreement)
}
