// Package polkadot holds the Polkadot Asset Hub pairing,
// x402/exact/polkadot/lcp-assets-remark, and what it needs: a small strict
// SCALE codec of the profile's call and the signed v4 extrinsic, SS58
// addresses, the signing payload, and the seller's status, recovery and
// location of a landed extrinsic (docs/polkadot.md).
package polkadot

// x402/exact/polkadot/lcp-assets-remark: H goes in the remark of the
// system.remark_with_event call that utility.batch_all batches with the
// assets.transfer_keep_alive, as its LCP string "lcp:sha256:0x…", 77 bytes
// (payload.extrinsic, whose last bytes are payload.call); the payer signs
// the extrinsic, the batch lands whole or not at all, and the chain's
// System.Remarked event carries the remark's BLAKE2b-256.

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

// Exact is the x402/exact/polkadot/lcp-assets-remark pairing.
type Exact struct{}

// ExactID is the pairing id.
const ExactID = "x402/exact/polkadot/lcp-assets-remark"

// TransferMethod is the option's extra.assetTransferMethod.
const TransferMethod = "lcp-assets-remark"

// Refusal codes of the pairing.
const (
	CodeSignedNotBound     = "x402/signed-not-bound"
	CodeNetworkUnsupported = "polkadot/network-unsupported"
	CodeOptionMalformed    = "polkadot/option-malformed"
	CodeAddressMalformed   = "polkadot/address-malformed"
	CodeExtrinsicMalformed = "polkadot/extrinsic-malformed"
	CodeExtrinsicTooLarge  = "polkadot/extrinsic-too-large"
	CodeNotSignedV4        = "polkadot/not-signed-v4"
	CodeAddressNotID       = "polkadot/address-not-id"
	CodeSignatureMalformed = "polkadot/signature-malformed"
	CodeCallNotProfile     = "polkadot/call-not-profile"
	CodeCallNotSuffix      = "polkadot/call-not-suffix"
	CodeRemarkNotLCP       = "polkadot/remark-not-lcp"
	CodeInputMalformed     = "polkadot/input-malformed"   // a buyer input of the wrong form, or a genesis hash of another network
	CodeExtraMalformed     = "polkadot/extra-malformed"   // signed extensions other than the ones this pairing writes
	CodeTransferMismatch   = "polkadot/transfer-mismatch" // the call does not pay what the option asks
	CodeSignatureInvalid   = "polkadot/signature-invalid" // not the payer's Ed25519 signature over the payload
	CodeSignatureType      = "polkadot/signature-type"    // a MultiSignature this pairing's signers do not make
)

// Networks are the CAIP-2 ids of Polkadot Asset Hub and Westend Asset Hub
// (the first 16 bytes of their genesis hashes) with their SS58 prefixes.
var Networks = map[string]byte{
	"polkadot:68d56f15f85d3136970ec16946040bc1": PrefixPolkadot,
	"polkadot:67f9723393ef76214df0118c34bbbd3d": PrefixGeneric,
}

// IsNetwork reports one of Networks.
func IsNetwork(n string) bool { _, ok := Networks[n]; return ok }

// Address writes an account in its network's SS58 form.
func Address(network string, account [32]byte) string { return EncodeSS58(account, Networks[network]) }

func (Exact) ID() string { return ExactID }

func (Exact) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

func decimal(v jsonv.Value, limit *big.Int) (*big.Int, bool) {
	s, ok := v.(string)
	if !ok || s == "" || len(s) > 39 || len(s) > 1 && s[0] == '0' || !rails.IsDecimal(s) {
		return nil, false
	}
	if len(s) <= 19 { // a uint64: big.Int's parser is most of a read
		u, _ := strconv.ParseUint(s, 10, 64)
		return new(big.Int).SetUint64(u), !limit.IsUint64() || u < limit.Uint64()
	}
	n, _ := new(big.Int).SetString(s, 10)
	return n, n.Cmp(limit) < 0
}

var u32Limit = big.NewInt(1 << 32)

