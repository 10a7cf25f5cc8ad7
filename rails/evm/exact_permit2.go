package evm

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/x402"
)

// ExactPermit2 is x402/exact/eip155/permit2. Where H goes: the nonce of the
// Permit2 PermitWitnessTransferFrom the payer signs is H read as a uint256
// (permit2Authorization.nonce, written in decimal); the spender is x402's
// exact Permit2 proxy and the payee is the witness's to (docs/permit2.md).
// On chain H is in the settlement calldata and one bit of Permit2's
// nonceBitmap(owner, H >> 8); no event carries it, but the payment is a
// public proof: Permit2 verified the signature over H when it moved the
// tokens.
type ExactPermit2 struct{}

// ExactPermit2ID is the pairing id.
const ExactPermit2ID = "x402/exact/eip155/permit2"

var (
	_ rails.Pairing    = ExactPermit2{}
	_ rails.Summarizer = ExactPermit2{}
)

var exactPermit2 = x402Permit2{id: ExactPermit2ID, scheme: "exact", proxy: ExactPermit2Proxy,
	witness: []string{"to", "address", "validAfter", "uint256"}}

func (ExactPermit2) ID() string { return ExactPermit2ID }

func (ExactPermit2) Pattern() rails.Pattern {
	return rails.Pattern{Name: "native-field", PublicProof: true}
}

func (ExactPermit2) Read(doc jsonv.Value) (rails.Read, error) { return exactPermit2.read(doc) }

func (ExactPermit2) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	return chooseEVM(read, account, now)
}

func (ExactPermit2) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	return exactPermit2.build(choice, h)
}

func (ExactPermit2) Request(u rails.Unsigned) (rails.Request, error) { return permit2RequestOf(u) }

func (ExactPermit2) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	return completeSigned(u, answer, chosen)
}

// Bound reads H back: permit2Authorization.nonce, in decimal or 0x hex.
func (ExactPermit2) Bound(presented jsonv.Value) (string, error) {
	got, err := exactPermit2.presented(presented)
	if err != nil {
		return "", err
	}
	return got.h.String(), nil
}

// Summarize states what signing grants: permitted.amount of permitted.token
// to the witness's to through the exact proxy, from validAfter until the
// deadline.
func (ExactPermit2) Summarize(req rails.Request) (rails.Grant, error) {
	return exactPermit2.summarize(req)
}

// Reference is what a seller records at claim (docs/permit2.md): the
// network, settleBy (the deadline), the token's Transfer from the payer to
// the payee of the permitted amount, and the authorization Permit2 records.
func (ExactPermit2) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	return exactPermit2.reference(presented)
}

// Status reads a reference with a transaction: its receipt must hold the
// referenced transfer (RefStatus) and, when the reader reads transactions
// (TxReader), the call's input must carry the reference's nonce, H: else
// the transfer is another permit's (failed nonce-not-in-input).
func (ExactPermit2) Status(ref *jsonv.Object, r Reader) Status {
	s, _ := RefStatus(ref, noHeads{r})
	if s = permit2InputStatus(s, ref, r); s.State != StateSettled {
		return s
	}
	return SettledAt(s.BlockNumber, r)
}

// Inspect states what a signed payment grants and where H sits.
func (ExactPermit2) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	return exactPermit2.inspect(payment)
}

// Refusal codes of the x402 Permit2 payments.
const (
	CodeSpenderNotProxy    = "x402/spender-not-proxy"   // the permit's spender is not the scheme's x402 proxy
	CodeNonceMalformed     = "x402/nonce-malformed"     // the Permit2 nonce is neither decimal nor 0x and 64 hex
	CodeFacilitatorMissing = "x402/facilitator-missing" // an upto option names no facilitatorAddress
)

// x402Permit2 is what the exact and upto Permit2 pairings share; they
// differ in scheme, proxy, witness and how the payload writes the nonce.
type x402Permit2 struct {
	id, scheme, proxy string
	witness           []string // the Witness struct's fields
	upto              bool
}

