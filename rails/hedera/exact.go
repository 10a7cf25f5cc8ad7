package hedera

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/x402"
)

// Exact is x402/exact/hedera: a CryptoTransfer the payer signs and the
// seller's fee payer (whose account the transaction id names) co-signs and
// submits, moving amount of HBAR or of the option's token from the payer
// to payTo. Where H goes: the signed TransactionBody's memo, lcp:sha256:0x
// and H's 64 lowercase hex digits (77 bytes, within the network's 100). The
// memo is in the public transaction record, so the payment is a public
// proof (docs/hedera.md).
type Exact struct{}

// ExactID is the pairing id.
const ExactID = "x402/exact/hedera"

// KindBody is the signing request of a Hedera transaction body:
// {kind, bodyBytes (0x hex), network, validUntil}. A signer answers
// {publicKey, signature (0x hex), type "ed25519" or "ecdsa-secp256k1"}.
const KindBody = "hedera-body"

const lcpPrefix = "lcp:sha256:"

var (
	_ rails.Pairing    = Exact{}
	_ rails.Summarizer = Exact{}
	_ rails.Inspector  = Exact{}
)

func (Exact) ID() string { return ExactID }

func (Exact) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

// Carrier is the memo that carries h.
func Carrier(h atr.Hash) string { return lcpPrefix + h.String() }

// amountOf reads a positive decimal below 2^63, no leading zero.
func amountOf(s string) (int64, bool) {
	if s == "" || s[0] == '0' || len(s) > 19 {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}

// CheckOption is the option check (the seller's placement and the build):
// exact on a hedera: network; extra.assetTransferMethod absent or
// "cryptoTransfer"; one of the four networks, asset and payTo entity ids
// (no alias), amount a positive decimal below 2^63, maxTimeoutSeconds a
// positive safe integer, extra.feePayer an entity id. ok false, with no
// error, for an option of another rail or method.
func CheckOption(o *jsonv.Object) (ok bool, err error) {
	if s, _ := o.GetString("scheme"); s != "exact" {
		return false, nil
	}
	n, _ := o.GetString("network")
	if !strings.HasPrefix(n, "hedera:") {
		return false, nil
	}
	extra, hasExtra := o.GetObject("extra")
	if o.Has("extra") && !hasExtra {
		return false, rails.Refuse(CodeOptionMalformed)
	}
	if m, has := extra.Get("assetTransferMethod"); has && m != "cryptoTransfer" {
		if m == "transferExecutor" {
			return false, nil
		}
		return false, rails.Refuse(CodeOptionMalformed)
	}
	asset, _ := o.GetString("asset")
	payTo, _ := o.GetString("payTo")
	amount, _ := o.GetString("amount")
	fp, _ := extra.GetString("feePayer")
	tv, _ := o.Get("maxTimeoutSeconds")
	timeout, okT := jsonv.AsSafeInt(tv)
	_, okA := ParseEntity(asset)
	_, okP := ParseEntity(payTo)
	_, okF := ParseEntity(fp)
	_, okM := amountOf(amount)
	if !IsNetwork(n) || !okA || !okP || !okF || !okM || !okT || timeout <= 0 {
		return false, rails.Refuse(CodeOptionMalformed)
	}
	return true, nil
}

func serves(o *jsonv.Object) bool {
	ok, _ := CheckOption(o)
	return ok
}

func (Exact) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, serves) }

// accountOf reads a hedera CAIP-10 account: hedera:<network>:<entity>.
func accountOf(account string) (rails.Account, Entity, bool) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "hedera" || !IsNetwork(acct.Network()) {
		return rails.Account{}, Entity{}, false
	}
	e, ok := ParseEntity(acct.Address)
	return acct, e, ok
}

