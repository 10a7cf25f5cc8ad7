package card

// card/seller-reference. Where H goes: nowhere the buyer signs. The seller
// shows {legalContext: {type: sha256, value: H, legalContextUrl}} before
// payment and places lcp:sha256:<H> in its card processor's reference
// (advisory: the processor's record is the seller's report).

import (
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// SellerReference is card/seller-reference: confirm-only. The gate checks
// the terms and runs the agreement exchange; the buyer then pays by card
// with nothing to sign here (request null, Build refuses
// card/no-signed-place).
type SellerReference struct{}

var (
	_ rails.Pairing    = SellerReference{}
	_ rails.Summarizer = SellerReference{}
	_ rails.Inspector  = SellerReference{}
)

func (SellerReference) ID() string { return SellerReferenceID }

func (SellerReference) Pattern() rails.Pattern { return noProof("http-advisory") }

func (SellerReference) Read(doc jsonv.Value) (rails.Read, error) { return readShown(doc) }

func (SellerReference) Choose(read rails.Read, account string, _ *jsonv.Object, _ int64, _ string) (jsonv.Value, error) {
	return chooseDoc(read, account)
}

// Build: nothing the buyer signs has a place for H.
func (SellerReference) Build(jsonv.Value, []byte, atr.Hash) (rails.Unsigned, error) {
	return nil, refuse(CodeNoSignedPlace)
}

func (SellerReference) Request(rails.Unsigned) (rails.Request, error) {
	return nil, refuse(CodeNoSignedPlace)
}

func (SellerReference) Complete(rails.Unsigned, jsonv.Value, rails.Chosen) (rails.Completion, error) {
	return rails.Completion{}, refuse(CodeNoSignedPlace)
}

// Bound: no payment carries H.
func (SellerReference) Bound(jsonv.Value) (string, error) { return "", refuse(CodeNoSignedPlace) }

// Summarize: there is never a request to summarize.
func (SellerReference) Summarize(rails.Request) (rails.Grant, error) {
	return rails.Grant{}, refuse(CodeNoSignedPlace)
}

// Inspect reads a processor's record of the charge as the seller reports
// it: {reference: lcp:sha256:<H>, amount, currency, merchant, panLastFour?}.
// It is advisory (the seller's report, not a buyer's signature); a card
// number in it is shown by its last four digits only.
func (SellerReference) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	return InspectReference(SellerReferenceID, payment)
}
