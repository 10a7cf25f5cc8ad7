package lightning

import (
	"encoding/hex"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Session is mpp/session/lightning. Where H goes: the description hash (h
// field) of the deposit invoice at request.depositInvoice, which the
// seller's node signs; the challenge's id and opaque name H too. The
// session's payment is its open action, which pays the deposit invoice and
// registers the payer's return invoice (a BOLT11 invoice without an
// amount, for the refund at close). Later actions (bearer, topUp, close)
// carry no H: they are bound through the session the open started. No
// public proof: the agreement exchange runs first (docs/lightning.md).
type Session struct{}

// SessionID is the pairing id.
const SessionID = "mpp/session/lightning"

// Refusal codes of the Lightning session.
const (
	CodeNoPaymentInAction      = "ln/no-payment-in-action"     // a later action, not the open
	CodeReturnInvoiceMalformed = "ln/return-invoice-malformed" // no BOLT11 return invoice without an amount
)

// SessionNetwork is the one network every Lightning session's channel ref
// names: a later challenge names no invoice to take a network from.
const SessionNetwork = "lightning"

var (
	_ rails.Pairing    = Session{}
	_ rails.Summarizer = Session{}
	_ rails.Inspector  = Session{}
	_ rails.Mover      = Session{}
	_ rails.Channel    = Session{}
)

func (Session) ID() string { return SessionID }

func (Session) Pattern() rails.Pattern {
	return rails.Pattern{Name: "native-field", PublicProof: false}
}

func (Session) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// Choose takes the first session challenge whose deposit invoice is on the
// account's network, and the buyer's return invoice (inputs.returnInvoice).
func (Session) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	a, ok := rails.ParseAccount(account)
	if !ok || a.Namespace != "lnbtc" || !isLowerHex(a.Address, 66) {
		return nil, rails.Refuse(mpp.CodeNoPayableOption)
	}
	ret, ok := inputs.GetString("returnInvoice")
	if !ok {
		return nil, rails.Refuse(mpp.CodeInputMissing)
	}
	for _, v := range read.Options {
		if !mpp.OffersPlaced(v, SessionID) {
			continue
		}
		c, _ := jsonv.AsObject(v)
		req, _ := mpp.DecodeObject(mpp.String(c, "request"))
		in, err := parsed(mpp.String(req, "depositInvoice"))
		if err != nil || currencyNetworks[in.Currency] != a.Network() {
			continue
		}
		return jsonv.Obj("challenge", c.Clone(), "returnInvoice", ret, "now", now), nil
	}
	return nil, rails.Refuse(mpp.CodeNoPayableOption)
}

// sessionChecks are chargeChecks for the session's members: the deposit
// invoice and paymentHash at the top of the request, and no network.
func sessionChecks(c *jsonv.Object, h atr.Hash, placed bool) (*mpp.Checked, *Invoice, error) {
	checked, err := mpp.CheckChallenge(c, placed)
	if err != nil {
		return nil, nil, err
	}
	if !checked.Offers(SessionID) {
		return nil, nil, rails.Refuse(mpp.CodeNotThisPairing)
	}
	in, err := sessionInvoice(checked, h)
	if err != nil {
		return nil, nil, err
	}
	return checked, in, nil
}

// sessionInvoice is sessionChecks after the challenge checked and offered
// the pairing (Build has that from mpp.CheckChosen).
func sessionInvoice(checked *mpp.Checked, h atr.Hash) (*Invoice, error) {
	in, err := depositInvoice(checked, h)
	if err != nil {
		return nil, err
	}
	if in.Description != nil {
		return nil, rails.Refuse(CodeDescriptionInline)
	}
	if checked.Request.Has("description") {
		return nil, rails.Refuse(CodeDescriptionPresent)
	}
	if checked.Expires > in.ExpiresAt() {
		return nil, rails.Refuse(CodeExpiresAfterInvoice)
	}
	return in, nil
}

// depositInvoice reads the request's deposit invoice: it verifies, its h
// is H, and its payment hash is the request's.
func depositInvoice(checked *mpp.Checked, h atr.Hash) (*Invoice, error) {
	inv, ok := checked.Request.GetString("depositInvoice")
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
	if ph, _ := checked.Request.GetString("paymentHash"); ph != hex.EncodeToString(in.PaymentHash[:]) {
		return nil, rails.Refuse(CodePaymentHashMismatch)
	}
	return in, nil
}

// returnInvoice: a BOLT11 invoice with no amount, on the deposit's
// currency.
func returnInvoice(v jsonv.Value, deposit *Invoice) (string, error) {
	s, ok := jsonv.AsString(v)
	if !ok {
		return "", rails.Refuse(CodeReturnInvoiceMalformed)
	}
	in, err := Decode(s)
	if err != nil || in.AmountMsat != nil || in.Currency != deposit.Currency {
		return "", rails.Refuse(CodeReturnInvoiceMalformed)
	}
	return s, nil
}

type sessionUnsigned struct {
	challenge *jsonv.Object
	invoice   *Invoice
	ret       string
	request   rails.Request
}

// Build checks the chosen challenge and its deposit invoice against h,
// unexpired at the choice's time, and the return invoice, and asks the
// node to pay the deposit.
func (Session) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, ok := jsonv.AsObject(choice)
	challenge, ok2 := c.GetObject("challenge")
	now, ok3 := jsonv.AsSafeInt(mustGet(c, "now"))
	if !ok || !ok2 || !ok3 {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	checked, err := mpp.CheckChosen(challenge, SessionID, h)
	if err != nil {
		return nil, err
	}
	in, err := sessionInvoice(checked, h)
	if err != nil {
		return nil, err
	}
	rv, _ := c.Get("returnInvoice")
	ret, err := returnInvoice(rv, in)
	if err != nil {
		return nil, err
	}
	if err := fresh(in, now); err != nil {
		return nil, err
	}
	inv, _ := checked.Request.GetString("depositInvoice")
	return &sessionUnsigned{challenge: challenge, invoice: in, ret: ret,
		request: jsonv.Obj("kind", KindBolt11Pay, "invoice", inv)}, nil
}

func (Session) Request(u rails.Unsigned) (rails.Request, error) {
	return u.(*sessionUnsigned).request.Clone(), nil
}

func (Session) Moves(first rails.Request) bool {
	k, _ := first.GetString("kind")
	return k == KindBolt11Pay
}

// Complete joins the preimage: the open action {challenge, payload:
// {action: "open", preimage, returnInvoice}}.
func (Session) Complete(u rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	b := u.(*sessionUnsigned)
	p, err := preimage(answer, b.invoice)
	if err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: jsonv.Obj("challenge", b.challenge.Clone(),
		"payload", jsonv.Obj("action", "open", "preimage", p, "returnInvoice", b.ret))}, nil
}

