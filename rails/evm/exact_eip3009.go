package evm

import (
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/x402"
)

// ExactEIP3009 is x402/exact/eip155/eip3009: an EIP-3009
// TransferWithAuthorization whose nonce is H (docs/protocol.md, "x402").
// The token emits AuthorizationUsed(from, nonce) when it settles, so H is on
// chain for anyone to read: the payment is a public proof.
type ExactEIP3009 struct{}

// ExactEIP3009ID is the pairing id.
const ExactEIP3009ID = "x402/exact/eip155/eip3009"

func (ExactEIP3009) ID() string { return ExactEIP3009ID }

func (ExactEIP3009) Pattern() rails.Pattern {
	return rails.Pattern{Name: "native-field", PublicProof: true}
}

// chainID returns the chain number of an eip155 network
// (^eip155:[1-9][0-9]{0,15}$) when it is a safe integer.
func chainID(network string) (int64, bool) {
	ref, ok := strings.CutPrefix(network, "eip155:")
	if !ok || len(ref) < 1 || len(ref) > 16 || ref[0] == '0' || !rails.IsDecimal(ref) {
		return 0, false
	}
	n, err := strconv.ParseInt(ref, 10, 64)
	return n, err == nil && n <= jsonv.MaxSafeInteger
}

// serves is the option filter: exact on an eip155 chain, paid by EIP-3009.
func (ExactEIP3009) serves(o *jsonv.Object) bool {
	if s, _ := o.GetString("scheme"); s != "exact" {
		return false
	}
	if n, _ := o.GetString("network"); !validChain(n) {
		return false
	}
	ev, has := o.Get("extra")
	if !has {
		return true
	}
	extra, ok := jsonv.AsObject(ev)
	if !ok {
		return false
	}
	if m, has := extra.Get("assetTransferMethod"); has && m != "eip3009" {
		return false
	}
	if f, has := extra.Get("paymentFlow"); has && f != "authorization" && f != "upfront" {
		return false
	}
	return true
}

func validChain(network string) bool { _, ok := chainID(network); return ok }

func (p ExactEIP3009) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, p.serves) }

// Choose takes the first served option on the account's network.
func (ExactEIP3009) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "eip155" || !IsAddress(acct.Address) {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	for _, opt := range read.Options {
		o, _ := jsonv.AsObject(opt)
		if n, _ := o.GetString("network"); n == acct.Network() {
			return jsonv.Obj("required", read.Required, "accepted", o, "from", acct.Address, "now", now), nil
		}
	}
	return nil, rails.Refuse(x402.CodeNoPayableOption)
}

type exactUnsigned struct {
	required, accepted *jsonv.Object
	authorization      *jsonv.Object // {from, to, value, validAfter, validBefore, nonce}, all strings
	typedData          *jsonv.Object
}

// Build checks the choice in the documented order and puts H in the
// nonce.
func (p ExactEIP3009) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	required, ok1 := c.GetObject("required")
	accepted, ok2 := c.GetObject("accepted")
	if !ok1 || !ok2 {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	_, accepts, err := x402.Document(required)
	if err != nil {
		return nil, err
	}
	if !x402.OptionInDocument(accepted, accepts) {
		return nil, rails.Refuse(x402.CodeOptionNotInDocument)
	}
	if !p.serves(accepted) {
		return nil, rails.Refuse(x402.CodeOptionNotThisPairing)
	}
	malformed := rails.Refuse(x402.CodeOptionMalformed)
	extra, _ := accepted.GetObject("extra")
	name, _ := extra.GetString("name")
	version, _ := extra.GetString("version")
	asset, _ := accepted.GetString("asset")
	payTo, _ := accepted.GetString("payTo")
	amount, _ := accepted.GetString("amount")
	mtv, _ := accepted.Get("maxTimeoutSeconds")
	timeout, okTimeout := jsonv.AsSafeInt(mtv)
	if name == "" || version == "" || !IsAddress(asset) || !IsAddress(payTo) || !IsUint256Decimal(amount) || !okTimeout || timeout <= 0 {
		return nil, malformed
	}
	from, _ := c.GetString("from")
	nv, _ := c.Get("now")
	now, okNow := jsonv.AsSafeInt(nv)
	if !IsAddress(from) || !okNow {
		return nil, malformed
	}
	network, _ := accepted.GetString("network")
	chain, _ := chainID(network)
	nonce := h.String()
	validBefore := strconv.FormatInt(now+timeout, 10)

	authorization := jsonv.Obj(
		"from", from, "to", payTo, "value", amount,
		"validAfter", "0", "validBefore", validBefore, "nonce", nonce)
	typedData := TransferWithAuthorization(name, version, chain, asset, authorization)
	return &exactUnsigned{required: required, accepted: accepted, authorization: authorization, typedData: typedData}, nil
}