// filter is the option filter. served false with a code is an option of
// this scheme the pairing cannot serve (an upto option without
// facilitator); served false without one is another pairing's option.
func (x x402Permit2) filter(o *jsonv.Object) (served bool, code string) {
	if s, _ := o.GetString("scheme"); s != x.scheme {
		return false, ""
	}
	network, _ := o.GetString("network")
	asset, _ := o.GetString("asset")
	payTo, _ := o.GetString("payTo")
	if !validChain(network) || !IsAddress(asset) || !IsAddress(payTo) {
		return false, ""
	}
	ev, has := o.Get("extra")
	extra, ok := jsonv.AsObject(ev)
	if has && !ok {
		return false, ""
	}
	if x.upto {
		f, _ := extra.GetString("facilitatorAddress")
		if !IsAddress(f) {
			return false, CodeFacilitatorMissing
		}
		return true, ""
	}
	if m, _ := extra.GetString("assetTransferMethod"); m != "permit2" {
		return false, ""
	}
	if f, has := extra.Get("paymentFlow"); has && f != "authorization" && f != "upfront" {
		return false, ""
	}
	return true, ""
}

func (x x402Permit2) serves(o *jsonv.Object) bool { ok, _ := x.filter(o); return ok }

func (x x402Permit2) read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, x.serves) }

