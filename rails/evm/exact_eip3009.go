package evm

import (
	"math/big"
	"strconv"
	"strings"
	"time"

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
	o := x402.OptionOn(read.Options, acct.Network())
	if o == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	if err := CheckAddresses("from", acct.Address); err != nil {
		return nil, err
	}
	if err := CheckAddressesIn("", o); err != nil {
		return nil, err
	}
	return jsonv.Obj("required", read.Required, "accepted", o, "from", acct.Address, "now", now), nil
}

type exactUnsigned struct {
	required, accepted *jsonv.Object
	authorization      *jsonv.Object // {from, to, value, validAfter, validBefore, nonce}, all strings
	// The token's domain: Request writes the typed data from it and the
	// authorization, each request its own copy, so that the payment is
	// copied once per request rather than once at the build and again for
	// each request.
	domain tokenDomain
}

// tokenDomain is a token's EIP-712 domain as the JSON values its typed
// data holds: the strings as the seller's document holds them (a string in
// a jsonv.Value is boxed once, when parsed: writing it again from a Go
// string boxed a copy per request) and the chain's number boxed once.
type tokenDomain struct{ name, version, chain, token jsonv.Value }

// typedData is the typed data of authorization under the domain, with its
// own copy of types and of the authorization.
func (d tokenDomain) typedData(types *jsonv.Object, primary jsonv.Value, authorization *jsonv.Object) *jsonv.Object {
	return jsonv.Obj(
		"domain", jsonv.Obj("name", d.name, "version", d.version, "chainId", d.chain, "verifyingContract", d.token),
		"types", types.Clone(),
		"primaryType", primary,
		"message", authorization.Clone(),
	)
}

// Build checks the choice in the documented order and puts H in the
// nonce.
func (p ExactEIP3009) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	u, err := p.build(choice, h.String())
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return u, nil
}

// build is Build with the nonce given: H, or for an unbound payment 32
// random bytes (unbound.go).
func (p ExactEIP3009) build(choice jsonv.Value, nonce string) (*exactUnsigned, error) {
	c, required, accepted, err := x402.ChosenOption(choice, p.serves)
	if err != nil {
		return nil, err
	}
	malformed := func() error { return rails.Refuse(x402.CodeOptionMalformed) } // made only when refused
	extra, _ := accepted.GetObject("extra")
	// The seller's strings are kept as the values they are in its
	// document (tokenDomain says why).
	nameV, _ := extra.Get("name")
	versionV, _ := extra.Get("version")
	assetV, _ := accepted.Get("asset")
	payToV, _ := accepted.Get("payTo")
	amountV, _ := accepted.Get("amount")
	name, _ := nameV.(string)
	version, _ := versionV.(string)
	asset, _ := assetV.(string)
	payTo, _ := payToV.(string)
	amount, _ := amountV.(string)
	mtv, _ := accepted.Get("maxTimeoutSeconds")
	timeout, okTimeout := jsonv.AsSafeInt(mtv)
	if name == "" || version == "" || !IsAddress(asset) || !IsAddress(payTo) || !IsUint256Decimal(amount) || !okTimeout || timeout <= 0 {
		return nil, malformed()
	}
	fromV, _ := c.Get("from")
	from, _ := fromV.(string)
	nv, _ := c.Get("now")
	now, okNow := jsonv.AsSafeInt(nv)
	if !IsAddress(from) || !okNow {
		return nil, malformed()
	}
	network, _ := accepted.GetString("network")
	chain, _ := chainID(network)
	validBefore := strconv.FormatInt(now+timeout, 10)

	authorization := jsonv.Obj(
		"from", fromV, "to", payToV, "value", amountV,
		"validAfter", "0", "validBefore", validBefore, "nonce", nonce)
	return &exactUnsigned{required: required, accepted: accepted, authorization: authorization,
		domain: tokenDomain{name: nameV, version: versionV, chain: jsonv.Number(chain), token: assetV}}, nil
}

