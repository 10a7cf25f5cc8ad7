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

// ExactERC7710 is x402/exact/eip155/erc7710, the unsigned level. Where H
// goes: only the payment's echoed extensions.legalContext names it; the
// delegation the payer's account redeems (any ERC-7710 manager) signs
// nothing the gate can read H from, and the settlement carries none. The
// payment is no public proof, so the gate runs the agreement exchange first
// (docs/agreement.md, docs/erc7710.md). A payment through MetaMask's
// DelegationManager, whose leaf salt is H, is the salt level
// (ExactERC7710Salt).
type ExactERC7710 struct{}

// ExactERC7710ID is the pairing id.
const ExactERC7710ID = "x402/exact/eip155/erc7710"

var (
	_ rails.Pairing    = ExactERC7710{}
	_ rails.Summarizer = ExactERC7710{}
)

var exactERC7710 = x402ERC7710{id: ExactERC7710ID}

func (ExactERC7710) ID() string { return ExactERC7710ID }

func (ExactERC7710) Pattern() rails.Pattern {
	return rails.Pattern{Name: "http-advisory", PublicProof: false}
}

func (ExactERC7710) Read(doc jsonv.Value) (rails.Read, error) { return exactERC7710.read(doc) }

func (ExactERC7710) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	return chooseEVM(read, account, now)
}

func (ExactERC7710) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	return exactERC7710.build(choice, h)
}

func (ExactERC7710) Request(u rails.Unsigned) (rails.Request, error) { return erc7710RequestOf(u) }

func (ExactERC7710) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	return completeDelegation(u, answer, chosen)
}

// Bound reads H back from the echoed extensions.legalContext
// (x402/no-legal-context without it).
func (ExactERC7710) Bound(presented jsonv.Value) (string, error) {
	if _, err := exactERC7710.presented(presented); err != nil {
		return "", err
	}
	o, _ := jsonv.AsObject(presented)
	return x402.EchoedLegalContext(o)
}

// Summarize states what the request asks the wallet to delegate: amount of
// token to payTo, on the chain, until validBefore.
func (ExactERC7710) Summarize(req rails.Request) (rails.Grant, error) { return summarizeERC7710(req) }

// Reference is what a seller records at claim: the token's Transfer from
// the delegator to payTo (of any amount).
func (ExactERC7710) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	if _, err := (ExactERC7710{}).Bound(presented); err != nil {
		return nil, err
	}
	return exactERC7710.reference(presented, "")
}

// Status reads a reference with a transaction (RefStatus).
func (ExactERC7710) Status(ref *jsonv.Object, r Reader) Status { s, _ := RefStatus(ref, r); return s }

// Inspect states what a payment grants and where H sits.
func (p ExactERC7710) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	return exactERC7710.inspect(payment, h,
		"extensions.legalContext.info.value: only echoed; the delegation signs no H and the settlement carries none (no public proof: the agreement exchange runs first)")
}

// KindERC7710 is the signing request that asks the payer's wallet for a
// permission context: a delegation (under delegationManager) that lets the
// payment be redeemed, whose leaf salt is the request's salt. The answer is
// {delegationManager, permissionContext, delegator}.
const KindERC7710 = "erc7710"

// x402ERC7710 is what the two ERC-7710 pairings share: the option (exact,
// assetTransferMethod erc7710), the request and the payload.
type x402ERC7710 struct {
	id   string
	salt bool // the salt level: H is the leaf's salt, read back from the context
}

func (x402ERC7710) filter(o *jsonv.Object) (bool, string) {
	if s, _ := o.GetString("scheme"); s != "exact" {
		return false, ""
	}
	network, _ := o.GetString("network")
	asset, _ := o.GetString("asset")
	payTo, _ := o.GetString("payTo")
	if !validChain(network) || !IsAddress(asset) || !IsAddress(payTo) {
		return false, ""
	}
	extra, _ := o.GetObject("extra")
	if m, _ := extra.GetString("assetTransferMethod"); m != "erc7710" {
		return false, ""
	}
	if f, has := extra.Get("paymentFlow"); has && f != "authorization" && f != "upfront" {
		return false, ""
	}
	return true, ""
}

