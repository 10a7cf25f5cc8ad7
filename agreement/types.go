// Package agreement runs the agreement exchange (docs/protocol.md, "The agreement exchange"): for a
// pairing whose payment is no public proof of H (a card, a checkout in which
// the buyer signs nothing), the offer names an agreement URL, an x402
// resource for the same H whose payment is a public proof. The buyer pays
// that first and signs the main payment only once the agreement URL answers
// with a receipt for H.
//
// The exchange takes two calls. The first makes one unpaid request, reads the
// 402, chooses the option and returns it for approval, signing nothing. The
// second, given that approval unchanged, pays it without a second unpaid
// request and returns the receipt.
//
// agreement does not import gate: the gate hands it a Pay function that signs
// and reads back a payment, and turns its failures into declines.
package agreement

import (
	"github.com/termsgate/termsgate/jsonv"
)

// Payment is an agreement payment shown for approval: the URL, the option it
// pays (amount in atomic units, asset, payTo, network) exactly as served, and
// the whole PAYMENT-REQUIRED document.
type Payment struct {
	URL      string
	Option   *jsonv.Object
	Required *jsonv.Object
}

// JSON is {url, option, required}.
func (p *Payment) JSON() *jsonv.Object {
	return jsonv.Obj("url", p.URL, "option", p.Option, "required", p.Required)
}

// ParsePayment reads {url: string, option: object, required: object}; ok is
// false for anything else.
func ParsePayment(v jsonv.Value) (*Payment, bool) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, false
	}
	url, ok1 := o.GetString("url")
	option, ok2 := o.GetObject("option")
	required, ok3 := o.GetObject("required")
	if !ok1 || !ok2 || !ok3 {
		return nil, false
	}
	return &Payment{URL: url, Option: option, Required: required}, true
}

// Receipt is the agreement URL's answer once the agreement is recorded. It is
// not authenticated: the public proof is Transaction on Network.
type Receipt struct {
	ATRHash     string // as the agreement URL wrote it
	Network     string
	Transaction string
}

// JSON is {atrHash, agreed: true, network, transaction}.
func (r *Receipt) JSON() *jsonv.Object {
	return jsonv.Obj("atrHash", r.ATRHash, "agreed", true, "network", r.Network, "transaction", r.Transaction)
}

// Failure is how the exchange ends when it ends without a receipt. Code is a
// gate decline code; Moved is the agreement payment when it was already sent.
// Err is the cause behind Detail (the transport error, the status), for
// people and logs; the vectors pin Code and Detail, so it stays out of them.
type Failure struct {
	Code   string
	Detail string
	Moved  jsonv.Value
	Err    error
}

func (f *Failure) Error() string { return f.Code + ": " + f.Detail }

// Unwrap returns the cause.
func (f *Failure) Unwrap() error { return f.Err }

// The decline codes the exchange ends in, as the gate names them.
const (
	CodeFailed          = "agreement-failed"
	CodePending         = "agreement-pending"
	CodeLinkNotHTTPS    = "link-not-https"
	CodeNoPayableOption = "no-payable-option"
	CodeOfferUnreadable = "offer-unreadable"
	CodeHashMismatch    = "hash-mismatch"
)

// The detail sentences the vectors pin, exactly.
const (
	DetailRedirect         = "The agreement URL answered with a redirect."
	DetailCoding           = "The agreement URL served a content coding other than identity."
	DetailReceiptTooLarge  = "The agreement receipt is larger than 64 KiB."
	DetailUnreachable      = "The agreement URL could not be reached."
	DetailSettling         = "An agreement payment for this ATR is already settling."
	DetailNoRequired       = "The agreement URL answered 402 without a readable PAYMENT-REQUIRED."
	DetailNoReceipt        = "The agreement URL answered 200 without a JSON receipt."
	DetailReceiptOtherHash = "The agreement receipt names another ATR hash."
	DetailNotRecorded      = "The agreement receipt is not a recorded agreement."
	DetailOtherURL         = "The approved agreement payment names another agreement URL."
	DetailNothingToSign    = "The agreement payment gave nothing to sign."
	DetailNotYetRecorded   = "The agreement payment was sent and is not yet recorded."
	DetailSignalBefore     = "The caller's signal ended the agreement exchange before the payment was sent."
	DetailSignalAfter      = "The caller's signal ended the exchange after the agreement payment was sent."
	DetailNotHTTPS         = "The agreement URL is not an https URL."
	DetailOtherHash        = "The agreement challenge advertises another ATR hash."
)