// TransferWithAuthorization is the EIP-712 typed data of an EIP-3009
// authorization ({from, to, value, validAfter, validBefore, nonce}, all
// strings) under the token's domain. Sellers rebuild it to verify a payment.
func TransferWithAuthorization(name, version string, chainID int64, token string, authorization *jsonv.Object) *jsonv.Object {
	return tokenAuthorization(name, version, chainID, token, transferTypes, "TransferWithAuthorization", authorization)
}

// authorizationFields are the members of an EIP-3009 authorization.
func authorizationFields() []jsonv.Value {
	return []jsonv.Value{
		field("from", "address"), field("to", "address"), field("value", "uint256"),
		field("validAfter", "uint256"), field("validBefore", "uint256"), field("nonce", "bytes32"),
	}
}

// The types of the EIP-3009 authorizations, built once: every request gets
// its own copy (one copy is three allocations, building them twenty).
var (
	transferTypes = jsonv.Obj("EIP712Domain", eip712DomainType(), "TransferWithAuthorization", authorizationFields())
	receiveTypes  = jsonv.Obj("EIP712Domain", eip712DomainType(), "ReceiveWithAuthorization", authorizationFields())
)

func tokenAuthorization(name, version string, chainID int64, token string, types *jsonv.Object, primary string, authorization *jsonv.Object) *jsonv.Object {
	return tokenDomain{name: name, version: version, chain: jsonv.Number(chainID), token: token}.typedData(types, primary, authorization)
}

// ChainID returns the chain number of an eip155 network ("eip155:84532").
func ChainID(network string) (int64, bool) { return chainID(network) }

func (ExactEIP3009) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*exactUnsigned)
	if !isAuthorization(b.authorization) {
		// Not the authorization build makes: written the general way.
		return jsonv.Obj("kind", "eip712", "typedData", b.domain.typedData(transferTypes, "TransferWithAuthorization", b.authorization)), nil
	}
	req := transferRequest.CopyObject()
	td, _ := req.GetObject("typedData")
	domain, _ := td.GetObject("domain")
	domain.Set("name", b.domain.name)
	domain.Set("version", b.domain.version)
	domain.Set("chainId", b.domain.chain)
	domain.Set("verifyingContract", b.domain.token)
	msg, _ := td.GetObject("message")
	fillAuthorization(msg, b.authorization)
	return req, nil
}

// transferRequest is every EIP-3009 transfer's signing request, its domain
// and message values left empty: a request is a copy of it with them
// filled in. The copy is the request's own (the signer may edit it), made
// in five allocations where building and cloning its fifteen objects took
// thirteen. What fills it is the build's values themselves: strings and
// numbers, which no one can edit through a jsonv.Value.
var transferRequest = jsonv.NewCopier(jsonv.Obj("kind", "eip712", "typedData",
	tokenDomain{}.typedData(transferTypes, "TransferWithAuthorization", emptyAuthorization())))

// authorizationKeys are an EIP-3009 authorization's members, in the order
// build writes them.
var authorizationKeys = [...]string{"from", "to", "value", "validAfter", "validBefore", "nonce"}

func emptyAuthorization() *jsonv.Object {
	o := jsonv.Obj()
	for _, k := range authorizationKeys {
		o.Set(k, nil)
	}
	return o
}

// isAuthorization reports whether o has authorizationKeys' members in
// their order, as build writes them.
func isAuthorization(o *jsonv.Object) bool {
	ms := o.Members()
	if len(ms) != len(authorizationKeys) {
		return false
	}
	for i, m := range ms {
		if m.Key != authorizationKeys[i] {
			return false
		}
	}
	return true
}

