// Package starknet holds the Starknet pairing, x402/exact/starknet, and
// what it needs: felts, Poseidon, sn_keccak, SNIP-12's hash of SNIP-9 v2's
// OutsideExecution, the Stark curve's ECDSA for a local key, and the
// seller's status over a receipt and a trace (docs/starknet.md).
package starknet

// x402/exact/starknet: H goes in the SNIP-9 nonce. The payer signs a
// SNIP-12 OutsideExecution whose Nonce is H's low 250 bits (H AND 2^250-1,
// as a felt) and whose one call is the option's transfer; the fee payer
// submits it through the account's execute_from_outside_v2, whose calldata
// keeps the nonce on chain. A holder of the ATR confirms H from it; 250 of
// H's 256 bits are there, so nothing recovers H from the chain alone.

import (
	"crypto/sha256"
	"math/big"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

// Exact is the x402/exact/starknet pairing.
type Exact struct{}

// ExactID is the pairing id.
const ExactID = "x402/exact/starknet"

// Refusal codes of the pairing.
const (
	CodeNetworkMalformed   = "starknet/network-malformed"
	CodeFeltMalformed      = "starknet/felt-malformed"
	CodeCallerForbidden    = "starknet/caller-forbidden" // a fee payer of zero or ANY_CALLER, or the payer itself
	CodeOptionMalformed    = "starknet/option-malformed"
	CodeSignatureMalformed = "starknet/signature-malformed"
	CodeTypedDataMalformed = "starknet/typed-data-malformed"
	CodeNoLegalContext     = "starknet/no-legal-context"
	CodeNonceNotBound      = "starknet/nonce-not-bound"
	CodeSignedNotBound     = "x402/signed-not-bound"
)

// Bounds of what a payment may carry.
const (
	MaxSignatureFelts  = 32
	MaxTypedDataChars  = 16384
	DefaultTimeoutSecs = 60
	maxTimeoutSecs     = 7 * 24 * 3600
)

// Networks are the Starknet networks the pairing pays on.
var Networks = []string{"starknet:SN_MAIN", "starknet:SN_SEPOLIA"}

// Mask250 is 2^250 - 1.
var Mask250 = Felt{^uint64(0), ^uint64(0), ^uint64(0), 0x03ffffffffffffff}

var u128Limit = new(big.Int).Lsh(big.NewInt(1), 128)
var u256Limit = new(big.Int).Lsh(big.NewInt(1), 256)

// ChainID is a network's chain id: its reference as a short string.
func ChainID(network string) (Felt, bool) {
	ref, ok := strings.CutPrefix(network, "starknet:")
	if !ok || (ref != "SN_MAIN" && ref != "SN_SEPOLIA") {
		return Felt{}, false
	}
	return ShortString(ref)
}

// Nonce is H's low 250 bits as a felt: the SNIP-9 nonce this pairing signs.
func Nonce(h atr.Hash) Felt {
	f := FeltOfBytes(h)
	for i := range f {
		f[i] &= Mask250[i]
	}
	return f
}

// ParseHash reads 0x and 64 hex digits of either case.
func ParseHash(s string) (atr.Hash, bool) {
	if len(s) != 66 {
		return atr.Hash{}, false
	}
	h, err := atr.ParseHash(strings.ToLower(s))
	return h, err == nil
}

// parseAmount reads the option's amount: a decimal below 2^256 without a
// leading zero.
func parseAmount(v jsonv.Value) (*big.Int, bool) {
	s, ok := v.(string)
	if !ok || s == "" || len(s) > 78 || len(s) > 1 && s[0] == '0' || !rails.IsDecimal(s) {
		return nil, false
	}
	n, ok := new(big.Int).SetString(s, 10)
	return n, ok && n.Cmp(u256Limit) < 0
}

// CheckOption is "" for an option the pairing pays, or why not:
// x402/option-not-this-pairing for one that is not exact on a starknet:
// network or names an assetTransferMethod other than default or a
// paymentFlow other than authorization; starknet/option-malformed for an
// extra that is not an object, an amount that is not a u256 or a timeout
// that is not a positive integer; starknet/network-malformed for a network
// other than SN_MAIN and SN_SEPOLIA; starknet/felt-malformed for an asset,
// payTo or extra.feePayer that is not a felt; starknet/caller-forbidden for
// a fee payer of zero or SNIP-9's ANY_CALLER, which would let anyone
// submit the payer's signature.
func CheckOption(o *jsonv.Object) string {
	notThis := x402.CodeOptionNotThisPairing
	if s, _ := o.GetString("scheme"); s != "exact" {
		return notThis
	}
	n, _ := o.GetString("network")
	if !strings.HasPrefix(n, "starknet:") {
		return notThis
	}
	extra, ok := o.GetObject("extra")
	if !ok {
		return CodeOptionMalformed
	}
	if m, has := extra.Get("assetTransferMethod"); has && m != "default" {
		return notThis
	}
	if f, has := extra.Get("paymentFlow"); has && f != "authorization" {
		return notThis
	}
	if _, ok := ChainID(n); !ok {
		return CodeNetworkMalformed
	}
	_, okA := ParseFelt(mpp.String(o, "asset"))
	_, okP := ParseFelt(mpp.String(o, "payTo"))
	fp, okF := ParseFelt(mpp.String(extra, "feePayer"))
	if !okA || !okP || !okF {
		return CodeFeltMalformed
	}
	if fp.IsZero() || fp == anyCaller {
		return CodeCallerForbidden
	}
	if a, _ := o.Get("amount"); !okAmount(a) {
		return CodeOptionMalformed
	}
	if v, has := o.Get("maxTimeoutSeconds"); has {
		if t, ok := jsonv.AsSafeInt(v); !ok || t < 1 {
			return CodeOptionMalformed
		}
	}
	return ""
}

func okAmount(v jsonv.Value) bool { _, ok := parseAmount(v); return ok }

func serves(o *jsonv.Object) bool { return CheckOption(o) == "" }

var _ rails.Pairing = Exact{}

func (Exact) ID() string { return ExactID }

// Pattern: the nonce is H truncated to 250 bits, in the calldata of the
// transaction that moves the funds.
func (Exact) Pattern() rails.Pattern {
	return rails.Pattern{Name: "truncated-field", PublicProof: true}
}

func (Exact) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, serves) }