// Choose takes the first served option on the account's network and the
// buyer's inputs: node (the node account the body names), maxFee (tinybars,
// decimal), optionally validStart {seconds (decimal), nanos} (now when
// absent) and, for a token, its decimals (x402/input-missing).
func (Exact) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, _, ok := accountOf(account)
	if !ok {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	accepted := x402.OptionOn(read.Options, acct.Network())
	if accepted == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	missing := rails.Refuse(x402.CodeInputMissing)
	node, _ := inputs.GetString("node")
	fee, _ := inputs.GetString("maxFee")
	if _, ok := ParseEntity(node); !ok || !rails.IsDecimal(fee) {
		return nil, missing
	}
	vs := jsonv.Obj("seconds", strconv.FormatInt(now, 10), "nanos", 0)
	if v, has := inputs.Get("validStart"); has {
		o, ok := jsonv.AsObject(v)
		if !ok {
			return nil, missing
		}
		vs = o.Clone()
	}
	choice := jsonv.Obj("required", read.Required, "accepted", accepted, "payer", acct.Address, "node", node, "maxFee", fee,
		"validStart", vs)
	if v, has := inputs.Get("decimals"); has {
		if d, ok := jsonv.AsSafeInt(v); !ok || d < 0 || d > 0xffffffff {
			return nil, missing
		}
		choice.Set("decimals", v)
	}
	return choice, nil
}

type exactUnsigned struct {
	required, accepted *jsonv.Object
	network            string
	body               []byte
	validUntil         int64
}

// Build checks the choice (hedera/option-malformed for any value out of
// range) and writes the body: the fee payer's transaction id at the valid
// start, the node, the maximum fee, a valid duration of ValidDuration
// seconds, the memo Carrier(h), and the payer's debit and payTo's credit of
// amount in HBAR, or in the token (a TokenTransferList with the expected
// decimals when the buyer gave them).
func (Exact) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	malformed := rails.Refuse(CodeOptionMalformed)
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, malformed
	}
	required, ok1 := c.GetObject("required")
	accepted, ok2 := c.GetObject("accepted")
	if !ok1 || !ok2 {
		return nil, malformed
	}
	if ok, err := CheckOption(accepted); err != nil {
		return nil, err
	} else if !ok {
		return nil, rails.Refuse(x402.CodeOptionNotThisPairing)
	}
	if err := x402.Chosen(required, accepted, serves); err != nil {
		return nil, err
	}
	str := func(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }
	extra, _ := accepted.GetObject("extra")
	payer, okP := ParseEntity(str(c, "payer"))
	node, okN := ParseEntity(str(c, "node"))
	feePayer, _ := ParseEntity(str(extra, "feePayer"))
	payTo, _ := ParseEntity(str(accepted, "payTo"))
	amount, _ := amountOf(str(accepted, "amount"))
	maxFee, errF := strconv.ParseUint(str(c, "maxFee"), 10, 64)
	vs, _ := c.GetObject("validStart")
	secs, errS := strconv.ParseInt(str(vs, "seconds"), 10, 64)
	nv, _ := vs.Get("nanos")
	nanos, okNs := jsonv.AsSafeInt(nv)
	if !okP || !okN || errF != nil || errS != nil || secs < 0 || !okNs || nanos < 0 || nanos > 999_999_999 ||
		secs > 1<<53-1-ValidDuration {
		return nil, malformed
	}
	spec := BodySpec{ID: TxID{Account: feePayer, Seconds: secs, Nanos: int32(nanos)}, Node: node, MaxFee: maxFee,
		Memo: Carrier(h), Asset: str(accepted, "asset"), Payer: payer, PayTo: payTo, Amount: amount}
	if v, has := c.Get("decimals"); has {
		d, ok := jsonv.AsSafeInt(v)
		if !ok || d < 0 || d > 0xffffffff {
			return nil, malformed
		}
		u := uint32(d)
		spec.Decimals = &u
	}
	network, _ := accepted.GetString("network")
	return &exactUnsigned{required: required, accepted: accepted, network: network, body: WriteBody(spec),
		validUntil: secs + ValidDuration}, nil
}