// CheckOption is "" for an option the pairing pays, or the code saying why
// not, in the reference gate's order: not exact on a polkadot: network
// (x402/option-not-this-pairing); a network other than the two Asset Hubs
// (polkadot/network-unsupported); no assetTransferMethod lcp-assets-remark,
// a paymentFlow other than authorization and upfront, an asset that is no
// u32 in decimal, an amount that is zero or no u128, a maxTimeoutSeconds
// outside 1–3600 (polkadot/option-malformed); a payTo that is no SS58
// address (polkadot/address-malformed).
func CheckOption(o *jsonv.Object) string {
	if s, _ := o.GetString("scheme"); s != "exact" {
		return x402.CodeOptionNotThisPairing
	}
	n, _ := o.GetString("network")
	if !strings.HasPrefix(n, "polkadot:") {
		return x402.CodeOptionNotThisPairing
	}
	if !IsNetwork(n) {
		return CodeNetworkUnsupported
	}
	extra, _ := o.GetObject("extra")
	if m, _ := extra.GetString("assetTransferMethod"); m != TransferMethod {
		return CodeOptionMalformed
	}
	if f, has := extra.Get("paymentFlow"); has && f != "authorization" && f != "upfront" {
		return CodeOptionMalformed
	}
	a, _ := o.Get("asset")
	amt, _ := o.Get("amount")
	mt, _ := o.Get("maxTimeoutSeconds")
	t, okT := jsonv.AsSafeInt(mt)
	_, okA := decimal(a, u32Limit)
	amount, okN := decimal(amt, u128Limit)
	if !okA || !okN || amount.Sign() == 0 || !okT || t < 1 || t > 3600 {
		return CodeOptionMalformed
	}
	if _, _, ok := DecodeSS58(mpp.String(o, "payTo")); !ok {
		return CodeAddressMalformed
	}
	return ""
}

func serves(o *jsonv.Object) bool { return CheckOption(o) == "" }

func (Exact) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, serves) }

// Inputs are what the payer's wallet reads from its node to build the
// extrinsic: the account's next nonce, the runtime's spec and transaction
// versions, the genesis hash, and the block the era starts at (its number
// and hash).
type Inputs struct {
	Nonce                  uint32
	SpecVersion, TxVersion uint32
	Genesis                [32]byte
	BlockNumber            uint64
	BlockHash              [32]byte
}

// Chain is the payer's wallet's node for one network (polkadotrpc reads
// one); every failure is an error.
type Chain interface {
	Network() string
	// Inputs are the account's inputs at the chain's best block.
	Inputs(ctx context.Context, account [32]byte) (Inputs, error)
}

func u32Of(v jsonv.Value) (uint32, bool) {
	n, ok := decimal(v, u32Limit)
	if !ok {
		return 0, false
	}
	return uint32(n.Uint64()), true
}

func hash32(s string) ([32]byte, bool) {
	b, ok := mpp.HexBytes(s, 32, 32)
	var h [32]byte
	copy(h[:], b)
	return h, ok && strings.ToLower(s) == s
}

// GenesisOf reports a genesis hash of network: CAIP-2 names a Polkadot
// chain by its genesis hash's first 16 bytes.
func GenesisOf(network string, genesis [32]byte) bool {
	return "polkadot:"+hex.EncodeToString(genesis[:16]) == network
}