// Choose takes the first served option on the account's network. The
// payment is a signature over typed data the pairing writes whole, so it
// asks for no inputs.
func (Exact) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "starknet" {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	if _, ok := ParseFelt(acct.Address); !ok {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	accepted := x402.OptionOn(read.Options, acct.Network())
	if accepted == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	return jsonv.Obj("required", read.Required, "accepted", accepted, "payer", acct.Address, "now", now), nil
}

type exactUnsigned struct {
	required, accepted *jsonv.Object
	payer              Felt
	chainID            Felt
	oe                 OutsideExecution
	typedData          *jsonv.Object
}

// Build writes the OutsideExecution for the chosen option: the fee payer as
// Caller, H's low 250 bits as Nonce, Execute After 1 and Execute Before now
// plus the option's maxTimeoutSeconds (60 when it names none), and one
// transfer(payTo, amount as u256 low and high) on the asset. A payer equal
// to the fee payer is starknet/caller-forbidden; a choice without a time is
// x402/choice-malformed, as an unbounded signature is not made.
func (Exact) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, required, accepted, err := x402.ChosenOption(choice, serves)
	if err != nil {
		return nil, err
	}
	payer, ok := ParseFelt(mpp.String(c, "payer"))
	if !ok {
		return nil, rails.Refuse(CodeFeltMalformed)
	}
	extra, _ := accepted.GetObject("extra")
	feePayer, _ := ParseFelt(mpp.String(extra, "feePayer"))
	if payer == feePayer {
		return nil, rails.Refuse(CodeCallerForbidden)
	}
	nv, _ := c.Get("now")
	now, ok := jsonv.AsSafeInt(nv)
	if !ok || now <= 0 || now > 1<<40 {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	timeout := int64(DefaultTimeoutSecs)
	if v, has := accepted.Get("maxTimeoutSeconds"); has {
		timeout, _ = jsonv.AsSafeInt(v)
		if timeout > maxTimeoutSecs {
			return nil, rails.Refuse(CodeOptionMalformed)
		}
	}
	chain, _ := ChainID(mpp.String(accepted, "network"))
	asset, _ := ParseFelt(mpp.String(accepted, "asset"))
	payTo, _ := ParseFelt(mpp.String(accepted, "payTo"))
	av, _ := accepted.Get("amount")
	amount, _ := parseAmount(av)
	low, high := splitU256(amount)
	u := &exactUnsigned{required: required, accepted: accepted, payer: payer, chainID: chain}
	u.oe = OutsideExecution{Caller: feePayer, Nonce: Nonce(h), ExecuteAfter: Felt{1}, ExecuteBefore: Felt{uint64(now + timeout)},
		Calls: []Call{{To: asset, Selector: SelectorTransfer, Calldata: []Felt{payTo, low, high}}}}
	u.typedData = TypedData(&u.oe, chain)
	return u, nil
}

// splitU256 is a u256 as Cairo's (low, high) pair of u128 felts.
func splitU256(n *big.Int) (Felt, Felt) {
	hi, lo := new(big.Int).QuoRem(n, u128Limit, new(big.Int))
	return feltOfBig(lo), feltOfBig(hi)
}

func joinU256(low, high Felt) (*big.Int, bool) {
	l, h := low.Big(), high.Big()
	if l.Cmp(u128Limit) >= 0 || h.Cmp(u128Limit) >= 0 {
		return nil, false
	}
	return h.Lsh(h, 128).Add(h, l), true
}

// KindSNIP12 is the signing request of a Starknet payment: {kind, network,
// account, typedData}. The wallet signs typedData (SNIP-12 revision 1,
// SNIP-9 v2's OutsideExecution of one transfer) for account, whose
// contract verifies the signature when the fee payer submits it, and
// answers {signature}: a list of 1 to 32 felts, as the account's
// is_valid_signature reads them (r and s for a single Stark key).
const KindSNIP12 = "starknet-snip12"

func (Exact) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*exactUnsigned)
	return jsonv.Obj("kind", KindSNIP12, "network", mpp.String(b.accepted, "network"), "account", b.payer.String(),
		"typedData", b.typedData.Clone()), nil
}

