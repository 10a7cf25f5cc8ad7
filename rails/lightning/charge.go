package lightning

import (
	"encoding/hex"
	"math/big"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Charge is mpp/charge/lightning. Where H goes: the description hash (h
// field) of the BOLT11 invoice in the challenge's
// request.methodDetails.invoice, which the seller's node signs; the
// challenge's id and opaque name H too. The payer signs nothing: its node
// pays the invoice and the credential carries the preimage. Nothing public
// shows the payment, so the agreement exchange runs first
// (docs/lightning.md, "MPP").
type Charge struct{}

// ChargeID is the pairing id.
const ChargeID = mpp.PairingLightning

// Refusal codes of the MPP Lightning pairings.
const (
	CodeCarrierNotChallenge = "mpp/carrier-not-challenge" // the invoice's h is not the challenge's H
	CodeDescriptionPresent  = "ln/description-present"    // the request has a description beside the invoice's hash
	CodePaymentHashMismatch = "ln/payment-hash-mismatch"  // the request's paymentHash is not the invoice's
	CodeExpiresAfterInvoice = "ln/expires-after-invoice"  // the challenge outlives its invoice
)

// mppNetworks maps MPP Lightning's methodDetails.network to a BOLT11
// currency, and currencyNames back.
var (
	mppNetworks   = map[string]string{"mainnet": "bc", "signet": "tbs", "regtest": "bcrt"}
	currencyNames = map[string]string{"bc": "mainnet", "tb": "testnet", "tbs": "signet", "bcrt": "regtest"}
)

var (
	_ rails.Pairing    = Charge{}
	_ rails.Summarizer = Charge{}
	_ rails.Inspector  = Charge{}
	_ rails.Mover      = Charge{}
)

func (Charge) ID() string { return ChargeID }

func (Charge) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: false} }

func (Charge) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// Choose takes the first challenge offering the pairing whose invoice is
// on the account's network, for a Lightning node account.
func (Charge) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	a, ok := rails.ParseAccount(account)
	if !ok || a.Namespace != "lnbtc" || !isLowerHex(a.Address, 66) {
		return nil, rails.Refuse(mpp.CodeNoPayableOption)
	}
	for _, v := range read.Options {
		if !mpp.OffersPlaced(v, ChargeID) {
			continue
		}
		c, _ := jsonv.AsObject(v)
		req, _ := mpp.DecodeObject(mpp.String(c, "request"))
		d, _ := req.GetObject("methodDetails")
		in, err := parsed(mpp.String(d, "invoice"))
		if err != nil || currencyNetworks[in.Currency] != a.Network() {
			continue
		}
		return jsonv.Obj("challenge", c.Clone(), "now", now), nil
	}
	return nil, rails.Refuse(mpp.CodeNoPayableOption)
}

// chargeChecks are the checks of what the seller's node wrote, in the
// reference gates' order: the challenge and its method (placed or as
// issued), the invoice decodes and verifies, its one h is H, it has no d,
// the request has no description, its paymentHash is the invoice's, its
// network (when named) is the invoice's currency, and expires is no later
// than the invoice's own expiry; then the amount in sat is the invoice's.
func chargeChecks(c *jsonv.Object, h atr.Hash, placed bool) (*mpp.Checked, *Invoice, error) {
	checked, err := mpp.CheckChallenge(c, placed)
	if err != nil {
		return nil, nil, err
	}
	if !checked.Offers(ChargeID) {
		return nil, nil, rails.Refuse(mpp.CodeNotThisPairing)
	}
	in, err := chargeInvoice(checked, h)
	if err != nil {
		return nil, nil, err
	}
	return checked, in, nil
}

// chargeInvoice is chargeChecks after the challenge checked and offered
// the pairing: Build has that from mpp.CheckChosen and does not check the
// challenge a second time.
func chargeInvoice(checked *mpp.Checked, h atr.Hash) (*Invoice, error) {
	inv, ok := checked.Details.GetString("invoice")
	if !ok {
		return nil, rails.Refuse(CodeInvoiceMalformed)
	}
	in, err := Decode(inv)
	if err != nil {
		return nil, err
	}
	if d, err := in.DescriptionHash32(); err != nil || d != h.String() {
		return nil, rails.Refuse(CodeCarrierNotChallenge)
	}
	if in.Description != nil {
		return nil, rails.Refuse(CodeDescriptionInline)
	}
	if checked.Request.Has("description") {
		return nil, rails.Refuse(CodeDescriptionPresent)
	}
	if ph, _ := checked.Details.GetString("paymentHash"); ph != hex.EncodeToString(in.PaymentHash[:]) {
		return nil, rails.Refuse(CodePaymentHashMismatch)
	}
	if n, has := checked.Details.Get("network"); has {
		if s, _ := n.(string); mppNetworks[s] != in.Currency || s == "" {
			return nil, rails.Refuse(CodeCurrencyNetwork)
		}
	}
	if checked.Expires > in.ExpiresAt() {
		return nil, rails.Refuse(CodeExpiresAfterInvoice)
	}
	sat, ok := new(big.Int).SetString(mpp.String(checked.Request, "amount"), 10)
	if !ok || in.AmountMsat == nil || new(big.Int).Mul(sat, big.NewInt(1000)).Cmp(in.AmountMsat) != 0 {
		return nil, rails.Refuse(CodeAmountMismatch)
	}
	return in, nil
}

type chargeUnsigned struct {
	challenge *jsonv.Object
	invoice   *Invoice
	request   rails.Request
}