func (x x402ERC7710) read(doc jsonv.Value) (rails.Read, error) {
	return x402.Read(doc, func(o *jsonv.Object) bool { ok, _ := x.filter(o); return ok })
}

type delegationUnsigned struct {
	required, accepted *jsonv.Object
	request            rails.Request
	salt               bool
	h                  atr.Hash
	from               string
}

func (x x402ERC7710) build(choice jsonv.Value, h atr.Hash) (rails.Unsigned, error) {
	c, err := readChoice(choice, x.filter, nil)
	if err != nil {
		return nil, err
	}
	asset, _ := c.accepted.GetString("asset")
	payTo, _ := c.accepted.GetString("payTo")
	amount, _ := c.accepted.GetString("amount")
	req := jsonv.Obj("kind", KindERC7710, "chainId", c.chainID, "delegationManager", DelegationManager,
		"delegator", c.from, "token", asset, "payTo", payTo, "amount", amount,
		"validBefore", strconv.FormatInt(c.deadline, 10), "salt", h.String())
	return &delegationUnsigned{required: c.required, accepted: c.accepted, request: req, salt: x.salt, h: h, from: c.from}, nil
}

func erc7710RequestOf(u rails.Unsigned) (rails.Request, error) {
	return u.(*delegationUnsigned).request.Clone(), nil
}

// completeDelegation reads the wallet's answer {delegationManager,
// permissionContext, delegator}: addresses, the delegator the chosen
// account, and a context of 0x and at
// most 32 KiB of hex (x402/permission-context-malformed). At the salt
// level the context must also decode (its leaf salt is read back by
// Bound).
func completeDelegation(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*delegationUnsigned)
	o, ok := jsonv.AsObject(answer)
	malformed := rails.Refuse(x402.CodePayloadMalformed)
	if !ok || o.Len() != 3 {
		return rails.Completion{}, malformed
	}
	s, ok := stringsOf(o, "delegationManager", "delegator")
	if !ok || !IsAddress(s[0]) || !IsAddress(s[1]) || !strings.EqualFold(s[1], b.from) {
		return rails.Completion{}, malformed // the delegation is the chosen account's, or not this payment
	}
	ctx, _ := o.GetString("permissionContext")
	raw, ok := HexBytes(ctx)
	if !ok || len(raw) > MaxContextBytes {
		return rails.Completion{}, rails.Refuse(CodePermissionContextMalformed)
	}
	payload := jsonv.Obj("delegationManager", s[0], "permissionContext", ctx, "delegator", s[1])
	payment := x402.Payment(b.required, b.accepted, payload)
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// Refusal codes of the ERC-7710 payments.
const (
	CodeManagerNotReference        = "x402/manager-not-reference"        // the salt level needs MetaMask's DelegationManager
	CodePermissionContextMalformed = "x402/permission-context-malformed" // the context is not abi.encode(Delegation[])
	CodeDelegationEmpty            = "x402/delegation-empty"             // the context holds no delegation
)

// erc7710Presented is a presented ERC-7710 payment.
type erc7710Presented struct {
	accepted                    *jsonv.Object
	manager, delegator, context string
}

// presented reads the payload's three strings (x402/payload-malformed).
func (x x402ERC7710) presented(p jsonv.Value) (erc7710Presented, error) {
	accepted, payload, err := presentedEVM(p, "exact", x.filter)
	if err != nil {
		return erc7710Presented{}, err
	}
	s, ok := stringsOf(payload, "delegationManager", "delegator")
	ctx, okCtx := payload.GetString("permissionContext")
	if !ok || !okCtx || len(ctx) > 2+2*MaxContextBytes {
		return erc7710Presented{}, rails.Refuse(x402.CodePayloadMalformed)
	}
	return erc7710Presented{accepted: accepted, manager: s[0], delegator: s[1], context: ctx}, nil
}

