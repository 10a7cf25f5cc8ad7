// ack/payment-request: H goes in the seller-signed ACK payment request token
// (a compact JWS) as its id, "lcp:sha256:" + H, and beside it, unsigned, as the
// 402 body's legalContext {type: "sha256", value: H, legalContextUrl} (with
// legalContextAgreementUrl, the agreement URL); the two must agree. ACK
// defines no payer signature, so the buyer's gate signs nothing here (no
// signed place for H; Build and Bound refuse ack/no-signed-place) and the
// agreement payment made first is the proof.
package checkout

import (
	"math/big"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

var (
	_ rails.Pairing    = ACK{}
	_ rails.Summarizer = ACK{}
	_ rails.Inspector  = ACK{}
)

// ACK is ack/payment-request.
type ACK struct{}

func (ACK) ID() string { return ACKID }

// Pattern: H is the payment request's own id, but no payer signs it.
func (ACK) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: false} }

// Read reads the payment request body: H from the token's signed id, the
// link and the agreement URL from its legalContext.
func (ACK) Read(doc jsonv.Value) (rails.Read, error) {
	r, err := ACKReadBody(doc)
	if err != nil {
		return rails.Read{}, err
	}
	return rails.Read{H: r.H, Link: r.Link, Agreement: r.Agreement, Required: doc, Options: r.Options}, nil
}

// Choose takes the first payment option.
func (ACK) Choose(read rails.Read, _ string, _ *jsonv.Object, _ int64, _ string) (jsonv.Value, error) {
	if len(read.Options) == 0 {
		return nil, ack("no-payable-option", "the payment request offers no option")
	}
	return jsonv.Obj("option", read.Options[0]), nil
}

func (ACK) Build(jsonv.Value, []byte, atr.Hash) (rails.Unsigned, error) {
	return nil, rails.Refuse("ack/no-signed-place")
}

func (ACK) Request(rails.Unsigned) (rails.Request, error) {
	return nil, rails.Refuse("ack/no-signed-place")
}

func (ACK) Complete(rails.Unsigned, jsonv.Value, rails.Chosen) (rails.Completion, error) {
	return rails.Completion{}, rails.Refuse("ack/no-signed-place")
}

// Bound: ACK has no payer signature, so no payment carries H.
func (ACK) Bound(jsonv.Value) (string, error) { return "", rails.Refuse("ack/no-signed-place") }

// Summarize: the gate builds no signing request (errNothingSigned).
func (ACK) Summarize(rails.Request) (rails.Grant, error) { return rails.Grant{}, errNothingSigned }

// Inspect reads a payment request body the buyer paid against: H from the
// seller-signed token's id (checked against the legalContext, as Read does),
// and the token's first payment option (what Choose takes): its amount,
// currency, network and recipient as the seller signed them. The buyer
// signed nothing.
func (ACK) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	r, err := ACKReadBody(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	if len(r.Options) == 0 {
		return rails.Inspection{}, ack("no-payable-option", "the payment request offers no option")
	}
	g, id, err := ackOption(r.Options[0])
	if err != nil {
		return rails.Inspection{}, err
	}
	return rails.Inspection{Pairing: ACKID, Kind: "payment-request", Grant: g,
		H: r.H, WhereH: "the payment request token's id, lcp:sha256:<H> (legalContext.value beside it agrees)",
		Details: jsonv.Obj("option", id, "signedBy", "the seller (the payment request token); ACK has no payer signature", "proof", noProof)}, nil
}

// ackOption is what a payment option of the seller's token asks: its
// amount, currency, network and recipient, and its id.
func ackOption(v jsonv.Value) (rails.Grant, string, error) {
	opt, _ := jsonv.AsObject(v)
	amount, _ := opt.GetString("amount")
	n, ok := new(big.Int).SetString(amount, 10)
	if !rails.IsDecimal(amount) || !ok {
		return rails.Grant{}, "", ack("option-malformed", "the option's amount is not a decimal string")
	}
	cur, _ := opt.GetString("currency")
	network, _ := opt.GetString("network")
	payee, _ := opt.GetString("recipient")
	id, _ := opt.GetString("id")
	if cur == "" || network == "" || payee == "" || len(cur)+len(network)+len(payee) > 512 {
		return rails.Grant{}, "", ack("option-malformed", "the option names no currency, network or recipient")
	}
	return rails.Grant{Network: network, Asset: cur, Decimals: ackDecimals(network, cur), Amount: n, Payee: payee}, id, nil
}

// ackDecimals: a chain asset's known decimals, else a currency's ISO 4217
// minor units, else unknown; never the option's own decimals (seller text).
func ackDecimals(network, cur string) int {
	if d := rails.KnownDecimals(network, cur); d >= 0 {
		return d
	}
	return currencyDecimals(cur)
}