// Complete takes the wallet's {signature} (1 to 32 felts, else
// starknet/signature-malformed) and writes the payment: {from,
// outsideExecution: {typedData, signature}} under the document's resource,
// option and extensions. The signature is the account contract's to
// verify, by whatever scheme the account uses; the signer checked the
// typed data before signing it.
func (Exact) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*exactUnsigned)
	a, ok := jsonv.AsObject(answer)
	if !ok {
		return rails.Completion{}, rails.Refuse(x402.CodePayloadMalformed)
	}
	sv, _ := a.Get("signature")
	sig, err := readSignature(sv)
	if err != nil {
		return rails.Completion{}, err
	}
	payment := Payment(b.required, b.accepted, b.payer, b.typedData.Clone(), sig)
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// Payment writes x402's Starknet payment.
func Payment(required, accepted *jsonv.Object, from Felt, typedData *jsonv.Object, signature []Felt) *jsonv.Object {
	sig := make([]jsonv.Value, len(signature))
	for i, s := range signature {
		sig[i] = s.String()
	}
	return x402.Payment(required, accepted, jsonv.Obj("from", from.String(),
		"outsideExecution", jsonv.Obj("typedData", typedData, "signature", sig)))
}

// readSignature reads 1 to 32 felts.
func readSignature(v jsonv.Value) ([]Felt, error) {
	list, ok := jsonv.AsArray(v)
	if !ok || len(list) < 1 || len(list) > MaxSignatureFelts {
		return nil, rails.Refuse(CodeSignatureMalformed)
	}
	out := make([]Felt, len(list))
	for i, e := range list {
		s, _ := e.(string)
		f, ok := ParseFelt(s)
		if !ok {
			return nil, rails.Refuse(CodeSignatureMalformed)
		}
		out[i] = f
	}
	return out, nil
}

