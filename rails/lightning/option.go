package lightning

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"math/big"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/x402"
)

// What the x402 Lightning pairings share: the option's checks, the choice,
// the bolt11-pay request, the preimage (docs/lightning.md, "x402").

// KindBolt11Pay is the signing request of every Lightning pairing:
// {kind, invoice}. The payer's node pays exactly that invoice and answers
// its preimage, 64 lowercase hex digits; value moves when it does.
const KindBolt11Pay = "bolt11-pay"

// Refusal codes of the option and the payment.
const (
	CodeCurrencyNetwork   = "ln/currency-network"      // the invoice's currency is not the option's network
	CodeRequestHash       = "ln/request-hash-mismatch" // the invoice's h is not the option's requestHash
	CodeNotThisPairing    = "ln/not-this-pairing"      // an m field where the pairing wants none
	CodePreimageMalformed = "ln/preimage-malformed"    // not 64 lowercase hex digits
	CodePreimageNotPaid   = "ln/preimage-not-paid"     // SHA-256 of the preimage is not the payment hash
	CodeAmountMismatch    = "ln/amount-mismatch"       // the invoice's amount is not the option's
	CodeExpiryMismatch    = "ln/expiry-mismatch"       // the invoice's expiry is not maxTimeoutSeconds
	CodePayeeMismatch     = "ln/payee-mismatch"        // the invoice's signer is not payTo
	CodeInvoiceExpired    = "ln/invoice-expired"       // past timestamp + expiry at the buyer's clock
	CodeInvoiceFromFuture = "ln/invoice-from-future"   // written more than 60 s after the buyer's clock
	CodeDescriptionInline = "ln/description-inline"    // a d field beside the description hash
	CodeAmountless        = "ln/amountless"            // an invoice without an amount: nothing says what is paid
	CodeRequestKind       = "ln/request-malformed"     // a signing request that is not {kind: bolt11-pay, invoice}
)

// Networks x402 names, with the BOLT11 currency of each: lnbtc: and the
// first 32 hex digits of the Bitcoin network's genesis block hash.
const (
	Mainnet = "lnbtc:000000000019d6689c085ae165831e93"
	Testnet = "lnbtc:000000000933ea01ad0ee984209779ba"
	Signet  = "lnbtc:00000008819873e925422c1ff0f99f7c"
	Regtest = "lnbtc:0f9188f13cb7b2c71f2a335e3a4fc328"
)

var x402Networks = map[string]string{Mainnet: "bc", Testnet: "tb"}

// currencyNetworks names the CAIP-2 network of each BOLT11 currency, for a
// summary read from the invoice alone.
var currencyNetworks = map[string]string{"bc": Mainnet, "tb": Testnet, "tbs": Signet, "bcrt": Regtest}

// Decimals of an amount in millisatoshi: 10^11 of them make a bitcoin.
const Decimals = 11

// skew is how far ahead of the buyer's clock an invoice may be written.
const skew = 60

// lnOption is an exact option on a Lightning network x402 names, with an
// invoice string.
func lnOption(o *jsonv.Object) (string, bool) {
	if s, _ := o.GetString("scheme"); s != "exact" {
		return "", false
	}
	n, _ := o.GetString("network")
	if _, ok := x402Networks[n]; !ok {
		return "", false
	}
	extra, _ := o.GetObject("extra")
	inv, ok := extra.GetString("invoice")
	return inv, ok
}

// withMetadata is the read's filter: an option whose invoice parses with an
// m field (x402/exact/lnbtc), or without one (invoice-named).
func withMetadata(want bool) func(*jsonv.Object) bool {
	return func(o *jsonv.Object) bool {
		inv, ok := lnOption(o)
		if !ok {
			return false
		}
		in, err := parsed(inv)
		return err == nil && in.Has(fieldM) == want
	}
}

// checkOption is the seller's and the buyer's check of an option and its
// invoice, in the reference gates' order: the invoice decodes and its
// signature verifies; its m is h (or, h empty, it has none); its one h is
// the option's requestHash; its currency is the network's; the option's own
// fields; then what x402's lnbtc client checks of the invoice against the
// option (amount, expiry, signer).
func checkOption(o *jsonv.Object, h string) (*Invoice, error) {
	inv, _ := lnOption(o)
	in, err := Decode(inv)
	if err != nil {
		return nil, err
	}
	if h != "" {
		m, err := in.Metadata32()
		if err != nil {
			return nil, err
		}
		if m != h {
			return nil, rails.Refuse(CodeNoMetadata)
		}
	} else if in.Has(fieldM) {
		return nil, rails.Refuse(CodeNotThisPairing)
	}
	d, err := in.DescriptionHash32()
	if err != nil {
		return nil, err
	}
	extra, _ := o.GetObject("extra")
	rh, _ := extra.GetString("requestHash")
	if !isLowerHex(rh, 64) || d != "0x"+rh {
		return nil, rails.Refuse(CodeRequestHash)
	}
	network, _ := o.GetString("network")
	if x402Networks[network] != in.Currency {
		return nil, rails.Refuse(CodeCurrencyNetwork)
	}
	if err := optionFields(o); err != nil {
		return nil, err
	}
	amount, _ := o.GetString("amount")
	want, _ := new(big.Int).SetString(amount, 10)
	if in.AmountMsat == nil || in.AmountMsat.Cmp(want) != 0 {
		return nil, rails.Refuse(CodeAmountMismatch)
	}
	if mt, _ := jsonv.AsSafeInt(mustGet(o, "maxTimeoutSeconds")); mt != in.Expiry {
		return nil, rails.Refuse(CodeExpiryMismatch)
	}
	if payTo, _ := o.GetString("payTo"); payTo != in.PayeeHex() {
		return nil, rails.Refuse(CodePayeeMismatch)
	}
	if in.Description != nil {
		return nil, rails.Refuse(CodeDescriptionInline)
	}
	return in, nil
}

