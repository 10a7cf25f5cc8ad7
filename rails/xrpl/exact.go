package xrpl

// x402/exact/xrpl: H sits in the signed Payment's InvoiceID field, as
// SHA-256 of H's LCP string "lcp:sha256:0x…" (X402InvoiceID); the option
// carries that LCP string in extra.invoiceId. InvoiceID is part of what the
// payer signs and of the validated transaction, so the payment is a public
// proof of H (docs/xrpl.md).

import (
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

// Exact is the x402/exact/xrpl pairing.
type Exact struct{}

// ExactID is the pairing id.
const ExactID = "x402/exact/xrpl"

// CodeX402InputMissing is x402's refusal of missing or mistyped buyer inputs.
const CodeX402InputMissing = "x402/input-missing"

func (Exact) ID() string { return ExactID }

func (Exact) Pattern() rails.Pattern { return rails.Pattern{Name: "id-reuse", PublicProof: true} }

// serves is the option filter: exact on an xrpl network, fees not sponsored,
// a sequence or ticket transfer, an invoiceId that is a string if present.
func (Exact) serves(o *jsonv.Object) bool {
	if s, _ := o.GetString("scheme"); s != "exact" {
		return false
	}
	if n, _ := o.GetString("network"); !validNetwork(n) {
		return false
	}
	extra, ok := o.GetObject("extra")
	if !ok {
		return false
	}
	if v, has := extra.Get("areFeesSponsored"); !has || v != false {
		return false
	}
	if m, has := extra.Get("assetTransferMethod"); has && m != "sequence" && m != "ticketSequence" {
		return false
	}
	if v, has := extra.Get("invoiceId"); has {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}

func validNetwork(n string) bool { _, ok := NetworkID(n); return ok }

func (p Exact) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, p.serves) }

func ticketMode(accepted *jsonv.Object) bool {
	extra, _ := accepted.GetObject("extra")
	m, _ := extra.GetString("assetTransferMethod")
	return m == "ticketSequence"
}

// Choose takes the first served option on the account's network and the
// inputs fee (decimal), sequence or ticketSequence (uint) and
// lastLedgerSequence (uint).
func (Exact) Choose(read rails.Read, account string, inputs *jsonv.Object, _ int64, _ string) (jsonv.Value, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "xrpl" || !IsAddressShape(acct.Address) {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	for _, opt := range read.Options {
		o, _ := jsonv.AsObject(opt)
		if n, _ := o.GetString("network"); n != acct.Network() {
			continue
		}
		seqKey := "sequence"
		if ticketMode(o) {
			seqKey = "ticketSequence"
		}
		fee, _ := inputs.Get("fee")
		seq, _ := inputs.Get(seqKey)
		lls, _ := inputs.Get("lastLedgerSequence")
		if s, ok := fee.(string); !ok || !rails.IsDecimal(s) || !uintInput(seq) || !uintInput(lls) {
			return nil, rails.Refuse(CodeX402InputMissing)
		}
		choice := jsonv.Obj("required", read.Required, "accepted", o, "account", acct.Address,
			"fee", fee, seqKey, seq, "lastLedgerSequence", lls)
		if !validUntil(inputs, choice) {
			return nil, rails.Refuse(CodeX402InputMissing)
		}
		return choice, nil
	}
	return nil, rails.Refuse(x402.CodeNoPayableOption)
}

type exactUnsigned struct {
	until              int64
	required, accepted *jsonv.Object
	txJSON             *jsonv.Object
}

// isFee is a fee in drops: ^[1-9][0-9]{0,16}$.
func isFee(s string) bool {
	return len(s) >= 1 && len(s) <= 17 && s[0] != '0' && rails.IsDecimal(s)
}

func isIssuedValue(s string) bool {
	i, f, point := strings.Cut(s, ".")
	return i != "" && rails.IsDecimal(i) && (!point || (f != "" && allDigits(f)))
}

// Build checks the choice and writes the Payment with H as its InvoiceID.
func (p Exact) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, required, accepted, err := x402.ChosenOption(choice, p.serves)
	if err != nil {
		return nil, err
	}
	malformed := rails.Refuse(x402.CodeOptionMalformed)
	amount, ok1 := accepted.GetString("amount")
	asset, ok2 := accepted.GetString("asset")
	payTo, ok3 := accepted.GetString("payTo")
	if !ok1 || !ok2 || !ok3 {
		return nil, malformed
	}
	extra, _ := accepted.GetObject("extra")
	var amountJSON jsonv.Value = amount
	if asset == "XRP" {
		if !isFee(amount) { // the same shape: 1 to 17 digits, no leading zero
			return nil, malformed
		}
	} else {
		issuer, ok := extra.GetString("issuer")
		if !ok || !isIssuedValue(amount) {
			return nil, malformed
		}
		amountJSON = jsonv.Obj("currency", asset, "issuer", issuer, "value", amount)
	}
	if inv, _ := extra.GetString("invoiceId"); inv != mpp.LegalContextValue(h) {
		return nil, rails.Refuse(CodeCarrierMismatch)
	}
	account, okA := c.GetString("account")
	fee, _ := c.GetString("fee")
	lvv, _ := c.Get("lastLedgerSequence")
	lls, okL := u32(lvv)
	if !okA || !isFee(fee) || !okL {
		return nil, malformed
	}
	seqKey := "sequence"
	if ticketMode(accepted) {
		seqKey = "ticketSequence"
	}
	sv, _ := c.Get(seqKey)
	seq, okS := u32(sv)
	until, okU := validUntilOf(c)
	if !okS || !okU {
		return nil, malformed
	}
	tx := jsonv.Obj("TransactionType", "Payment", "Flags", 0, "Account", account, "Destination", payTo, "Amount", amountJSON)
	if asset != "XRP" {
		tx.Set("SendMax", jsonv.Clone(amountJSON))
	}
	if tag, has := extra.Get("destinationTag"); has {
		tx.Set("DestinationTag", jsonv.Clone(tag))
	}
	tx.Set("InvoiceID", X402InvoiceID(h))
	tx.Set("Fee", fee)
	if seqKey == "ticketSequence" {
		tx.Set("Sequence", jsonv.Number(0))
		tx.Set("TicketSequence", jsonv.Number(seq))
	} else {
		tx.Set("Sequence", jsonv.Number(seq))
	}
	tx.Set("LastLedgerSequence", jsonv.Number(lls))
	network, _ := accepted.GetString("network")
	if id, _ := NetworkID(network); id > maxImplicitNetworkID {
		tx.Set("NetworkID", jsonv.Number(id))
	}
	return &exactUnsigned{until: until, required: required, accepted: accepted, txJSON: tx}, nil
}