// Choose takes the first served option on the account's network
// (polkadot:<genesis>:<SS58 address>). The payer's wallet builds the
// extrinsic around the call (nonce, runtime versions and the era's block
// come from the wallet's own node), so the pairing asks for no inputs.
func (Exact) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "polkadot" {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	if _, _, ok := DecodeSS58(acct.Address); !ok {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	accepted := x402.OptionOn(read.Options, acct.Network())
	if accepted == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	return jsonv.Obj("required", read.Required, "accepted", accepted, "payer", acct.Address, "now", now), nil
}

// BlockSeconds bounds how long an Asset Hub block takes when the request's
// validUntil is estimated: blocks come every 6 s, and 12 s, the time they
// took before asynchronous backing, leaves room for a slow chain. The
// extrinsic is worthless past its era, a block number and not a time.
const BlockSeconds = 12

// TargetBlockSeconds is the block time the era's length is chosen by, so
// that the era lasts about maxTimeoutSeconds.
const TargetBlockSeconds = 6

// EraPeriod is the era length for a timeout: the smallest power of two of
// at least timeout/6 s blocks, 4 at least and 1024 at most (3600 s), inside
// Asset Hub's BlockHashCount of 4096.
func EraPeriod(timeoutSeconds int64) uint64 {
	blocks := uint64(max(timeoutSeconds, 1)+TargetBlockSeconds-1) / TargetBlockSeconds
	p := uint64(4)
	for p < blocks && p < 1024 {
		p <<= 1
	}
	return p
}

type exactUnsigned struct {
	required, accepted *jsonv.Object
	network            string
	payer              [32]byte
	call               []byte
	period             uint64
	until              int64 // Unix seconds; 0 when the choice names no time
}

// Build writes the profile's call for the option with H's LCP string as
// the remark, and the era the extrinsic may live at most (EraPeriod of
// maxTimeoutSeconds).
func (Exact) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, required, accepted, err := x402.ChosenOption(choice, serves)
	if err != nil {
		return nil, err
	}
	payer, _, ok := DecodeSS58(mpp.String(c, "payer"))
	if !ok {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	call := callFor(accepted, h) // ChosenOption checked that the pairing serves it
	mt, _ := accepted.Get("maxTimeoutSeconds")
	window, _ := jsonv.AsSafeInt(mt)
	u := &exactUnsigned{required: required, accepted: accepted, network: mpp.String(accepted, "network"), payer: payer,
		call: call.Encode(), period: EraPeriod(window)}
	if nv, has := c.Get("now"); has {
		now, ok := jsonv.AsSafeInt(nv)
		if !ok || now < 0 || now > 1<<52 {
			return nil, rails.Refuse(x402.CodeChoiceMalformed)
		}
		if now > 0 {
			u.until = now + int64(u.period)*BlockSeconds
		}
	}
	return u, nil
}

// CallFor is the profile's call paying option, H's LCP string as the
// remark; ok false for an option the pairing does not serve.
func CallFor(option *jsonv.Object, h atr.Hash) (*Call, bool) {
	if !serves(option) {
		return nil, false
	}
	return callFor(option, h), true
}

func callFor(option *jsonv.Object, h atr.Hash) *Call {
	a, _ := option.Get("asset")
	amt, _ := option.Get("amount")
	asset, _ := u32Of(a)
	amount, _ := decimal(amt, u128Limit)
	dest, _, _ := DecodeSS58(mpp.String(option, "payTo"))
	return &Call{AssetID: asset, Dest: dest, Amount: amount, Remark: []byte(mpp.LegalContextValue(h))}
}

// KindCall is the signing request of a Polkadot payment: {kind, network,
// signer, call, eraPeriod, tip, validUntil?}: the signer's SS58 address,
// the call in 0x hex, the longest era the extrinsic may have (a power of
// two, in blocks), and tip "0". The wallet signs one v4 extrinsic of the
// call with a mortal era of at most eraPeriod blocks starting at a block
// of its node, the account's next nonce, no tip, fees in DOT and no
// metadata hash, and answers {extrinsic, specVersion, transactionVersion,
// genesisHash, blockHash}: the extrinsic in 0x hex and the additional data
// its signature covers, so that the signature can be checked before the
// payment leaves. validUntil (Unix seconds) is the buyer's estimate of
// when the era will have passed (BlockSeconds).
const KindCall = "polkadot-call"

func (Exact) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*exactUnsigned)
	req := jsonv.Obj("kind", KindCall, "network", b.network, "signer", Address(b.network, b.payer),
		"call", "0x"+hex.EncodeToString(b.call), "eraPeriod", jsonv.Number(b.period), "tip", "0")
	if b.until > 0 {
		req.Set("validUntil", jsonv.Number(b.until))
	}
	return req, nil
}

// Answer is a wallet's answer to a polkadot-call request, as read.
type Answer struct {
	Extrinsic  []byte
	Additional Additional
}