// opened reads a presented open action: the echoed challenge, its deposit
// invoice with H as h and the request's payment hash, the open action, its
// preimage paying the invoice and its return invoice.
func (Session) opened(presented jsonv.Value) (*mpp.Bound, *Invoice, error) {
	e, err := mpp.Echoed(presented, SessionID)
	if err != nil {
		return nil, nil, err
	}
	in, err := depositInvoice(e.Checked, e.H)
	if err != nil {
		return nil, nil, err
	}
	if a, _ := e.Payload.GetString("action"); a != "open" {
		return nil, nil, rails.Refuse(CodeNoPaymentInAction)
	}
	pv, _ := e.Payload.Get("preimage")
	if _, err := preimage(pv, in); err != nil {
		return nil, nil, err
	}
	rv, _ := e.Payload.Get("returnInvoice")
	if _, err := returnInvoice(rv, in); err != nil {
		return nil, nil, err
	}
	return e, in, nil
}

// Bound is the echoed challenge's H, held to the deposit invoice the open
// paid. Only the open is the session's payment.
func (p Session) Bound(presented jsonv.Value) (string, error) {
	e, _, err := p.opened(presented)
	if err != nil {
		return "", err
	}
	return e.H.String(), nil
}

func (Session) Summarize(req rails.Request) (rails.Grant, error) { return summarize(req) }

func (p Session) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	e, in, err := p.opened(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	inv, _ := e.Checked.Request.GetString("depositInvoice")
	g, err := summarize(jsonv.Obj("kind", KindBolt11Pay, "invoice", inv))
	if err != nil {
		return rails.Inspection{}, err
	}
	return rails.Inspection{Pairing: SessionID, Kind: "channel-open", Grant: g, H: e.H.String(),
		WhereH:  "challenge.request.depositInvoice: the BOLT11 deposit invoice's description hash (h), signed by the seller's node; also the challenge id",
		Details: jsonv.Obj("session", hex.EncodeToString(in.PaymentHash[:]), "pricePerUnit", mpp.String(e.Checked.Request, "amount"))}, nil
}

// ChannelKind: open opens the session; bearer and topUp are within it;
// close ends it.
func (Session) ChannelKind(signed jsonv.Value) (rails.ChannelKind, error) {
	o, _ := jsonv.AsObject(signed)
	payload, ok := o.GetObject("payload")
	if !ok {
		return "", rails.Refuse(mpp.CodeCredentialMalformed)
	}
	switch a, _ := payload.GetString("action"); a {
	case "open":
		return rails.ChannelOpen, nil
	case "bearer", "topUp":
		return rails.ChannelWithin, nil
	case "close":
		return rails.ChannelClose, nil
	}
	return "", rails.Refuse("mpp/session-action")
}

// ChannelRef is the session id: the open's challenge paymentHash, else the
// payload's sessionId, in lowercase hex, on SessionNetwork.
func (p Session) ChannelRef(signed jsonv.Value) (rails.ChannelRef, error) {
	k, err := p.ChannelKind(signed)
	if err != nil {
		return rails.ChannelRef{}, err
	}
	o, _ := jsonv.AsObject(signed)
	var id string
	if k == rails.ChannelOpen {
		c, _ := o.GetObject("challenge")
		req, _ := mpp.DecodeObject(mpp.String(c, "request"))
		id = mpp.String(req, "paymentHash")
	} else {
		payload, _ := o.GetObject("payload")
		id = mpp.String(payload, "sessionId")
	}
	if len(id) != 64 || !isHexAnyCase(id) {
		return rails.ChannelRef{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	return rails.ChannelRef{Network: SessionNetwork, Channel: lowerASCII(id)}, nil
}

// BoundWithin: a bearer proof is the deposit preimage and a topUp pays a
// new invoice; neither carries H.
func (Session) BoundWithin(jsonv.Value) (string, error) {
	return "", rails.Refuse("mpp" + rails.SuffixNotBoundWithin)
}

// Advertise is the seller's side: the session challenge as issued passes
// the buyer's checks of its deposit invoice against h, then is placed.
func (Session) Advertise(doc []jsonv.Value, h atr.Hash, link string, offer *jsonv.Object, agreement string) ([]jsonv.Value, error) {
	if _, _, err := sessionChecks(offer, h, false); err != nil {
		return nil, err
	}
	return mpp.Place(doc, h, link, offer, agreement)
}

// UnplacedSessionRequest is a session request without its deposit invoice.
func UnplacedSessionRequest(req *jsonv.Object) *jsonv.Object {
	out := req.Clone()
	out.Delete("depositInvoice")
	return out
}

func isHexAnyCase(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}