// TransferWithAuthorization is the EIP-712 typed data of an EIP-3009
// authorization ({from, to, value, validAfter, validBefore, nonce}, all
// strings) under the token's domain. Sellers rebuild it to verify a payment.
func TransferWithAuthorization(name, version string, chainID int64, token string, authorization *jsonv.Object) *jsonv.Object {
	return jsonv.Obj(
		"domain", jsonv.Obj("name", name, "version", version, "chainId", chainID, "verifyingContract", token),
		"types", jsonv.Obj(
			"EIP712Domain", eip712DomainType(),
			"TransferWithAuthorization", []jsonv.Value{
				field("from", "address"), field("to", "address"), field("value", "uint256"),
				field("validAfter", "uint256"), field("validBefore", "uint256"), field("nonce", "bytes32"),
			}),
		"primaryType", "TransferWithAuthorization",
		"message", authorization.Clone(),
	)
}

// ChainID returns the chain number of an eip155 network ("eip155:84532").
func ChainID(network string) (int64, bool) { return chainID(network) }

func (ExactEIP3009) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*exactUnsigned)
	return jsonv.Obj("kind", "eip712", "typedData", b.typedData.Clone()), nil
}

// MinSignatureBytes and MaxSignatureBytes bound a signature: 65 bytes for an
// EOA, up to 8192 for a smart-wallet (EIP-1271/6492) signature.
const (
	MinSignatureBytes = 65
	MaxSignatureBytes = 8192
)

// Complete puts the signature beside the authorization it signs, then
// appends the payment identifier where the seller advertises one.
func (ExactEIP3009) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*exactUnsigned)
	sig, ok := jsonv.AsString(answer)
	if !ok {
		return rails.Completion{}, rails.Refuse(x402.CodeSignatureMalformed)
	}
	raw, ok := HexBytes(sig)
	if !ok || len(raw) < MinSignatureBytes || len(raw) > MaxSignatureBytes {
		return rails.Completion{}, rails.Refuse(x402.CodeSignatureMalformed)
	}
	payload := jsonv.Obj("signature", sig, "authorization", b.authorization.Clone())
	payment := x402.Payment(b.required, b.accepted, payload)
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// Bound reads H back: the authorization's nonce.
func (p ExactEIP3009) Bound(presented jsonv.Value) (string, error) {
	o, ok := jsonv.AsObject(presented)
	if !ok {
		return "", rails.Refuse(x402.CodeNotV2)
	}
	if v, _ := o.Get("x402Version"); v != jsonv.Number(2) {
		return "", rails.Refuse(x402.CodeNotV2)
	}
	payloadMalformed := rails.Refuse(x402.CodePayloadMalformed)
	if o.Has("refused") {
		return "", payloadMalformed // a value shaped like a refusal is never a payment
	}
	accepted, ok := o.GetObject("accepted")
	if !ok {
		return "", payloadMalformed
	}
	if !p.serves(accepted) {
		return "", rails.Refuse(x402.CodeOptionNotThisPairing)
	}
	payload, ok := o.GetObject("payload")
	if !ok {
		return "", payloadMalformed
	}
	auth, ok := payload.GetObject("authorization")
	if !ok {
		return "", payloadMalformed
	}
	for _, k := range []string{"from", "to", "value", "validAfter", "validBefore", "nonce"} {
		if _, ok := auth.GetString(k); !ok {
			return "", payloadMalformed
		}
	}
	sig, _ := payload.GetString("signature")
	if raw, ok := HexBytes(sig); !ok || len(raw) < 1 || len(raw) > MaxSignatureBytes {
		return "", rails.Refuse(x402.CodeSignatureMalformed)
	}
	nonce, _ := auth.GetString("nonce")
	h, err := atr.ParseHash(nonce)
	if err != nil {
		return "", payloadMalformed
	}
	return h.String(), nil
}