// Signed is a presented payment as read: its option, the payer, the nonce
// signed, the typed data's message and the echoed H it binds.
type Signed struct {
	Accepted  *jsonv.Object
	Network   string
	From      Felt
	Nonce     Felt
	Message   *jsonv.Object
	TypedData *jsonv.Object
	Signature []Felt
	H         atr.Hash
}

// ReadSigned reads a presented payment: x402 v2 and an option the pairing
// serves; a payer felt (starknet/felt-malformed); typed data of at most
// MaxTypedDataChars with primaryType OutsideExecution, the domain
// Account.execute_from_outside, version 2, revision 1 and the option's
// chain id (hex, decimal or the short string) and a felt Nonce
// (starknet/typed-data-malformed); the echoed legal context
// (starknet/no-legal-context); and the Nonce equal to the echoed H's low
// 250 bits (starknet/nonce-not-bound).
func ReadSigned(presented jsonv.Value) (*Signed, error) {
	accepted, payload, err := x402.Presented(presented, serves)
	if err != nil {
		return nil, err
	}
	from, ok := ParseFelt(mpp.String(payload, "from"))
	if !ok {
		return nil, rails.Refuse(CodeFeltMalformed)
	}
	oe, _ := payload.GetObject("outsideExecution")
	td, ok := oe.GetObject("typedData")
	if !ok || len(jsonv.Marshal(td)) > MaxTypedDataChars {
		return nil, rails.Refuse(CodeTypedDataMalformed)
	}
	network := mpp.String(accepted, "network")
	message, err := checkDomain(td, network)
	if err != nil {
		return nil, err
	}
	nonce, ok := ParseFelt(mpp.String(message, "Nonce"))
	if !ok {
		return nil, rails.Refuse(CodeTypedDataMalformed)
	}
	o, _ := jsonv.AsObject(presented)
	hs, err := x402.EchoedLegalContext(o)
	if err != nil {
		return nil, rails.Refuse(CodeNoLegalContext)
	}
	h, _ := ParseHash(hs)
	if Nonce(h) != nonce {
		return nil, rails.Refuse(CodeNonceNotBound)
	}
	s := &Signed{Accepted: accepted, Network: network, From: from, Nonce: nonce, Message: message, TypedData: td, H: h}
	if sv, has := oe.Get("signature"); has {
		s.Signature, _ = readSignature(sv)
	}
	return s, nil
}

// checkDomain checks the typed data's primaryType and domain against the
// network and returns its message.
func checkDomain(td *jsonv.Object, network string) (*jsonv.Object, error) {
	bad := rails.Refuse(CodeTypedDataMalformed)
	domain, okD := td.GetObject("domain")
	message, okM := td.GetObject("message")
	if pt, _ := td.GetString("primaryType"); pt != "OutsideExecution" || !okD || !okM {
		return nil, bad
	}
	if n, _ := domain.GetString("name"); n != "Account.execute_from_outside" {
		return nil, bad
	}
	if v, _ := domain.Get("version"); v != jsonv.Number(2) && v != "2" {
		return nil, bad
	}
	if v, _ := domain.Get("revision"); v != jsonv.Number(1) && v != "1" {
		return nil, bad
	}
	want, _ := ChainID(network)
	cv, _ := domain.GetString("chainId")
	if got, ok := chainIDValue(cv); !ok || got != want {
		return nil, bad
	}
	return message, nil
}

