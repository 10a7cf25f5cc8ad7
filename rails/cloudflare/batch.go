// Package cloudflare holds x402/batch-settlement/cloudflare: Cloudflare's
// pay-per-crawl batch settlement, where the agent's registered HTTP message
// signature key signs the request that carries the payment and Cloudflare
// bills the agent's identity off chain (docs/batch-settlement.md).
package cloudflare

import (
	"errors"
	"math/big"
	"regexp"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/x402"
)

// Batch is x402/batch-settlement/cloudflare. Where H goes: the payment
// echoes the document's extensions, so its legalContext names H; the gate
// calls no signer, since the agent's HTTP stack signs the request that
// carries the payment. Nothing public proves H was agreed to, so the gate
// runs the agreement exchange before paying (docs/agreement.md).
type Batch struct{}

// ID is the pairing id; Network the one network it pays on.
const (
	ID      = "x402/batch-settlement/cloudflare"
	Network = "cloudflare:402"
)

var (
	_ rails.Pairing    = Batch{}
	_ rails.Summarizer = Batch{}
	_ rails.Inspector  = Batch{}

	// account is cloudflare:402: and a CAIP-10 account reference naming
	// the agent.
	account  = regexp.MustCompile(`^cloudflare:402:[-.%a-zA-Z0-9]{1,128}$`)
	currency = regexp.MustCompile(`^[A-Z]{3}$`)
)

func (Batch) ID() string { return ID }

// Pattern: the payment is no public proof, so the agreement exchange runs
// first.
func (Batch) Pattern() rails.Pattern {
	return rails.Pattern{Name: "protocol-extension", PublicProof: false}
}

// serves is the option filter: batch-settlement on cloudflare:402, paid to
// "merchant" in a three-letter currency, with an extra.version.
func (Batch) serves(o *jsonv.Object) bool {
	if s, _ := o.GetString("scheme"); s != x402.SchemeBatch {
		return false
	}
	extra, ok := o.GetObject("extra")
	if !ok || !extra.Has("version") {
		return false
	}
	n, _ := o.GetString("network")
	payTo, _ := o.GetString("payTo")
	asset, _ := o.GetString("asset")
	return n == Network && payTo == "merchant" && currency.MatchString(asset)
}

func (p Batch) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, p.serves) }

// Choose takes the first served option for a cloudflare:402 agent account.
func (Batch) Choose(read rails.Read, acct string, _ *jsonv.Object, _ int64, _ string) (jsonv.Value, error) {
	if !account.MatchString(acct) || len(read.Options) == 0 {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	return jsonv.Obj("required", read.Required, "accepted", read.Options[0]), nil
}

// Build is the payment itself: {x402Version, payload: {amount, asset},
// accepted, extensions} with the document's extensions echoed, once their
// legal context names h (x402/legal-context-conflict otherwise).
func (p Batch) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	required, ok1 := c.GetObject("required")
	accepted, ok2 := c.GetObject("accepted")
	if !ok1 || !ok2 {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	if err := x402.Chosen(required, accepted, p.serves); err != nil {
		return nil, err
	}
	named, _, _, err := x402.LegalContext(required)
	if err != nil {
		return nil, err
	}
	if !atr.EqualText(named, h) {
		return nil, rails.Refuse(x402.CodeLegalContextConflict)
	}
	amount, _ := accepted.GetString("amount")
	asset, _ := accepted.GetString("asset")
	ext, _ := required.Get("extensions")
	return jsonv.Obj("x402Version", 2, "payload", jsonv.Obj("amount", amount, "asset", asset),
		"accepted", accepted.Clone(), "extensions", jsonv.Clone(ext)), nil
}

// Request: there is nothing for the gate's signer to sign.
func (Batch) Request(rails.Unsigned) (rails.Request, error) {
	return nil, rails.Refuse(x402.CodeNothingToSign)
}

// Complete appends the payment identifier where the document advertises
// one; no signature is joined.
func (Batch) Complete(u rails.Unsigned, _ jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	payment := u.(*jsonv.Object).Clone()
	c, _ := jsonv.AsObject(chosen.Choice)
	required, _ := c.GetObject("required")
	if err := x402.AppendPaymentIdentifier(payment, required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// Bound reads H back from the echoed legal context.
func (p Batch) Bound(presented jsonv.Value) (string, error) {
	o, ok := jsonv.AsObject(presented)
	if !ok {
		return "", rails.Refuse(x402.CodeNotV2)
	}
	if v, _ := o.Get("x402Version"); v != jsonv.Number(2) {
		return "", rails.Refuse(x402.CodeNotV2)
	}
	accepted, ok := o.GetObject("accepted")
	if !ok || !p.serves(accepted) {
		return "", rails.Refuse(x402.CodeOptionNotThisPairing)
	}
	h, _, _, err := x402.LegalContext(o)
	return h, err
}

var errNothingSigned = errors.New("cloudflare: the gate signs nothing for this pairing; the agent's HTTP message signature pays")

// Summarize: the gate builds no signing request for this pairing, so there
// is none to summarize; Grant describes the payment itself.
func (Batch) Summarize(rails.Request) (rails.Grant, error) { return rails.Grant{}, errNothingSigned }

// Grant is what a built payment charges: the option's amount of its
// currency (in the currency's minor units as Cloudflare states them), to
// the merchant.
func (p Batch) Grant(payment jsonv.Value) (rails.Grant, error) {
	if _, err := p.Bound(payment); err != nil {
		return rails.Grant{}, err
	}
	o, _ := jsonv.AsObject(payment)
	accepted, _ := o.GetObject("accepted")
	s, _ := accepted.GetString("amount")
	amount, ok := new(big.Int).SetString(s, 10)
	if !rails.IsDecimal(s) || !ok {
		return rails.Grant{}, rails.Refuse(x402.CodeOptionMalformed)
	}
	asset, _ := accepted.GetString("asset")
	return rails.Grant{Network: Network, Asset: asset, Decimals: -1, Amount: amount, Payee: "merchant"}, nil
}

// Inspect shows what a payment charges (Grant) and where H sits.
func (p Batch) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	g, err := p.Grant(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	return rails.Inspection{Pairing: ID, Kind: "payment", Grant: g, H: h,
		WhereH: "extensions.legalContext.info.value"}, nil
}