// Request is {kind: "hedera-body", bodyBytes, network, validUntil}: a body
// names no network, so the request does, for the spend policy.
func (Exact) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*exactUnsigned)
	return BodyRequest(b.body, b.network, b.validUntil), nil
}

// BodyRequest is a hedera-body signing request.
func BodyRequest(body []byte, network string, validUntil int64) rails.Request {
	return jsonv.Obj("kind", KindBody, "bodyBytes", "0x"+hex.EncodeToString(body), "network", network,
		"validUntil", jsonv.Number(validUntil))
}

// SigOf reads a signer's answer {publicKey, signature, type}: 0x hex, a
// 32-byte key for ed25519, 33 for ecdsa-secp256k1, a 64-byte signature.
func SigOf(answer jsonv.Value) (Sig, bool) {
	o, ok := jsonv.AsObject(answer)
	if !ok {
		return Sig{}, false
	}
	hexOf := func(k string) []byte {
		s, _ := o.GetString(k)
		if !strings.HasPrefix(s, "0x") || len(s) > 2+2*64 {
			return nil
		}
		b, err := hex.DecodeString(s[2:])
		if err != nil {
			return nil
		}
		return b
	}
	typ, _ := o.GetString("type")
	s := Sig{PublicKey: hexOf("publicKey"), Signature: hexOf("signature"), ECDSA: typ == "ecdsa-secp256k1"}
	want := 32
	if s.ECDSA {
		want = 33
	} else if typ != "ed25519" {
		return Sig{}, false
	}
	return s, len(s.PublicKey) == want && len(s.Signature) == 64
}

// Complete writes the signed Transaction with the payer's signature pair
// (the fee payer adds its own) as payload.transaction, base64, and appends
// the payment identifier.
func (Exact) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*exactUnsigned)
	sig, ok := SigOf(answer)
	if !ok {
		return rails.Completion{}, rails.Refuse(x402.CodeSignatureMalformed)
	}
	tx := base64.StdEncoding.EncodeToString(WriteTransaction(b.body, sig))
	payment := x402.Payment(b.required, b.accepted, jsonv.Obj("transaction", tx))
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// WireOf reads a base64 transaction: a string of at most the base64 of
// MaxTx bytes (hedera/tx-too-large), padded standard base64
// (hedera/tx-malformed), decoding as DecodeTx reads it.
func WireOf(v jsonv.Value) (*Signed, error) {
	s, ok := v.(string)
	if !ok || s == "" {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	if len(s) > (MaxTx+2)/3*4 {
		return nil, rails.Refuse(CodeTxTooLarge)
	}
	wire, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	return DecodeTx(wire)
}

// MemoH reads H from a memo: "" is hedera/no-memo; anything but
// lcp:sha256:0x and 64 lowercase hex digits is hedera/memo-not-lcp.
func MemoH(memo string) (string, error) {
	if memo == "" {
		return "", rails.Refuse(CodeNoMemo)
	}
	rest, ok := strings.CutPrefix(memo, lcpPrefix)
	if !ok || !rails.IsHex(rest, 64) || strings.ToLower(rest) != rest {
		return "", rails.Refuse(CodeMemoNotLCP)
	}
	return rest, nil
}

func (Exact) presented(p jsonv.Value) (*jsonv.Object, *Body, error) {
	accepted, payload, err := x402.Presented(p, serves)
	if err != nil {
		return nil, nil, err
	}
	tv, _ := payload.Get("transaction")
	s, err := WireOf(tv)
	if err != nil {
		return nil, nil, err
	}
	return accepted, s.Bodies[0], nil
}

// Bound reads H back from the signed body's memo. Transfers, the fee payer
// and the payer are not read here, and no signature is verified: the
// network verifies them.
func (p Exact) Bound(presented jsonv.Value) (string, error) {
	_, body, err := p.presented(presented)
	if err != nil {
		return "", err
	}
	return MemoH(body.Memo)
}

// Reference is what a seller records to find the payment: {network,
// transactionId (the Mirror Node form), expectMemo, validUntil (valid start
// plus the valid duration)}.
func (p Exact) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	accepted, body, err := p.presented(presented)
	if err != nil {
		return nil, err
	}
	if _, err := MemoH(body.Memo); err != nil {
		return nil, err
	}
	network, _ := accepted.GetString("network")
	return jsonv.Obj("network", network, "transactionId", body.ID.Mirror(), "expectMemo", body.Memo,
		"validUntil", jsonv.Number(body.ID.Seconds+body.ValidDuration)), nil
}