// chainIDValue reads a chain id as x402 allows it: hex, decimal or the
// short string itself.
func chainIDValue(s string) (Felt, bool) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return ParseFelt(s)
	}
	if s != "" && rails.IsDecimal(s) {
		return ParseDecimalFelt(s)
	}
	return ShortString(s)
}

// Bound is the echoed H whose low 250 bits are the signed nonce. The
// signature is not verified here: the payer's account contract verifies it
// when it executes the call.
func (Exact) Bound(presented jsonv.Value) (string, error) {
	s, err := ReadSigned(presented)
	if err != nil {
		return "", err
	}
	return s.H.String(), nil
}

// Reference is what a seller records of a claimed payment to find it: the
// payer's account (whose outside-execution nonce is Nonce), the asset, the
// transfer's identity digest and Execute Before; Transaction is added when
// the facilitator names the transaction.
type Reference struct {
	Network     string
	Transaction *Felt
	From        Felt
	Asset       Felt
	Nonce       Felt
	IDDigest    [32]byte
	SettleBy    int64
}

// IDDigest is SHA-256 of from, to and amount as three 32-byte big-endian
// words: the identity of one transfer.
func IDDigest(from, to Felt, amount *big.Int) [32]byte {
	var b [96]byte
	f, t := from.Bytes(), to.Bytes()
	copy(b[:32], f[:])
	copy(b[32:64], t[:])
	amount.FillBytes(b[64:])
	return sha256.Sum256(b[:])
}

// Transfer is the one call of a signed message as read.
type Transfer struct {
	Asset, PayTo Felt
	Amount       *big.Int
}

// ReadCall reads the message's Calls: exactly one, to a felt, with three
// felts of calldata whose last two are a u256's u128 halves.
func ReadCall(message *jsonv.Object) (Call, Transfer, bool) {
	cv, _ := message.Get("Calls")
	calls, ok := jsonv.AsArray(cv)
	if !ok || len(calls) != 1 {
		return Call{}, Transfer{}, false
	}
	c, _ := jsonv.AsObject(calls[0])
	to, ok1 := ParseFelt(mpp.String(c, "To"))
	sel, ok2 := ParseFelt(mpp.String(c, "Selector"))
	dv, _ := c.Get("Calldata")
	data, ok3 := jsonv.AsArray(dv)
	if !ok1 || !ok2 || !ok3 || len(data) != 3 {
		return Call{}, Transfer{}, false
	}
	var fs [3]Felt
	for i, d := range data {
		s, _ := d.(string)
		f, ok := ParseFelt(s)
		if !ok {
			return Call{}, Transfer{}, false
		}
		fs[i] = f
	}
	amount, ok := joinU256(fs[1], fs[2])
	if !ok {
		return Call{}, Transfer{}, false
	}
	return Call{To: to, Selector: sel, Calldata: fs[:]}, Transfer{Asset: to, PayTo: fs[0], Amount: amount}, true
}

// PaymentReference reads a presented payment's reference;
// starknet/typed-data-malformed when its call or Execute Before does not
// read.
func PaymentReference(presented jsonv.Value) (Reference, error) {
	s, err := ReadSigned(presented)
	if err != nil {
		return Reference{}, err
	}
	_, tr, ok := ReadCall(s.Message)
	before, okB := decimalU64(s.Message, "Execute Before")
	if !ok || !okB || before > 1<<53 {
		return Reference{}, rails.Refuse(CodeTypedDataMalformed)
	}
	asset, _ := ParseFelt(mpp.String(s.Accepted, "asset"))
	return Reference{Network: s.Network, From: s.From, Asset: asset, Nonce: s.Nonce,
		IDDigest: IDDigest(s.From, tr.PayTo, tr.Amount), SettleBy: int64(before)}, nil
}

// decimalU64 reads a decimal string member without a leading zero.
func decimalU64(o *jsonv.Object, k string) (uint64, bool) {
	s, ok := o.GetString(k)
	if !ok || s == "" || len(s) > 20 || len(s) > 1 && s[0] == '0' || !rails.IsDecimal(s) {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}