// chooseEVM takes the first served option on the account's network, as every
// x402 EVM pairing does.
func chooseEVM(read rails.Read, account string, now int64) (jsonv.Value, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "eip155" || !IsAddress(acct.Address) {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	o := x402.OptionOn(read.Options, acct.Network())
	if o == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	return jsonv.Obj("required", read.Required, "accepted", o, "from", acct.Address, "now", now), nil
}

// evmChoice is a choice as the x402 EVM builds read it.
type evmChoice struct {
	required, accepted *jsonv.Object
	from               string
	chainID, deadline  int64 // deadline: now + maxTimeoutSeconds
}

// readChoice checks a choice in the order every x402 EVM build does: the
// document and option (x402.ChosenOption's codes, the filter's own code for
// an option of this scheme it cannot serve), a payable option (amount a
// uint256 decimal, maxTimeoutSeconds a safe integer above 0, asset and
// payTo addresses of one case or a valid EIP-55 checksum, then the extra
// checks named) and the buyer's from and now (x402/option-malformed).
func readChoice(choice jsonv.Value, filter func(*jsonv.Object) (bool, string), payable func(*jsonv.Object) bool) (evmChoice, error) {
	c, required, accepted, err := x402.ChosenOption(choice, func(o *jsonv.Object) bool {
		ok, code := filter(o)
		return ok || code != ""
	})
	if err != nil {
		return evmChoice{}, err
	}
	if _, code := filter(accepted); code != "" {
		return evmChoice{}, rails.Refuse(code)
	}
	malformed := func() error { return rails.Refuse(x402.CodeOptionMalformed) } // made only when refused
	asset, _ := accepted.GetString("asset")
	payTo, _ := accepted.GetString("payTo")
	amount, _ := accepted.GetString("amount")
	mtv, _ := accepted.Get("maxTimeoutSeconds")
	timeout, okTimeout := jsonv.AsSafeInt(mtv)
	if !IsUint256Decimal(amount) || !okTimeout || timeout <= 0 || !CheckedAddress(asset) || !CheckedAddress(payTo) ||
		(payable != nil && !payable(accepted)) {
		return evmChoice{}, malformed()
	}
	from, _ := c.GetString("from")
	nv, _ := c.Get("now")
	now, okNow := jsonv.AsSafeInt(nv)
	if !CheckedAddress(from) || !okNow || now < 0 {
		return evmChoice{}, malformed()
	}
	network, _ := accepted.GetString("network")
	chain, _ := chainID(network)
	return evmChoice{required: required, accepted: accepted, from: from, chainID: chain, deadline: now + timeout}, nil
}

// signedUnsigned is a built x402 EVM payment whose request is one EIP-712
// signature.
type signedUnsigned struct {
	required, accepted *jsonv.Object
	typedData          *jsonv.Object
	request            rails.Request // nil: the plain {kind: eip712, typedData}
	// payload builds the payment's payload around the signature.
	payload func(signature string) *jsonv.Object
}

func permit2RequestOf(u rails.Unsigned) (rails.Request, error) {
	b := u.(*signedUnsigned)
	if b.request != nil {
		return b.request.Clone(), nil
	}
	return jsonv.Obj("kind", "eip712", "typedData", b.typedData.Clone()), nil
}

// completeSigned checks the signer's answer (a string, 0x and 65 to 8192
// bytes of hex) and makes the payment, with the payment identifier where
// the seller advertises one.
func completeSigned(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*signedUnsigned)
	sig, ok := jsonv.AsString(answer)
	if !ok {
		return rails.Completion{}, rails.Refuse(x402.CodeSignatureMalformed)
	}
	raw, ok := HexBytes(sig)
	if !ok || len(raw) < MinSignatureBytes || len(raw) > MaxSignatureBytes {
		return rails.Completion{}, rails.Refuse(x402.CodeSignatureMalformed)
	}
	payment := x402.Payment(b.required, b.accepted, b.payload(sig))
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

func (x x402Permit2) witnessValue(accepted *jsonv.Object) *jsonv.Object {
	payTo, _ := accepted.GetString("payTo")
	if x.upto {
		extra, _ := accepted.GetObject("extra")
		f, _ := extra.GetString("facilitatorAddress")
		return jsonv.Obj("to", payTo, "facilitator", f, "validAfter", "0")
	}
	return jsonv.Obj("to", payTo, "validAfter", "0")
}

// template is the shape of the permit this pairing signs, for the summary's
// strict reading.
func (x x402Permit2) template() Permit2Permit {
	return Permit2Permit{Permitted: []Permit2Token{{}}, Witness: &Permit2Witness{Type: "Witness", Fields: x.witness}}
}

func (x x402Permit2) build(choice jsonv.Value, h atr.Hash) (rails.Unsigned, error) {
	c, err := readChoice(choice, x.filter, func(o *jsonv.Object) bool {
		if !x.upto {
			return true
		}
		extra, _ := o.GetObject("extra")
		f, _ := extra.GetString("facilitatorAddress")
		return CheckedAddress(f)
	})
	if err != nil {
		return nil, err
	}
	asset, _ := c.accepted.GetString("asset")
	amount, _ := c.accepted.GetString("amount")
	deadline := strconv.FormatInt(c.deadline, 10)
	witness := x.witnessValue(c.accepted)
	decimal := NonceDecimal(h) // formatted once: the permit and the exact payload both spell it
	permit := Permit2Permit{
		ChainID: c.chainID, Permitted: []Permit2Token{{Token: asset, Amount: amount}},
		Spender: x.proxy, Nonce: decimal, Deadline: deadline,
		Witness: &Permit2Witness{Type: "Witness", Fields: x.witness, Value: witness},
	}
	// The typed data stays in the build; permit2RequestOf hands out copies.
	td, err := permit.typedData(true)
	if err != nil {
		return nil, rails.Refuse(x402.CodeOptionMalformed)
	}
	// The exact clients write the nonce in decimal, the upto vector in
	// hex (docs/permit2.md, "Nonce spellings"); both read back to H.
	nonce := decimal
	if x.upto {
		nonce = h.String()
	}
	authorization := jsonv.Obj(
		"permitted", jsonv.Obj("token", asset, "amount", amount),
		"from", c.from, "spender", x.proxy, "nonce", nonce, "deadline", deadline, "witness", witness)
	return &signedUnsigned{required: c.required, accepted: c.accepted, typedData: td,
		payload: func(sig string) *jsonv.Object {
			return jsonv.Obj("signature", sig, "permit2Authorization", authorization.Clone())
		}}, nil
}

// maxMember bounds each string member a presented payload's read-back reads.
const maxMember = 256

// stringsOf reads the named members of o as strings of at most maxMember
// characters.
func stringsOf(o *jsonv.Object, keys ...string) ([]string, bool) {
	if o == nil {
		return nil, false
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		s, ok := o.GetString(k)
		if !ok || len(s) > maxMember {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// presentedEVM reads what every x402 EVM read-back starts with: version 2
// (x402/not-v2), no top-level refused member, an accepted object
// (x402/payload-malformed) the filter serves (x402/option-not-this-pairing,
// or the filter's code for an option of this scheme), and a payload object.
func presentedEVM(presented jsonv.Value, scheme string, filter func(*jsonv.Object) (bool, string)) (accepted, payload *jsonv.Object, err error) {
	o, ok := jsonv.AsObject(presented)
	if !ok {
		return nil, nil, rails.Refuse(x402.CodeNotV2)
	}
	if v, _ := o.Get("x402Version"); v != jsonv.Number(2) {
		return nil, nil, rails.Refuse(x402.CodeNotV2)
	}
	malformed := func() error { return rails.Refuse(x402.CodePayloadMalformed) } // made only when refused
	if o.Has("refused") {
		return nil, nil, malformed() // a value shaped like a refusal is never a payment
	}
	accepted, ok = o.GetObject("accepted")
	if !ok {
		return nil, nil, malformed()
	}
	if served, code := filter(accepted); !served {
		if s, _ := accepted.GetString("scheme"); code != "" && s == scheme {
			return nil, nil, rails.Refuse(code)
		}
		return nil, nil, rails.Refuse(x402.CodeOptionNotThisPairing)
	}
	payload, ok = o.GetObject("payload")
	if !ok {
		return nil, nil, malformed()
	}
	return accepted, payload, nil
}

// signatureReads: 0x and an even number of hex digits, 1 to 8192 bytes.
func signatureReads(payload *jsonv.Object) bool {
	sig, _ := payload.GetString("signature")
	raw, ok := HexBytes(sig)
	return ok && len(raw) >= 1 && len(raw) <= MaxSignatureBytes
}

// permit2Presented is a presented x402 Permit2 payment as read back.
type permit2Presented struct {
	accepted, auth, permitted, witness *jsonv.Object
	h                                  atr.Hash
}

// presented reads a Permit2 payment back in the order the vectors fix:
// the signature (x402/signature-malformed), the authorization's string
// members (x402/payload-malformed), the spender (x402/spender-not-proxy),
// upto's facilitator, then the nonce (x402/nonce-malformed).
func (x x402Permit2) presented(p jsonv.Value) (permit2Presented, error) {
	accepted, payload, err := presentedEVM(p, x.scheme, x.filter)
	if err != nil {
		return permit2Presented{}, err
	}
	if !signatureReads(payload) {
		return permit2Presented{}, rails.Refuse(x402.CodeSignatureMalformed)
	}
	malformed := func() error { return rails.Refuse(x402.CodePayloadMalformed) } // made only when refused
	auth, _ := payload.GetObject("permit2Authorization")
	a, ok1 := stringsOf(auth, "from", "spender", "nonce", "deadline")
	permitted, _ := auth.GetObject("permitted")
	_, ok2 := stringsOf(permitted, "token", "amount")
	witness, _ := auth.GetObject("witness")
	_, ok3 := stringsOf(witness, "to")
	if !ok1 || !ok2 || !ok3 {
		return permit2Presented{}, malformed()
	}
	if !strings.EqualFold(a[1], x.proxy) {
		return permit2Presented{}, rails.Refuse(CodeSpenderNotProxy)
	}
	if _, ok := stringsOf(witness, "facilitator"); x.upto && !ok {
		return permit2Presented{}, malformed()
	}
	h, ok := Permit2NonceHash(a[2])
	if !ok {
		return permit2Presented{}, rails.Refuse(CodeNonceMalformed)
	}
	return permit2Presented{accepted: accepted, auth: auth, permitted: permitted, witness: witness, h: h}, nil
}

func (x x402Permit2) summarize(req rails.Request) (rails.Grant, error) {
	r, err := readPermit2Request(req, x.template())
	if err != nil {
		return rails.Grant{}, err
	}
	if !strings.EqualFold(r.spender, x.proxy) || !strings.EqualFold(r.contract, Permit2Address) {
		return rails.Grant{}, rails.Refuse(CodeRequestUnreadable)
	}
	g := r.grant()
	g.Payee, _ = r.witness.GetString("to")
	after, _ := r.witness.GetString("validAfter")
	g.PayableFrom = UnixTime(after)
	return g, nil
}

func (x x402Permit2) reference(presented jsonv.Value) (*jsonv.Object, error) {
	got, err := x.presented(presented)
	if err != nil {
		return nil, err
	}
	malformed := func() error { return rails.Refuse(x402.CodePayloadMalformed) } // made only when refused
	from, _ := got.auth.GetString("from")
	deadline, _ := got.auth.GetString("deadline")
	to, _ := got.witness.GetString("to")
	amountText, _ := got.permitted.GetString("amount")
	amount, okAmount := new(big.Int).SetString(amountText, 10)
	if !IsAddress(from) || !IsAddress(to) || !IsUint256Decimal(deadline) || !IsUint256Decimal(amountText) || !okAmount {
		return nil, malformed()
	}
	identity := "from,to,value"
	fields := TransferFields{From: from, To: to, Value: amount}
	if x.upto {
		// The facilitator settles any amount up to the maximum, so the
		// transfer is known by payer and payee only; Permit2's record of
		// the nonce then tells it apart (Permit2Status).
		identity, fields.Value = "from,to", nil
	}
	digest, err := TransferDigest(fields)
	if err != nil {
		return nil, malformed()
	}
	network, _ := got.accepted.GetString("network")
	asset, _ := got.accepted.GetString("asset")
	return jsonv.Obj(
		"network", network,
		"settleBy", deadline,
		"transferLog", jsonv.Obj("address", asset, "topic0", TopicTransfer.Hex(), "identity", identity, "digest", hex0x(digest[:])),
		"authorization", jsonv.Obj("scheme", "permit2", "at", Permit2Address, "nonce", got.h.String(), "deadline", deadline, "asset", asset),
	), nil
}

func (x x402Permit2) inspect(payment jsonv.Value) (rails.Inspection, error) {
	got, err := x.presented(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	str := func(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }
	network, asset := str(got.accepted, "network"), str(got.permitted, "token")
	g := rails.Grant{
		Network: network, Asset: asset, Decimals: rails.KnownDecimals(network, asset),
		Payer: str(got.auth, "from"), Payee: str(got.witness, "to"),
	}
	if n, ok := new(big.Int).SetString(str(got.permitted, "amount"), 10); ok && IsUint256Decimal(str(got.permitted, "amount")) {
		g.Amount = n
	}
	if s := str(got.witness, "validAfter"); IsUint256Decimal(s) {
		g.PayableFrom = UnixTime(s)
	}
	if s := str(got.auth, "deadline"); IsUint256Decimal(s) {
		g.PayableUntil = UnixTime(s)
	}
	details := jsonv.Obj("spender", str(got.auth, "spender"), "nonce", str(got.auth, "nonce"), "permit2", Permit2Address)
	where := "payload.permit2Authorization.nonce: the Permit2 nonce is H as a uint256 (decimal here); on chain it is in the settlement calldata and one bit of Permit2's nonceBitmap(owner, H >> 8)"
	if x.upto {
		details.Set("facilitator", str(got.witness, "facilitator"))
		details.Set("amountIs", "the authorized maximum: the facilitator settles any amount up to it")
		where = "payload.permit2Authorization.nonce: the Permit2 nonce is H (0x hex here) as a uint256; on chain it is in the settlement calldata and one bit of Permit2's nonceBitmap(owner, H >> 8)"
	}
	return rails.Inspection{Pairing: x.id, Kind: "payment", Grant: g, H: got.h.String(), WhereH: where, Details: details}, nil
}
