package solana

import (
	"encoding/base64"
	"math/big"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/x402"
)

// Upto is x402/upto/solana: the payer signs a transaction opening a
// one-request channel of the payment-channels program (the one batch
// settlement uses) that escrows the option's amount, the authorized
// maximum; the seller's fee payer co-signs and sends it, and the
// facilitator later settles what was metered, the rest returning to the
// payer. Where H goes: the opening transaction's one Memo instruction,
// lcp:sha256:0x<H>, the option's extra.memo (docs/solana.md, "x402 upto").
type Upto struct{}

// UptoID is the pairing id.
const UptoID = "x402/upto/solana"

// Refusals of the upto placement.
const (
	CodeFlowMissing  = "x402/flow-missing" // an option that names no escrow flow
	maxUptoOpenSlot  = 1<<53 - 1           // the payment writes openSlot as a JSON number
	uptoPaymentFlow  = "escrow"
	uptoWhereH       = "the opening transaction's one Memo instruction: \"lcp:sha256:\" + H (the option's extra.memo)"
	uptoSchemeString = "upto"
)

var (
	_ rails.Pairing    = Upto{}
	_ rails.Summarizer = Upto{}
	_ rails.Inspector  = Upto{}
)

func (Upto) ID() string { return UptoID }

func (Upto) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

// serves is the option filter: upto on a Solana network; mint, payee,
// extra.feePayer and extra.receiverAuthorizer keys; extra.withdrawDelay a
// positive safe integer of at most 2^32-1 (the open instruction's grace
// period is a u32); extra.tokenProgram Token or Token-2022; extra.memo
// absent or at most 256 bytes; extra.paymentFlow absent or "escrow".
func (Upto) serves(o *jsonv.Object) bool {
	if s, _ := o.GetString("scheme"); s != uptoSchemeString {
		return false
	}
	extra, ok := o.GetObject("extra")
	if !ok {
		return false
	}
	n, _ := o.GetString("network")
	asset, _ := o.Get("asset")
	payTo, _ := o.Get("payTo")
	fp, _ := extra.Get("feePayer")
	ra, _ := extra.Get("receiverAuthorizer")
	if !IsNetwork(n) || !IsKey(asset) || !IsKey(payTo) || !IsKey(fp) || !IsKey(ra) {
		return false
	}
	dv, _ := extra.Get("withdrawDelay")
	if d, ok := jsonv.AsSafeInt(dv); !ok || d <= 0 || d > 0xffffffff {
		return false
	}
	if tp, _ := extra.GetString("tokenProgram"); tp != TokenProgram.String() && tp != Token2022Program.String() {
		return false
	}
	if m, has := extra.Get("memo"); has {
		if s, ok := m.(string); !ok || len(s) > maxMemoBytes {
			return false
		}
	}
	if f, has := extra.Get("paymentFlow"); has && f != uptoPaymentFlow {
		return false
	}
	return true
}

func (p Upto) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, p.serves) }

// Choose takes the first served option on the account's network and the
// buyer's inputs: the channel's nonce (its salt) and openSlot, decimal
// u64s, openSlot at most 2^53-1 (the payment writes it as a JSON number);
// the token program and a recent blockhash; optionally the compute budget
// (x402/input-missing). The choice records now.
func (p Upto) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, _, ok := accountKey(account)
	if !ok {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	accepted := x402.OptionOn(read.Options, acct.Network())
	if accepted == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	missing := rails.Refuse(x402.CodeInputMissing)
	choice := jsonv.Obj("required", read.Required, "accepted", accepted, "payer", acct.Address, "now", now)
	for _, k := range []string{"nonce", "openSlot"} {
		s, _ := inputs.GetString(k)
		n, ok := U64(s)
		if !ok || k == "openSlot" && n > maxUptoOpenSlot {
			return nil, missing
		}
		choice.Set(k, s)
	}
	for _, k := range []string{"tokenProgram", "recentBlockhash"} {
		s, _ := inputs.GetString(k)
		if s == "" {
			return nil, missing
		}
		choice.Set(k, s)
	}
	if v, has := inputs.Get("computeUnitLimit"); has {
		if _, ok := jsonv.AsSafeInt(v); !ok {
			return nil, missing
		}
		choice.Set("computeUnitLimit", v)
	}
	if v, has := inputs.Get("computeUnitPrice"); has {
		if s, ok := v.(string); !ok || !rails.IsDecimal(s) {
			return nil, missing
		}
		choice.Set("computeUnitPrice", v)
	}
	return choice, nil
}

// uptoUnsigned is the built opening and what completes it.
type uptoUnsigned struct {
	required, accepted *jsonv.Object
	payload            *jsonv.Object // every member but openTransaction
	payer              Key
	network            string
	message            []byte
	validUntil         int64
}

