package xrpl

// mpp/charge/xrpl: H sits in the signed Payment's InvoiceID field as H's 64
// hex digits (MPPInvoiceID); the placed challenge carries the same value in
// request.methodDetails.invoiceId, and H in its id and opaque. The buyer
// signs the Payment and the seller submits it: InvoiceID is in the
// validated transaction, a public proof of H (docs/xrpl.md).

import (
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Charge is the mpp/charge/xrpl pairing.
type Charge struct{}

// ChargeID is the pairing id.
const ChargeID = mpp.PairingXRPLCharge

func (Charge) ID() string { return ChargeID }

func (Charge) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

func (Charge) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// Choose takes the first challenge offering the pairing on the account's
// network and the inputs fee (decimal), sequence and lastLedgerSequence
// (uint).
func (Charge) Choose(read rails.Read, account string, inputs *jsonv.Object, _ int64, _ string) (jsonv.Value, error) {
	challenge, from, err := chooseMPP(read, account, ChargeID)
	if err != nil {
		return nil, err
	}
	fee, _ := inputs.Get("fee")
	seq, _ := inputs.Get("sequence")
	lls, _ := inputs.Get("lastLedgerSequence")
	if s, ok := fee.(string); !ok || !rails.IsDecimal(s) || !uintInput(seq) || !uintInput(lls) {
		return nil, rails.Refuse(mpp.CodeInputMissing)
	}
	choice := jsonv.Obj("challenge", challenge, "account", from, "fee", fee, "sequence", seq, "lastLedgerSequence", lls)
	if !validUntil(inputs, choice) {
		return nil, rails.Refuse(mpp.CodeInputMissing)
	}
	return choice, nil
}

type chargeUnsigned struct {
	until     int64
	network   string
	challenge *jsonv.Object
	txJSON    *jsonv.Object
}

// Build checks the choice and writes the Payment with H as its InvoiceID.
func (Charge) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, checked, err := chosenFor(choice, h, ChargeID)
	if err != nil {
		return nil, err
	}
	d := checked.Details
	inv, _ := d.GetString("invoiceId")
	if !strings.EqualFold(inv, MPPInvoiceID(h)) {
		return nil, rails.Refuse(CodeCarrierMismatch)
	}
	if d.Has("memos") {
		return nil, rails.Refuse(CodeMemosNotCarried)
	}
	account, okA := c.GetString("account")
	fee, _ := c.GetString("fee")
	sv, _ := c.Get("sequence")
	lv, _ := c.Get("lastLedgerSequence")
	seq, okS := u32(sv)
	lls, okL := u32(lv)
	until, okU := validUntilOf(c)
	if !okA || !isMPPFee(fee) || !okS || !okL || !okU {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	r := checked.Request
	cur, _ := r.Get("currency")
	amount, issued := amountJSON(cur, mpp.String(r, "amount"))
	tx := jsonv.Obj("TransactionType", "Payment", "Flags", 0, "Account", account,
		"Destination", mpp.String(r, "recipient"), "Amount", amount)
	if issued {
		tx.Set("SendMax", jsonv.Clone(amount))
	}
	for _, k := range [][2]string{{"destinationTag", "DestinationTag"}, {"sourceTag", "SourceTag"}} {
		if v, has := d.Get(k[0]); has {
			tx.Set(k[1], jsonv.Clone(v))
		}
	}
	tx.Set("InvoiceID", MPPInvoiceID(h))
	tx.Set("Fee", fee)
	tx.Set("Sequence", jsonv.Number(seq))
	tx.Set("LastLedgerSequence", jsonv.Number(lls))
	challenge, _ := c.GetObject("challenge")
	network, err := mpp.Network(challenge)
	if err != nil {
		return nil, err
	}
	return &chargeUnsigned{until: until, network: network, challenge: challenge, txJSON: tx}, nil
}

func (Charge) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*chargeUnsigned)
	return withValidUntil(jsonv.Obj("kind", KindTx, "network", b.network, "txJson", b.txJSON.Clone()), b.until), nil
}