var errUnreadable = errors.New("hedera: the request is not a body this pairing builds")

// Summarize reads a hedera-body request: a CryptoTransfer of exactly two
// rows, in HBAR or in one token, a debit and an equal credit; the grant is
// that amount from the debited account to the credited one, payable from
// the valid start until it plus the valid duration. HBAR has 8 decimals; a
// token the body's expected decimals, else unknown.
func (Exact) Summarize(req rails.Request) (rails.Grant, error) {
	if k, _ := req.GetString("kind"); k != KindBody {
		return rails.Grant{}, errUnreadable
	}
	network, _ := req.GetString("network")
	text, _ := req.GetString("bodyBytes")
	raw, err := hex.DecodeString(strings.TrimPrefix(text, "0x"))
	if !IsNetwork(network) || !strings.HasPrefix(text, "0x") || err != nil || len(raw) > MaxTx {
		return rails.Grant{}, errUnreadable
	}
	body, ok := ReadBody(raw)
	if !ok {
		return rails.Grant{}, errUnreadable
	}
	return grantOf(body, network)
}

func grantOf(body *Body, network string) (rails.Grant, error) {
	if !body.IsTransfer {
		return rails.Grant{}, errUnreadable
	}
	rows, asset, decimals := body.HBAR, HBAR, 8
	if body.Token != nil {
		if len(body.HBAR) != 0 {
			return rails.Grant{}, errUnreadable
		}
		rows, asset, decimals = body.TokenRows, body.Token.String(), -1
		if body.HasDecimals {
			decimals = int(body.Decimals)
		}
	}
	if len(rows) != 2 || rows[0].Amount >= 0 || rows[1].Amount != -rows[0].Amount {
		return rails.Grant{}, errUnreadable
	}
	start := time.Unix(body.ID.Seconds, int64(body.ID.Nanos)).UTC()
	return rails.Grant{Network: network, Asset: asset, Decimals: decimals, Amount: big.NewInt(rows[1].Amount),
		Payer: rows[0].Account.String(), Payee: rows[1].Account.String(), PayableFrom: start,
		PayableUntil: time.Unix(body.ID.Seconds+body.ValidDuration, 0).UTC()}, nil
}

// Inspect reads a payment's signed body through Summarize's reading, with
// H, the transaction id and the fee payer beside it.
func (p Exact) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	accepted, body, err := p.presented(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	h, err := MemoH(body.Memo)
	if err != nil {
		return rails.Inspection{}, err
	}
	network, _ := accepted.GetString("network")
	g, err := grantOf(body, network)
	if err != nil {
		return rails.Inspection{}, err
	}
	return rails.Inspection{Pairing: ExactID, Kind: "payment", Grant: g, H: "0x" + strings.TrimPrefix(h, "0x"),
		WhereH: "the signed TransactionBody's memo: \"lcp:sha256:\" + H",
		Details: jsonv.Obj("transactionId", body.ID.Text(), "feePayer", body.ID.Account.String(), "node", body.Node.String(),
			"maxFee", strconv.FormatUint(body.MaxFee, 10))}, nil
}

// PlaceOption is the seller's side: the option checked (hedera/option-
// malformed); the hash rides in the body the payer signs, so the option
// is unchanged.
func PlaceOption(option *jsonv.Object) (*jsonv.Object, error) {
	ok, err := CheckOption(option)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, rails.Refuse(x402.CodeOptionNotThisPairing)
	}
	return option.Clone(), nil
}