// ReadAnswer reads {extrinsic, specVersion, transactionVersion,
// genesisHash, blockHash}; x402/signature-malformed when a member is
// absent or not of its form.
func ReadAnswer(answer jsonv.Value) (Answer, error) {
	a, _ := jsonv.AsObject(answer)
	var out Answer
	var ok [5]bool
	out.Extrinsic, ok[0] = lowerHex(mpp.String(a, "extrinsic"), MaxExtrinsic)
	sv, _ := a.Get("specVersion")
	tv, _ := a.Get("transactionVersion")
	out.Additional.SpecVersion, ok[1] = u32Of(sv)
	out.Additional.TxVersion, ok[2] = u32Of(tv)
	out.Additional.Genesis, ok[3] = hash32(mpp.String(a, "genesisHash"))
	out.Additional.EraBlock, ok[4] = hash32(mpp.String(a, "blockHash"))
	for _, k := range ok {
		if !k {
			return Answer{}, rails.Refuse(x402.CodeSignatureMalformed)
		}
	}
	return out, nil
}

// Complete checks what the wallet signed before the payment leaves: a
// signed v4 extrinsic ending with the call built (x402/signed-not-bound
// otherwise), signed by the payer with Ed25519 (polkadot/signature-type for
// another key type), with the extra this pairing's requests ask for, a
// mortal era of at most eraPeriod blocks, no tip and fees in DOT
// (polkadot/extra-malformed), on the option's network
// (polkadot/network-unsupported for a genesis hash of another chain), and
// a signature of the payer's key over the payload the answer's
// additional data make (polkadot/signature-invalid).
func (Exact) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*exactUnsigned)
	a, err := ReadAnswer(answer)
	if err != nil {
		return rails.Completion{}, err
	}
	s, err := WithSuffix(a.Extrinsic, b.call)
	if err != nil {
		if r, ok := err.(*rails.Refusal); ok && r.Code == CodeExtrinsicTooLarge {
			return rails.Completion{}, err
		}
		return rails.Completion{}, rails.Refuse(CodeSignedNotBound)
	}
	if s.Signer != b.payer {
		return rails.Completion{}, rails.Refuse(CodeSignedNotBound)
	}
	if s.SigType != SigEd25519 {
		return rails.Completion{}, rails.Refuse(CodeSignatureType)
	}
	x, ok := ExtraOf(a.Extrinsic, s, len(b.call))
	if !ok || x.Era.Immortal || x.Era.Period > b.period || x.Tip != 0 || x.MetadataHash {
		return rails.Completion{}, rails.Refuse(CodeExtraMalformed)
	}
	if !GenesisOf(b.network, a.Additional.Genesis) {
		return rails.Completion{}, rails.Refuse(CodeNetworkUnsupported)
	}
	if !ed25519.Verify(b.payer[:], SigningPayload(b.call, x, &a.Additional), s.Signature) {
		return rails.Completion{}, rails.Refuse(CodeSignatureInvalid)
	}
	payload := jsonv.Obj("extrinsic", "0x"+hex.EncodeToString(a.Extrinsic), "call", "0x"+hex.EncodeToString(b.call))
	payment := x402.Payment(b.required, b.accepted, payload)
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// Carried is what a payment's payload carries: the extrinsic, its signed
// preamble, the profile call it ends with, and the H of its remark.
type Carried struct {
	Network   string
	Accepted  *jsonv.Object
	Extrinsic []byte
	Signed    *Signed
	CallBytes []byte
	Call      *Call
	H         atr.Hash
}

func lowerHex(s string, maxBytes int) ([]byte, bool) {
	// mpp.HexBytes with its upper-case digits refused, in one pass over a
	// table (an extrinsic is read three times a payment: by the signer's
	// answer, Bound and the signer's summary; TestLowerHexAsHexBytes)
	if len(s) < 2 || s[0] != '0' || s[1] != 'x' || len(s)%2 != 0 || len(s) > 2+2*maxBytes {
		return nil, false
	}
	b := make([]byte, (len(s)-2)/2)
	for i := range b {
		hi, lo := lowerHexValue[s[2+2*i]], lowerHexValue[s[3+2*i]]
		if hi > 15 || lo > 15 {
			return nil, false
		}
		b[i] = hi<<4 | lo
	}
	return b, true
}

// lowerHexValue is a byte's value as a lowercase hex digit, 0xff for any
// other byte.
var lowerHexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range "0123456789abcdef" {
		t[c] = byte(i)
	}
	return t
}()