// Build checks the choice and builds the opening, in the reference's
// order: the option chosen from the document (x402's codes); the amount a
// u64 and maxTimeoutSeconds a positive safe integer
// (x402/option-malformed); extra.memo the carrier of h
// (svm/carrier-mismatch); the choice's token program the option's and now
// a non-negative safe integer, the keys, nonce, openSlot and budget well
// formed (svm/input-malformed). The channel is the program-derived address
// of the payer, the fee payer (the channel's payee), the mint, the
// receiver authorizer (its voucher signer), the nonce as salt and the
// openSlot; the open instruction deposits the amount for the option's
// payTo with the withdraw delay as grace period.
func (p Upto) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
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
	amount, ok := payableU64(accepted)
	if !ok {
		return nil, rails.Refuse(x402.CodeOptionMalformed)
	}
	extra, _ := accepted.GetObject("extra")
	memo, _ := extra.GetString("memo")
	if memo != Carrier(h) {
		return nil, rails.Refuse(CodeCarrierMismatch)
	}
	malformed := rails.Refuse(CodeInputMalformed)
	tpText, _ := c.GetString("tokenProgram")
	nv, _ := c.Get("now")
	now, okNow := jsonv.AsSafeInt(nv)
	until, okUntil := payableUntil(now)
	if tpText != mustString(extra, "tokenProgram") || !okNow || !okUntil {
		return nil, malformed
	}
	tokenProgram, _ := ParseKey(tpText)
	var payer, feePayer, signer, mint, payTo, blockhash Key
	for _, f := range []struct {
		o   *jsonv.Object
		k   string
		dst *Key
	}{{c, "payer", &payer}, {extra, "feePayer", &feePayer}, {extra, "receiverAuthorizer", &signer}, {accepted, "asset", &mint},
		{accepted, "payTo", &payTo}, {c, "recentBlockhash", &blockhash}} {
		if *f.dst, ok = keyAt(f.o, f.k); !ok {
			return nil, malformed
		}
	}
	nonce, okN := U64(mustString(c, "nonce"))
	openSlot, okS := U64(mustString(c, "openSlot"))
	if !okN || !okS || openSlot > maxUptoOpenSlot {
		return nil, malformed
	}
	lv, hasLimit := c.Get("computeUnitLimit")
	var price *big.Int
	if c.Has("computeUnitPrice") {
		var err error
		if price, err = x402.ReviveDecimal(c, "computeUnitPrice"); err != nil {
			return nil, malformed
		}
	}
	limit, microLamports, okB := budget(lv, hasLimit, price)
	if !okB {
		return nil, malformed
	}
	channel, _, err := ChannelAddress(payer, feePayer, mint, signer, nonce, openSlot)
	if err != nil {
		return nil, rails.Refuse(CodePDANotFound)
	}
	dv, _ := extra.Get("withdrawDelay")
	delay, _ := jsonv.AsSafeInt(dv) // serves read it
	tx := channelTx{feePayer: feePayer, payer: payer, mint: mint, tokenProgram: tokenProgram, blockhash: blockhash,
		memo: &memo, limit: limit, price: microLamports}
	ix, err := tx.openIx(channel, signer, OpenData(nonce, amount, uint32(delay), openSlot, payTo))
	if err != nil {
		return nil, err
	}
	tv, _ := accepted.Get("maxTimeoutSeconds")
	timeout, _ := jsonv.AsSafeInt(tv)
	validAfter := now
	if va, has := extra.Get("validAfter"); has {
		if n, ok := jsonv.AsSafeInt(va); ok {
			validAfter = n
		}
	}
	amountText, _ := accepted.GetString("amount")
	payload := jsonv.Obj("from", payer.String(), "maxAmount", amountText, "expiresAt", now+timeout, "validAfter", validAfter,
		"nonce", mustString(c, "nonce"), "openSlot", jsonv.Number(openSlot), "channelId", channel.String(),
		"deposit", amountText, "authorizedSigner", signer.String())
	network, _ := accepted.GetString("network")
	return &uptoUnsigned{required: required, accepted: accepted, payload: payload, payer: payer, network: network,
		message: tx.message(ix), validUntil: until}, nil
}

// Request is the opening's solana-message request, as x402/exact/solana's.
func (Upto) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*uptoUnsigned)
	return jsonv.Obj("kind", "solana-message", "message", hex0x(b.message), "network", b.network,
		"validUntil", jsonv.Number(b.validUntil)), nil
}