// fillAuthorization sets dst's members (a copy of emptyAuthorization) to
// the values of authorization (isAuthorization).
func fillAuthorization(dst, authorization *jsonv.Object) {
	for _, m := range authorization.Members() {
		dst.Set(m.Key, m.Value)
	}
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
	if n, ok := hexLen(sig); !ok || n < MinSignatureBytes || n > MaxSignatureBytes {
		return rails.Completion{}, rails.Refuse(x402.CodeSignatureMalformed)
	}
	var payload *jsonv.Object
	if isAuthorization(b.authorization) {
		payload = transferPayload.CopyObject()
		payload.Set("signature", answer) // the answer's own string, not boxed again
		auth, _ := payload.GetObject("authorization")
		fillAuthorization(auth, b.authorization)
	} else {
		payload = jsonv.Obj("signature", sig, "authorization", b.authorization.Clone())
	}
	payment := x402.Payment(b.required, b.accepted, payload)
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// transferPayload is the payload Complete writes, its values left empty
// (transferRequest says why).
var transferPayload = jsonv.NewCopier(jsonv.Obj("signature", nil, "authorization", emptyAuthorization()))

// Bound reads H back: the authorization's nonce.
func (p ExactEIP3009) Bound(presented jsonv.Value) (string, error) {
	o, ok := jsonv.AsObject(presented)
	if !ok {
		return "", rails.Refuse(x402.CodeNotV2)
	}
	if v, _ := o.Get("x402Version"); v != jsonv.Number(2) {
		return "", rails.Refuse(x402.CodeNotV2)
	}
	payloadMalformed := func() error { return rails.Refuse(x402.CodePayloadMalformed) } // made only when refused
	if o.Has("refused") {
		return "", payloadMalformed() // a value shaped like a refusal is never a payment
	}
	accepted, ok := o.GetObject("accepted")
	if !ok {
		return "", payloadMalformed()
	}
	if !p.serves(accepted) {
		return "", rails.Refuse(x402.CodeOptionNotThisPairing)
	}
	payload, ok := o.GetObject("payload")
	if !ok {
		return "", payloadMalformed()
	}
	auth, ok := payload.GetObject("authorization")
	if !ok {
		return "", payloadMalformed()
	}
	for _, k := range []string{"from", "to", "value", "validAfter", "validBefore", "nonce"} {
		if _, ok := auth.GetString(k); !ok {
			return "", payloadMalformed()
		}
	}
	sig, _ := payload.GetString("signature")
	if n, ok := hexLen(sig); !ok || n < 1 || n > MaxSignatureBytes {
		return "", rails.Refuse(x402.CodeSignatureMalformed)
	}
	nonce, _ := auth.GetString("nonce")
	if rails.IsHex(nonce, 64) && !hasUpper(nonce) {
		// Already as String writes it, so ParseHash would read it: not
		// decoded, nor written again.
		return nonce, nil
	}
	h, err := atr.ParseHash(nonce)
	if err != nil {
		return "", payloadMalformed()
	}
	return h.String(), nil
}

// hexLen is the number of bytes s stands for when it is what HexBytes
// reads (0x and an even number of hex digits), without decoding them.
func hexLen(s string) (int, bool) {
	if len(s) < 2 || len(s)%2 != 0 || !rails.IsHex(s, len(s)-2) {
		return 0, false
	}
	return (len(s) - 2) / 2, true
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// CodeRequestUnreadable refuses to summarize a signing request that is not
// exactly the EIP-3009 authorization these pairings build.
const CodeRequestUnreadable = "evm/request-unreadable"

// Summarize states what signing the request grants: the authorization's
// value of the verifying contract's token, from its from to its to, on the
// domain's chain, valid from validAfter until validBefore.
func (ExactEIP3009) Summarize(req rails.Request) (rails.Grant, error) { return SummarizeTransfer(req) }

// SummarizeTransfer reads a kind eip712 request whose typed data is an
// EIP-3009 TransferWithAuthorization under the four-field domain {name,
// version, chainId, verifyingContract}, its types exactly as
// TransferWithAuthorization writes them, and nothing else: a member a
// summary does not read could be one a signer does. A different type list
// would give the same member names another meaning (or leave the chain or
// the contract out of what is signed), so it is refused
// (CodeRequestUnreadable).
func SummarizeTransfer(req rails.Request) (rails.Grant, error) {
	bad := func() error { return rails.Refuse(CodeRequestUnreadable) } // made only when refused
	if req == nil || req.Len() != 2 {
		return rails.Grant{}, bad()
	}
	if kind, _ := req.GetString("kind"); kind != "eip712" {
		return rails.Grant{}, bad()
	}
	td, ok := req.GetObject("typedData")
	if !ok || td.Len() != 4 {
		return rails.Grant{}, bad()
	}
	if pt, _ := td.GetString("primaryType"); pt != "TransferWithAuthorization" {
		return rails.Grant{}, bad()
	}
	types, ok := td.GetObject("types")
	if !ok || types.Len() != 2 || !sameFields(types, "EIP712Domain", transferDomainFields) || !sameFields(types, "TransferWithAuthorization", transferFields) {
		return rails.Grant{}, bad()
	}
	domain, ok := td.GetObject("domain")
	if !ok || domain.Len() != len(transferDomainFields)/2 {
		return rails.Grant{}, bad()
	}
	name, okName := domain.GetString("name")
	_, okVersion := domain.GetString("version")
	contract, okContract := domain.GetString("verifyingContract")
	chain, okChain := domainChainID(domain)
	if !okName || !okVersion || !okContract || !okChain || !IsAddress(contract) {
		return rails.Grant{}, bad()
	}
	msg, ok := td.GetObject("message")
	if !ok || msg.Len() != len(transferFields)/2 {
		return rails.Grant{}, bad()
	}
	var f [6]string
	for i, k := range []string{"from", "to", "value", "validAfter", "validBefore", "nonce"} {
		if f[i], ok = msg.GetString(k); !ok {
			return rails.Grant{}, bad()
		}
	}
	from, to, value, after, before := f[0], f[1], f[2], f[3], f[4]
	if !IsAddress(from) || !IsAddress(to) || !IsUint256Decimal(value) ||
		!IsUint256Decimal(after) || !IsUint256Decimal(before) || !rails.IsHex(f[5], 64) {
		return rails.Grant{}, bad()
	}
	amount, _ := new(big.Int).SetString(value, 10)
	network := "eip155:" + chain.String()
	return rails.Grant{
		Network: network, Asset: contract, AssetName: name, Decimals: rails.KnownDecimals(network, contract),
		Amount: amount, Payer: from, Payee: to,
		PayableFrom: UnixTime(after), PayableUntil: UnixTime(before),
	}, nil
}

// The EIP-712 types SummarizeTransfer accepts, as name/type pairs in order.
var (
	transferDomainFields = []string{"name", "string", "version", "string", "chainId", "uint256", "verifyingContract", "address"}
	transferFields       = []string{"from", "address", "to", "address", "value", "uint256",
		"validAfter", "uint256", "validBefore", "uint256", "nonce", "bytes32"}
)

func sameFields(types *jsonv.Object, name string, want []string) bool {
	v, _ := types.Get(name)
	list, ok := jsonv.AsArray(v)
	if !ok || len(list) != len(want)/2 {
		return false
	}
	for i, e := range list {
		o, ok := jsonv.AsObject(e)
		if !ok || o.Len() != 2 {
			return false
		}
		n, _ := o.GetString("name")
		t, _ := o.GetString("type")
		if n != want[2*i] || t != want[2*i+1] {
			return false
		}
	}
	return true
}

// domainChainID reads domain.chainId as go-ethereum's apitypes (and so a
// signer) does: a JSON number or a decimal string; it must be a positive
// integer.
func domainChainID(domain *jsonv.Object) (*big.Int, bool) {
	v, _ := domain.Get("chainId")
	if n, ok := jsonv.AsSafeInt(v); ok && n > 0 {
		return big.NewInt(n), true
	}
	if s, ok := jsonv.AsString(v); ok && IsUint256Decimal(s) && !strings.HasPrefix(s, "0") {
		n, _ := new(big.Int).SetString(s, 10)
		return n, true
	}
	return nil, false
}

// MaxUnix is the latest moment a summary states; a later deadline is
// "never expires" for every purpose, and time.Unix would overflow.
const MaxUnix = 1 << 40

// UnixTime is a decimal count of Unix seconds as a time, MaxUnix at most.
func UnixTime(decimal string) time.Time {
	n, ok := new(big.Int).SetString(decimal, 10)
	if !ok || !n.IsInt64() || n.Int64() > MaxUnix {
		return time.Unix(MaxUnix, 0)
	}
	return time.Unix(n.Int64(), 0)
}