// Build checks the chosen challenge (its id names h) and its invoice
// against h, unexpired at the choice's time, and asks the node to pay it.
func (Charge) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, ok := jsonv.AsObject(choice)
	challenge, ok2 := c.GetObject("challenge")
	now, ok3 := jsonv.AsSafeInt(mustGet(c, "now"))
	if !ok || !ok2 || !ok3 {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	checked, err := mpp.CheckChosen(challenge, ChargeID, h)
	if err != nil {
		return nil, err
	}
	in, err := chargeInvoice(checked, h)
	if err != nil {
		return nil, err
	}
	if err := fresh(in, now); err != nil {
		return nil, err
	}
	inv, _ := checked.Details.GetString("invoice")
	return &chargeUnsigned{challenge: challenge, invoice: in, request: jsonv.Obj("kind", KindBolt11Pay, "invoice", inv)}, nil
}

func (Charge) Request(u rails.Unsigned) (rails.Request, error) {
	return u.(*chargeUnsigned).request.Clone(), nil
}

func (Charge) Moves(first rails.Request) bool {
	k, _ := first.GetString("kind")
	return k == KindBolt11Pay
}

// Complete joins the preimage: the credential {challenge, payload:
// {preimage}}.
func (Charge) Complete(u rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	b := u.(*chargeUnsigned)
	p, err := preimage(answer, b.invoice)
	if err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: jsonv.Obj("challenge", b.challenge.Clone(), "payload", jsonv.Obj("preimage", p))}, nil
}

// paid reads a presented credential: the echoed challenge (its id and
// opaque naming H, offering this pairing), its invoice verifying with H as
// its h and the request's payment hash, and a preimage that pays it.
func (Charge) paid(presented jsonv.Value) (*mpp.Bound, *Invoice, error) {
	e, err := mpp.Echoed(presented, ChargeID)
	if err != nil {
		return nil, nil, err
	}
	inv, ok := e.Checked.Details.GetString("invoice")
	if !ok {
		return nil, nil, rails.Refuse(CodeInvoiceMalformed)
	}
	in, err := Decode(inv)
	if err != nil {
		return nil, nil, err
	}
	if d, err := in.DescriptionHash32(); err != nil || d != e.H.String() {
		return nil, nil, rails.Refuse(CodeCarrierNotChallenge)
	}
	if ph, _ := e.Checked.Details.GetString("paymentHash"); ph != hex.EncodeToString(in.PaymentHash[:]) {
		return nil, nil, rails.Refuse(CodePaymentHashMismatch)
	}
	pv, _ := e.Payload.Get("preimage")
	if _, err := preimage(pv, in); err != nil {
		return nil, nil, err
	}
	return e, in, nil
}

// Bound is the echoed challenge's H, held to the invoice that was paid.
func (p Charge) Bound(presented jsonv.Value) (string, error) {
	e, _, err := p.paid(presented)
	if err != nil {
		return "", err
	}
	return e.H.String(), nil
}

func (Charge) Summarize(req rails.Request) (rails.Grant, error) { return summarize(req) }

// Inspect states what the paid invoice granted and where H sits.
func (p Charge) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	e, in, err := p.paid(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	inv, _ := e.Checked.Details.GetString("invoice")
	g, err := summarize(jsonv.Obj("kind", KindBolt11Pay, "invoice", inv))
	if err != nil {
		return rails.Inspection{}, err
	}
	return rails.Inspection{Pairing: ChargeID, Kind: "credential", Grant: g, H: e.H.String(),
		WhereH:  "challenge.request.methodDetails.invoice: the BOLT11 invoice's description hash (h), signed by the seller's node; also the challenge id",
		Details: jsonv.Obj("paymentHash", hex.EncodeToString(in.PaymentHash[:]), "realm", mpp.String(e.Challenge, "realm"))}, nil
}

// Reference is what a seller records: the network the challenge names
// (else the invoice currency's), the payment hash, and the invoice's
// expiry as the settle-by time.
func (p Charge) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	e, in, err := p.paid(presented)
	if err != nil {
		return nil, err
	}
	network, ok := e.Checked.Details.GetString("network")
	if !ok {
		network = currencyNames[in.Currency]
	}
	return jsonv.Obj("network", network, "paymentHash", hex.EncodeToString(in.PaymentHash[:]), "settleBy", in.ExpiresAt()), nil
}

// Advertise is the seller's side: the challenge as issued passes every
// check the buyer makes of its invoice against h, then is placed (id,
// opaque, the agreement URL).
func (Charge) Advertise(doc []jsonv.Value, h atr.Hash, link string, offer *jsonv.Object, agreement string) ([]jsonv.Value, error) {
	if _, _, err := chargeChecks(offer, h, false); err != nil {
		return nil, err
	}
	return mpp.Place(doc, h, link, offer, agreement)
}

// UnplacedCharge is the challenge without its invoice (the request
// re-encoded): what a seller's issued digest is taken over.
func UnplacedCharge(c *jsonv.Object) *jsonv.Object {
	req, ok := mpp.DecodeObject(mpp.String(c, "request"))
	if !ok {
		return c
	}
	d, ok := req.GetObject("methodDetails")
	if !ok {
		return c
	}
	d = d.Clone()
	d.Delete("invoice")
	req = req.Clone()
	req.Set("methodDetails", d)
	out := c.Clone()
	out.Set("request", mpp.EncodeObject(req))
	return out
}