// Complete puts the payer's signature in its slot of the opening (zeros
// in the fee payer's) as payload.openTransaction beside the channel's
// values, and appends the payment identifier.
func (Upto) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*uptoUnsigned)
	sig, ok := Signature64(answer)
	if !ok {
		return rails.Completion{}, rails.Refuse(x402.CodeSignatureMalformed)
	}
	wire, ok := SignedWire(b.message, b.payer, sig)
	if !ok {
		return rails.Completion{}, rails.Refuse(CodeInputMalformed)
	}
	payload := b.payload.Clone()
	payload.Set("openTransaction", base64.StdEncoding.EncodeToString(wire))
	payment := x402.Payment(b.required, b.accepted, payload)
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// opening reads a payment: x402's presented parts (x402/not-v2,
// x402/option-not-this-pairing, x402/payload-malformed); the opening
// transaction (WireOf's codes); no durable-nonce account from a lookup
// table (svm/nonce-account-not-static); its one memo (MemoCarrier's
// codes), spelled as the carrier (svm/carrier-not-canonical) and the
// option's extra.memo (svm/carrier-mismatch); its one payment-channels
// instruction an open (x402/not-an-opening).
func (p Upto) opening(presented jsonv.Value) (accepted *jsonv.Object, tx *Tx, h string, err error) {
	accepted, payload, err := x402.Presented(presented, p.serves)
	if err != nil {
		return nil, nil, "", err
	}
	ov, _ := payload.Get("openTransaction")
	if tx, err = WireOf(ov); err != nil {
		return nil, nil, "", err
	}
	if h, err = boundOf(accepted, tx); err != nil {
		return nil, nil, "", err
	}
	if ix, err := ChannelInstruction(tx); err != nil || ix.Kind != "open" || len(ix.Data) != 67 {
		return nil, nil, "", rails.Refuse(x402.CodeNotAnOpening)
	}
	return accepted, tx, h, nil
}

// Bound reads H back from the opening's one memo. No signature is
// verified; the chain verifies the payer's.
func (p Upto) Bound(presented jsonv.Value) (string, error) {
	_, _, h, err := p.opening(presented)
	return h, err
}

// Reference is the opening's ReferenceOf on the option's network.
func (p Upto) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	accepted, tx, _, err := p.opening(presented)
	if err != nil {
		return nil, err
	}
	network, _ := accepted.GetString("network")
	return ReferenceOf(network, tx), nil
}

// Summarize reads the opening's solana-message request: a v0 message
// whose instructions are the compute budget, memos and one open of the
// payment-channels program; it grants the deposit, the authorized
// maximum, of the mint, from the payer to the channel's recipient, payable
// until validUntil. The seller charges up to it; the rest returns to the
// payer.
func (Upto) Summarize(req rails.Request) (rails.Grant, error) {
	o, ok := readChannelMessage(req)
	if !ok || o.ix.Kind != "open" || len(o.ix.Data) != 67 {
		return rails.Grant{}, errUnreadable
	}
	g := openGrant(o)
	if v, has := req.Get("validUntil"); has {
		u, ok := jsonv.AsSafeInt(v)
		if !ok || u <= 0 {
			return rails.Grant{}, errUnreadable
		}
		g.PayableUntil = time.Unix(u, 0).UTC()
	}
	return g, nil
}

// Inspect reads a payment's opening through Summarize (the grant is the
// signed maximum), with H, the channel and the reference beside it.
func (p Upto) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	accepted, tx, h, err := p.opening(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	network, _ := accepted.GetString("network")
	g, err := p.Summarize(jsonv.Obj("kind", "solana-message", "network", network, "message", hex0x(tx.Message)))
	if err != nil {
		return rails.Inspection{}, err
	}
	if d := rails.KnownDecimals(network, g.Asset); d >= 0 {
		g.Decimals = d
	}
	ix, _ := ChannelInstruction(tx)
	details := jsonv.Obj("channel", ix.Channel.String(), "maximum", g.Amount.String())
	for _, m := range reference(network, tx).Members() {
		details.Set(m.Key, m.Value)
	}
	return rails.Inspection{Pairing: UptoID, Kind: "payment", Grant: g, H: h, WhereH: uptoWhereH, Details: details}, nil
}

// PlaceUptoCarrier is the seller's side: option with extra.memo set to
// Carrier(h). An option that names no escrow flow (extra.paymentFlow) is
// x402/flow-missing; one whose memo holds something else
// svm/carrier-occupied.
func PlaceUptoCarrier(option *jsonv.Object, h atr.Hash) (*jsonv.Object, error) {
	extra, _ := option.GetObject("extra")
	if f, _ := extra.Get("paymentFlow"); f != uptoPaymentFlow {
		return nil, rails.Refuse(CodeFlowMissing)
	}
	return PlaceCarrier(option, h)
}