// WithSuffix checks that the extrinsic is a signed v4 one that ends with
// call, the call starting at or after the signature's end.
func WithSuffix(xt, call []byte) (*Signed, error) {
	s, err := SplitSigned(xt)
	if err != nil {
		return nil, rails.Refuse(err.Error())
	}
	start := len(xt) - len(call)
	if start < s.End || string(xt[start:]) != string(call) {
		return nil, rails.Refuse(CodeCallNotSuffix)
	}
	return s, nil
}

// RemarkH reads an LCP string remark: UTF-8, "lcp:sha256:" and a hash.
func RemarkH(remark []byte) (atr.Hash, bool) {
	if !utf8.Valid(remark) {
		return atr.Hash{}, false
	}
	return mpp.ParseLegalContext(string(remark))
}

// Carry reads a presented payment: x402 v2 and an option the pairing
// serves; payload.extrinsic lowercase 0x hex of at most 4096 bytes
// (polkadot/extrinsic-malformed); payload.call lowercase 0x hex
// (polkadot/call-not-profile) that the signed v4 extrinsic ends with
// (polkadot/call-not-suffix and the preamble's codes), exactly the
// profile's call (polkadot/call-not-profile) whose remark is an LCP string
// (polkadot/remark-not-lcp).
func Carry(presented jsonv.Value) (*Carried, error) {
	accepted, payload, err := x402.Presented(presented, serves)
	if err != nil {
		return nil, err
	}
	xt, ok := lowerHex(mpp.String(payload, "extrinsic"), MaxExtrinsic)
	if !ok {
		if s := mpp.String(payload, "extrinsic"); len(s) > 2+2*MaxExtrinsic && mpp.IsHex(s) && strings.ToLower(s) == s {
			return nil, rails.Refuse(CodeExtrinsicTooLarge)
		}
		return nil, rails.Refuse(CodeExtrinsicMalformed)
	}
	callBytes, ok := lowerHex(mpp.String(payload, "call"), MaxExtrinsic)
	if !ok {
		return nil, rails.Refuse(CodeCallNotProfile)
	}
	s, err := WithSuffix(xt, callBytes)
	if err != nil {
		return nil, err
	}
	call, ok := DecodeCall(callBytes)
	if !ok {
		return nil, rails.Refuse(CodeCallNotProfile)
	}
	h, ok := RemarkH(call.Remark)
	if !ok {
		return nil, rails.Refuse(CodeRemarkNotLCP)
	}
	return &Carried{Network: mpp.String(accepted, "network"), Accepted: accepted, Extrinsic: xt, Signed: s,
		CallBytes: callBytes, Call: call, H: h}, nil
}

// Bound reads H from the remark of the profile call the extrinsic ends
// with. Amount, payee, asset, signer and timing are not read here, and no
// signature is verified (the facilitator and the runtime do that).
func (Exact) Bound(presented jsonv.Value) (string, error) {
	c, err := Carry(presented)
	if err != nil {
		return "", err
	}
	return c.H.String(), nil
}

// Reference is what a seller records of a claimed payment to read it back:
// the network, the extrinsic's hash, and the call's asset.
type Reference struct {
	Network       string
	ExtrinsicHash string // 0x and 64 lowercase hex
	AssetID       uint32
}

// PaymentReference reads a presented payment's reference.
func PaymentReference(presented jsonv.Value) (Reference, error) {
	c, err := Carry(presented)
	if err != nil {
		return Reference{}, err
	}
	h := ExtrinsicHash(c.Extrinsic)
	return Reference{Network: c.Network, ExtrinsicHash: "0x" + hex.EncodeToString(h[:]), AssetID: c.Call.AssetID}, nil
}

// Pays reports a call that moves exactly the option's amount of its asset
// to its payTo.
func Pays(c *Call, option *jsonv.Object) bool {
	want, ok := CallFor(option, atr.Hash{})
	return ok && c.AssetID == want.AssetID && c.Dest == want.Dest && c.Amount.Cmp(want.Amount) == 0
}

// ExtraOf reads the extra between a signed preamble and the call, when it
// is the form this pairing writes (fees in DOT); ok false otherwise.
func ExtraOf(xt []byte, s *Signed, callLen int) (*Extra, bool) {
	x, next, ok := DecodeExtra(xt, s.End)
	return x, ok && next == len(xt)-callLen
}