func mustGet(o *jsonv.Object, k string) jsonv.Value { v, _ := o.Get(k); return v }

// optionFields are x402's client checks on the option itself: paymentFlow
// upfront, assetTransferMethod bolt11 when present, asset BTC, payTo a
// compressed key in lowercase hex, a positive amount without a leading
// zero, and a positive maxTimeoutSeconds.
func optionFields(o *jsonv.Object) error {
	bad := rails.Refuse(x402.CodeOptionMalformed)
	extra, _ := o.GetObject("extra")
	if f, _ := extra.GetString("paymentFlow"); f != "upfront" {
		return bad
	}
	if m, has := extra.Get("assetTransferMethod"); has && m != "bolt11" {
		return bad
	}
	asset, _ := o.GetString("asset")
	payTo, _ := o.GetString("payTo")
	amount, _ := o.GetString("amount")
	mt, ok := jsonv.AsSafeInt(mustGet(o, "maxTimeoutSeconds"))
	if asset != "BTC" || !isLowerHex(payTo, 66) || !rails.IsDecimal(amount) || amount[0] == '0' || !ok || mt <= 0 {
		return bad
	}
	return nil
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// chooseX402 takes the first served option on the account's network for a
// Lightning node account (lnbtc:<ref>:<its 33-byte key in hex>), and holds
// the buyer's own request (inputs.request) to the option's request hash
// before anything is fetched.
func chooseX402(read rails.Read, account string, inputs *jsonv.Object, now int64) (jsonv.Value, error) {
	a, ok := rails.ParseAccount(account)
	if !ok || a.Namespace != "lnbtc" || !isLowerHex(a.Address, 66) {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	opt := x402.OptionOn(read.Options, a.Network())
	if opt == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	request, ok := inputs.GetObject("request")
	if !ok {
		return nil, rails.Refuse(x402.CodeInputMissing)
	}
	if err := requestMatches(read.Required, opt, request); err != nil {
		return nil, err
	}
	return jsonv.Obj("required", read.Required, "accepted", opt, "request", request.Clone(), "now", now), nil
}

// requestMatches recomputes the request hash from the buyer's request
// under the option's profile: it must be the option's requestHash, and for
// http:1 the document's resource must be the request's URL.
func requestMatches(required jsonv.Value, opt, request *jsonv.Object) error {
	extra, _ := opt.GetObject("extra")
	profile, _ := extra.GetString("requestBindingProfile")
	params, _ := extra.GetObject("requestBindingParams")
	sum, err := RequestHash(profile, params, request)
	if err != nil {
		return err
	}
	rh, _ := extra.GetString("requestHash")
	want, _ := hex.DecodeString(rh)
	if !isLowerHex(rh, 64) || subtle.ConstantTimeCompare(sum[:], want) != 1 {
		return rails.Refuse(CodeRequestMismatch)
	}
	if profile == ProfileHTTP {
		doc, _ := jsonv.AsObject(required)
		res, _ := doc.GetObject("resource")
		u, _ := request.GetString("url")
		if r, has := res.GetString("url"); has && r != u {
			return rails.Refuse(CodeRequestMismatch)
		}
	}
	return nil
}

// x402Unsigned is a built x402 Lightning payment: the invoice to pay.
type x402Unsigned struct {
	required, accepted *jsonv.Object
	invoice            *Invoice
	request            rails.Request
}

// buildX402 checks a choice as Build must (it may come from another
// process): the document and option, the buyer's request, the invoice
// against h, and its validity at the choice's time.
func buildX402(choice jsonv.Value, h string, serves func(*jsonv.Object) bool) (*x402Unsigned, error) {
	c, required, accepted, err := x402.ChosenOption(choice, serves)
	if err != nil {
		return nil, err
	}
	request, ok := c.GetObject("request")
	if !ok {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	now, ok := jsonv.AsSafeInt(mustGet(c, "now"))
	if !ok {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	in, err := checkOption(accepted, h)
	if err != nil {
		return nil, err
	}
	if err := requestMatches(required, accepted, request); err != nil {
		return nil, err
	}
	if err := fresh(in, now); err != nil {
		return nil, err
	}
	inv, _ := lnOption(accepted)
	return &x402Unsigned{required: required, accepted: accepted, invoice: in,
		request: jsonv.Obj("kind", KindBolt11Pay, "invoice", inv)}, nil
}

// fresh: written no later than now + 60 s, and not expired at now.
func fresh(in *Invoice, now int64) error {
	if in.Timestamp > now+skew {
		return rails.Refuse(CodeInvoiceFromFuture)
	}
	if now >= in.ExpiresAt() {
		return rails.Refuse(CodeInvoiceExpired)
	}
	return nil
}

// preimage reads the node's answer: 64 lowercase hex digits whose SHA-256
// is the invoice's payment hash.
func preimage(answer jsonv.Value, in *Invoice) (string, error) {
	s, ok := jsonv.AsString(answer)
	if !ok || !isLowerHex(s, 64) {
		return "", rails.Refuse(CodePreimageMalformed)
	}
	b, _ := hex.DecodeString(s)
	if sum := sha256.Sum256(b); subtle.ConstantTimeCompare(sum[:], in.PaymentHash[:]) != 1 {
		return "", rails.Refuse(CodePreimageNotPaid)
	}
	return s, nil
}

func completeX402(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*x402Unsigned)
	p, err := preimage(answer, b.invoice)
	if err != nil {
		return rails.Completion{}, err
	}
	payment := x402.Payment(b.required, b.accepted, jsonv.Obj("preimage", p))
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// presentedX402 reads a presented x402 Lightning payment: version 2, an
// accepted option of a Lightning network, its invoice decoded and signed by
// payTo, and a preimage that pays it.
func presentedX402(presented jsonv.Value) (*jsonv.Object, *Invoice, error) {
	accepted, payload, err := x402.Presented(presented, func(o *jsonv.Object) bool { _, ok := lnOption(o); return ok })
	if err != nil {
		return nil, nil, err
	}
	inv, _ := lnOption(accepted)
	in, err := Decode(inv)
	if err != nil {
		return nil, nil, err
	}
	if payTo, _ := accepted.GetString("payTo"); payTo != in.PayeeHex() {
		return nil, nil, rails.Refuse(CodePayeeMismatch)
	}
	pv, _ := payload.Get("preimage")
	if _, err := preimage(pv, in); err != nil {
		return nil, nil, err
	}
	return accepted, in, nil
}

// Summarize states what paying a bolt11-pay request grants, read from the
// invoice alone: its amount in millisatoshi of BTC to its payee, on the
// network of its currency, payable from its timestamp until it expires.
// An invoice without an amount is refused: nothing says what would move.
func summarize(req rails.Request) (rails.Grant, error) {
	if k, _ := req.GetString("kind"); k != KindBolt11Pay || req.Len() != 2 {
		return rails.Grant{}, rails.Refuse(CodeRequestKind)
	}
	inv, _ := req.GetString("invoice")
	in, err := Decode(inv)
	if err != nil {
		return rails.Grant{}, err
	}
	if in.AmountMsat == nil {
		return rails.Grant{}, rails.Refuse(CodeAmountless)
	}
	return rails.Grant{Network: currencyNetworks[in.Currency], Asset: "BTC", Decimals: Decimals,
		Amount: new(big.Int).Set(in.AmountMsat), Payee: in.PayeeHex(),
		PayableFrom: time.Unix(in.Timestamp, 0), PayableUntil: time.Unix(in.ExpiresAt(), 0)}, nil
}

// reference is what a seller records at claim: the network, the payment
// hash, and when the payment can land (timestamp + expiry + 60 s).
func reference(accepted *jsonv.Object, in *Invoice) *jsonv.Object {
	n, _ := accepted.GetString("network")
	return jsonv.Obj("network", n, "paymentHash", hex.EncodeToString(in.PaymentHash[:]),
		"settleBy", in.ExpiresAt()+skew)
}

func inspectX402(id string, payment jsonv.Value, h, whereH string) (rails.Inspection, error) {
	accepted, in, err := presentedX402(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	inv, _ := lnOption(accepted)
	g, err := summarize(jsonv.Obj("kind", KindBolt11Pay, "invoice", inv))
	if err != nil {
		return rails.Inspection{}, err
	}
	extra, _ := accepted.GetObject("extra")
	rh, _ := extra.GetString("requestHash")
	profile, _ := extra.GetString("requestBindingProfile")
	return rails.Inspection{Pairing: id, Kind: "payment", Grant: g, H: h, WhereH: whereH,
		Details: jsonv.Obj("paymentHash", hex.EncodeToString(in.PaymentHash[:]), "requestHash", rh,
			"requestBindingProfile", profile, "invoiceTimestamp", strconv.FormatInt(in.Timestamp, 10))}, nil
}

// InvoiceOf is an x402 Lightning option's extra.invoice, "" when it has none.
func InvoiceOf(option jsonv.Value) string {
	o, _ := jsonv.AsObject(option)
	inv, _ := lnOption(o)
	return inv
}