// KindTx is the signing request of one XRPL transaction: {kind, network,
// txJson}, network the CAIP-2 id the transaction is for (it carries a
// NetworkID field only above 1024).
// The wallet serializes and single-signs txJson and answers 0x + the signed
// blob's hex.
const KindTx = "xrpl-tx"

func (Exact) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*exactUnsigned)
	network, _ := b.accepted.GetString("network")
	return withValidUntil(jsonv.Obj("kind", KindTx, "network", network, "txJson", b.txJSON.Clone()), b.until), nil
}

// signedDigits reads a signer's answer: 0x and at least one byte of hex.
func signedDigits(answer jsonv.Value) (string, bool) {
	s, ok := jsonv.AsString(answer)
	if !ok || len(s) < 4 || !strings.HasPrefix(s, "0x") || !isHexDigits(s[2:]) || len(s)%2 != 0 {
		return "", false
	}
	return s[2:], true
}

// Complete checks the signed blob is the built Payment and wraps it in the
// x402 payment.
func (Exact) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*exactUnsigned)
	digits, ok := signedDigits(answer)
	if !ok {
		return rails.Completion{}, rails.Refuse(x402.CodeSignatureMalformed)
	}
	if _, err := checkSigned(digits, b.txJSON); err != nil {
		return rails.Completion{}, err
	}
	payment := x402.Payment(b.required, b.accepted, jsonv.Obj("signedTxBlob", digits))
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// boundTx reads a presented x402 payment down to its Payment and the H its
// option names.
func (p Exact) boundTx(presented jsonv.Value) (*Tx, atr.Hash, error) {
	o, ok := jsonv.AsObject(presented)
	if !ok {
		return nil, atr.Hash{}, rails.Refuse(x402.CodeNotV2)
	}
	if v, _ := o.Get("x402Version"); v != jsonv.Number(2) {
		return nil, atr.Hash{}, rails.Refuse(x402.CodeNotV2)
	}
	accepted, ok := o.GetObject("accepted")
	if !ok || !p.serves(accepted) {
		return nil, atr.Hash{}, rails.Refuse(x402.CodeOptionNotThisPairing)
	}
	payload, ok := o.GetObject("payload")
	if !ok {
		return nil, atr.Hash{}, rails.Refuse(x402.CodePayloadMalformed)
	}
	blob, _ := payload.Get("signedTxBlob")
	tx, err := DecodePresented(blob)
	if err != nil {
		return nil, atr.Hash{}, err
	}
	if tx.Type != "Payment" {
		return nil, atr.Hash{}, rails.Refuse(CodeNotPayment)
	}
	inv, ok := tx.Fields.Get(FieldInvoiceID)
	if !ok {
		return nil, atr.Hash{}, rails.Refuse(CodeNoInvoiceID)
	}
	extra, _ := accepted.GetObject("extra")
	lcp, _ := extra.GetString("invoiceId")
	h, ok := mpp.ParseLegalContext(lcp)
	if !ok {
		return nil, atr.Hash{}, rails.Refuse(CodeCarrierNotLCP)
	}
	if upperHex(inv.Value) != X402InvoiceID(h) {
		return nil, atr.Hash{}, rails.Refuse(CodeCarrierMismatch)
	}
	return tx, h, nil
}

// Bound reads H back: the LCP string of the option, which the signed
// InvoiceID must hash. The signature is not verified here (the seller's
// facilitator does that); the echoed legalContext is not consulted.
func (p Exact) Bound(presented jsonv.Value) (string, error) {
	_, h, err := p.boundTx(presented)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}
