package gate

import (
	"context"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/jsonv"
)

// AgreementPayment is the agreement payment shown to the agent for approval
// before anything is signed: the URL, the option it would pay (amount in
// atomic units, asset, payTo, network) and the whole PAYMENT-REQUIRED
// document it came from.
type AgreementPayment struct {
	URL      string
	Option   *jsonv.Object
	Required *jsonv.Object
}

// JSON is {url, option, required}.
func (a *AgreementPayment) JSON() *jsonv.Object {
	return jsonv.Obj("url", a.URL, "option", a.Option, "required", a.Required)
}

// ParseAgreementPayment reads {url: string, option: object, required: object}.
// Anything else is no approved payment (no-payable-option,
// <ns>/input-malformed, where ns is the caller's namespace).
func ParseAgreementPayment(v jsonv.Value, ns string) (*AgreementPayment, error) {
	o, ok := jsonv.AsObject(v)
	if ns == "" {
		ns = "x402"
	}
	bad := decline(NoPayableOption, ns+"/input-malformed")
	if !ok {
		return nil, bad
	}
	url, ok1 := o.GetString("url")
	option, ok2 := o.GetObject("option")
	required, ok3 := o.GetObject("required")
	if !ok1 || !ok2 || !ok3 {
		return nil, bad
	}
	return &AgreementPayment{URL: url, Option: option, Required: required}, nil
}

// AgreementReceipt is the agreement URL's answer once the agreement payment
// is recorded. It is not authenticated: the public proof is the named
// transaction on network.
type AgreementReceipt struct {
	ATRHash     string
	Network     string
	Transaction string
}

// JSON is {atrHash, agreed: true, network, transaction}.
func (r *AgreementReceipt) JSON() *jsonv.Object {
	return jsonv.Obj("atrHash", r.ATRHash, "agreed", true, "network", r.Network, "transaction", r.Transaction)
}

// AgreeOptions are the optional parts of Agree.
type AgreeOptions struct {
	Approved *AgreementPayment
	Inputs   *jsonv.Object
}

// Agreed is what Agree gives: either the payment to approve (nothing
// signed), or the receipt.
type Agreed struct {
	H       atr.Hash
	Approve *AgreementPayment
	Receipt *AgreementReceipt
}

// Agree runs the agreement exchange for atrBytes at url (upstream-api.md §7):
// the first call (no Approved) makes one unpaid request and returns the
// payment to approve, signing nothing; the second, given that payment
// unchanged, pays it and returns the receipt.
func (g *Gate) Agree(ctx context.Context, atrBytes []byte, url string, signer Signer, opts *AgreeOptions) (*Agreed, error) {
	return g.agree(ctx, atrBytes, url, signer, opts, "")
}

// agree is replaced by the exchange in exchange.go.
func (g *Gate) agree(ctx context.Context, atrBytes []byte, url string, signer Signer, opts *AgreeOptions, ns string) (*Agreed, error) {
	return nil, decline(AgreementFailed, "The agreement exchange is not built yet.")
}