// PairingOfERC7710 is the pairing a presented ERC-7710 payment is read by:
// the salt level when its manager is MetaMask's DelegationManager on a chain
// where it is deployed, else the unsigned level.
func PairingOfERC7710(p jsonv.Value) string {
	got, err := exactERC7710.presented(p)
	if err == nil {
		if network, _ := got.accepted.GetString("network"); IsReferenceManager(got.manager, network) {
			return ExactERC7710SaltID
		}
	}
	return ExactERC7710ID
}

// reference: the network, and the token's Transfer from the delegator to
// payTo (identity from,to); at the salt level also the manager's
// RedeemedDelegation whose data word 5 (the leaf salt) is h.
func (x x402ERC7710) reference(p jsonv.Value, h string) (*jsonv.Object, error) {
	got, err := x.presented(p)
	if err != nil {
		return nil, err
	}
	payTo, _ := got.accepted.GetString("payTo")
	asset, _ := got.accepted.GetString("asset")
	network, _ := got.accepted.GetString("network")
	digest, err := TransferDigest(TransferFields{From: got.delegator, To: payTo})
	if err != nil {
		return nil, rails.Refuse(x402.CodePayloadMalformed)
	}
	ref := jsonv.Obj("network", network,
		"transferLog", jsonv.Obj("address", asset, "topic0", TopicTransfer.Hex(), "identity", "from,to", "digest", hex0x(digest[:])))
	if h != "" {
		ref.Set("bindingLog", jsonv.Obj("address", DelegationManager, "topic0", TopicRedeemedDelegation, "dataWord", 5, "value", h))
	}
	return ref, nil
}

func (x x402ERC7710) inspect(p jsonv.Value, h, where string) (rails.Inspection, error) {
	got, err := x.presented(p)
	if err != nil {
		return rails.Inspection{}, err
	}
	str := func(k string) string { s, _ := got.accepted.GetString(k); return s }
	network, asset := str("network"), str("asset")
	g := rails.Grant{Network: network, Asset: asset, Decimals: rails.KnownDecimals(network, asset),
		Payer: got.delegator, Payee: str("payTo")}
	if n, ok := new(big.Int).SetString(str("amount"), 10); ok && IsUint256Decimal(str("amount")) {
		g.Amount = n
	}
	details := jsonv.Obj("delegationManager", got.manager, "contextBytes", strconv.Itoa((len(got.context)-2)/2))
	return rails.Inspection{Pairing: x.id, Kind: "payment", Grant: g, H: h, WhereH: where, Details: details}, nil
}

// summarizeERC7710 reads an erc7710 request, exactly the members build
// writes: it asks for a delegation of amount of token to payTo, on chainId,
// until validBefore.
func summarizeERC7710(req rails.Request) (rails.Grant, error) {
	bad := rails.Refuse(CodeRequestUnreadable)
	if req == nil || req.Len() != 9 {
		return rails.Grant{}, bad
	}
	if k, _ := req.GetString("kind"); k != KindERC7710 {
		return rails.Grant{}, bad
	}
	cv, _ := req.Get("chainId")
	chain, okChain := jsonv.AsSafeInt(cv)
	s, ok := stringsOf(req, "delegationManager", "delegator", "token", "payTo", "amount", "validBefore", "salt")
	if !ok || !okChain || chain <= 0 || !IsAddress(s[0]) || !IsAddress(s[1]) || !IsAddress(s[2]) || !IsAddress(s[3]) ||
		!IsUint256Decimal(s[4]) || !IsUint256Decimal(s[5]) || !rails.IsHex(s[6], 64) {
		return rails.Grant{}, bad
	}
	network := "eip155:" + strconv.FormatInt(chain, 10)
	amount, _ := new(big.Int).SetString(s[4], 10)
	return rails.Grant{Network: network, Asset: s[2], Decimals: rails.KnownDecimals(network, s[2]), Amount: amount,
		Payer: s[1], Payee: s[3], PayableUntil: UnixTime(s[5])}, nil
}