// Complete checks the signed blob is the built Payment and puts it in the
// credential {challenge, payload: {type: "transaction", blob}}.
func (Charge) Complete(u rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	b := u.(*chargeUnsigned)
	digits, ok := signedDigits(answer)
	if !ok {
		return rails.Completion{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if _, err := checkSigned(digits, b.txJSON); err != nil {
		return rails.Completion{}, err
	}
	cred := jsonv.Obj("challenge", b.challenge.Clone(), "payload", jsonv.Obj("type", "transaction", "blob", digits))
	return rails.Completion{Signed: cred}, nil
}

// boundTx reads a presented credential down to its Payment and the echoed H.
func (Charge) boundTx(presented jsonv.Value) (*Tx, *mpp.Bound, error) {
	e, err := mpp.Echoed(presented, ChargeID)
	if err != nil {
		return nil, nil, err
	}
	typ, _ := e.Payload.GetString("type")
	if typ != "transaction" && typ != "hash" {
		return nil, nil, rails.Refuse(mpp.CodeCredentialType)
	}
	blob, has := e.Payload.Get("blob")
	if !has && typ == "hash" {
		return nil, nil, rails.Refuse(CodeReadFirst)
	}
	tx, err := DecodePresented(blob)
	if err != nil {
		return nil, nil, err
	}
	if tx.Type != "Payment" {
		return nil, nil, rails.Refuse(CodeNotPayment)
	}
	inv, ok := tx.Fields.Get(FieldInvoiceID)
	if !ok {
		return nil, nil, rails.Refuse(CodeNoInvoiceID)
	}
	if !strings.EqualFold(upperHex(inv.Value), mpp.String(e.Checked.Details, "invoiceId")) {
		return nil, nil, rails.Refuse(CodeCarrierMismatch)
	}
	if upperHex(inv.Value) != MPPInvoiceID(e.H) {
		return nil, nil, rails.Refuse(CodeCarrierNotChallenge)
	}
	return tx, e, nil
}

// Bound reads H back: the signed InvoiceID must be the echoed request's
// invoiceId and the echoed challenge's H.
func (p Charge) Bound(presented jsonv.Value) (string, error) {
	_, e, err := p.boundTx(presented)
	if err != nil {
		return "", err
	}
	return e.H.String(), nil
}

// PlaceCharge is the seller's placement of H in an XRPL charge: it sets the
// option's request.methodDetails.invoiceId to MPPInvoiceID(h), re-encoding
// the request canonically (an invoiceId already holding another value is
// xrpl/carrier-occupied), then places id and opaque as every MPP challenge.
func PlaceCharge(doc []jsonv.Value, h atr.Hash, link string, option *jsonv.Object, agreement string) ([]jsonv.Value, error) {
	req, ok := mpp.DecodeObject(mpp.String(option, "request"))
	if !ok {
		return nil, rails.Refuse(mpp.CodeRequestMalformed)
	}
	d, ok := req.GetObject("methodDetails")
	if !ok {
		return nil, rails.Refuse(CodeNetworkMissing)
	}
	if inv, has := d.Get("invoiceId"); has {
		if s, _ := inv.(string); !strings.EqualFold(s, MPPInvoiceID(h)) {
			return nil, rails.Refuse(CodeCarrierOccupied)
		}
	}
	d.Set("invoiceId", MPPInvoiceID(h))
	rewritten := option.Clone()
	rewritten.Set("request", mpp.EncodeObject(req))
	out := make([]jsonv.Value, len(doc))
	for i, c := range doc {
		if o, ok := jsonv.AsObject(c); ok && jsonv.Equal(o, option) {
			out[i] = rewritten
		} else {
			out[i] = c
		}
	}
	return mpp.Place(out, h, link, rewritten, agreement)
}
