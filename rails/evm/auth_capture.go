package evm

// What the two x402 auth-capture pairings share: the commerce-payments
// escrow's PaymentInfo, the salt commitment that binds H, the payment hash
// the token authorization's nonce is, and the read-back that checks that
// chain of commitments (docs/auth-capture.md).

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/x402"
)

// EscrowDeployment is one deployment of the commerce-payments escrow: the
// escrow, its two token collectors and its PaymentCharged topic
// (https://github.com/base/commerce-payments).
type EscrowDeployment struct {
	Escrow, EIP3009Collector, Permit2Collector string
	ChargedTopic                               string
}

// The escrow's two deployments; an option naming no escrow means v1.1.
var (
	EscrowV11 = EscrowDeployment{
		Escrow:           "0xf96815976523E00e65Be8f34cA5e64b4f41EB19c",
		EIP3009Collector: "0x8612dfdc421f80336cd14E8EF9cb1E765dB5ab88",
		Permit2Collector: "0xD69831Aed5bfe262067ec4c751f4F830EcdD446e",
		ChargedTopic:     "0x137b0e73e4453f43c2e1ad2552980a0e0c7e988764619974ca26d37a7159940c",
	}
	EscrowV10 = EscrowDeployment{
		Escrow:           "0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff",
		EIP3009Collector: "0x0E3dF9510de65469C4518D7843919c0b8C7A7757",
		Permit2Collector: "0x992476B9Ee81d52a5BdA0622C333938D0Af0aB26",
		ChargedTopic:     "0x943ae4341dd799d7aeedc501f616cd26b134639e0bc2ec059581ba3ebbf1e7d0",
	}
)

// Escrow constants.
const (
	// TopicPaymentAuthorized is keccak256 of the escrow's PaymentAuthorized
	// event signature; topic 1 is the payment hash.
	TopicPaymentAuthorized = "0x1c81fb2e3bab27f6bb09bee9a0dddf61600b7cbaf2c12683e4864e0cbdb9d284"
	// PaymentInfoTypeHash is keccak256 of the escrow's PaymentInfo type.
	PaymentInfoTypeHash = "0xae68ac7ce30c86ece8196b61a7c486d8f0061f575037fbd34e7fe4e2820c6591"
	// SaltBindingTypeHash tags the commitment of H to the receiver
	// authorizer and policy (docs/auth-capture.md, "The salt").
	SaltBindingTypeHash = "0x8a2a7e41a0bda000ded071ff38b79401d2603e1826516ff2635b11fe9e30877f"

	zeroAddress = "0x0000000000000000000000000000000000000000"
)

// Refusal codes of the auth-capture pairings.
const (
	CodeEscrowNotCanonical = "x402/escrow-not-canonical" // the option names an escrow that is neither deployment
	CodeFlowNotCarried     = "x402/flow-not-carried"     // a payment flow (or auto-capture) these pairings do not pay
	CodeSaltMalformed      = "x402/salt-malformed"       // salt or saltNonce is not 0x and 64 hex digits
	CodeSaltNotBound       = "x402/salt-not-bound"       // salt is not the commitment of saltNonce
	CodeNonceNotPayment    = "x402/nonce-not-payment"    // the signed nonce is not this payment's hash
)

// PaymentInfo is the escrow's description of one payment.
type PaymentInfo struct {
	Operator, Payer, Receiver, Token string
	MaxAmount                        *big.Int // < 2^120
	PreApprovalExpiry                uint64   // < 2^48: until when the authorization can be collected
	AuthorizationExpiry              uint64   // < 2^48: until when the operator can capture
	RefundExpiry                     uint64   // < 2^48
	MinFeeBps, MaxFeeBps             uint16
	FeeReceiver                      string
	Salt                             atr.Hash
}

// Hash is the escrow's getHash of p: keccak256(abi.encode(chainId, escrow,
// keccak256(abi.encode(PaymentInfoTypeHash, p…)))). With the payer zero it
// is the nonce the payer's token authorization signs.
func (p PaymentInfo) Hash(chainID int64, escrow string) (atr.Hash, bool) {
	for _, a := range []string{p.Operator, p.Payer, p.Receiver, p.Token, p.FeeReceiver, escrow} {
		if !IsAddress(a) {
			return atr.Hash{}, false
		}
	}
	const max48 = 1 << 48
	if p.MaxAmount == nil || p.MaxAmount.Sign() < 0 || p.MaxAmount.BitLen() > 120 || chainID <= 0 ||
		p.PreApprovalExpiry >= max48 || p.AuthorizationExpiry >= max48 || p.RefundExpiry >= max48 {
		return atr.Hash{}, false
	}
	typeHash, _ := HexBytes(PaymentInfoTypeHash)
	buf := make([]byte, 0, 13*32)
	buf = append(buf, typeHash...)
	buf = append(buf, addressWord(p.Operator)...)
	buf = append(buf, addressWord(p.Payer)...)
	buf = append(buf, addressWord(p.Receiver)...)
	buf = append(buf, addressWord(p.Token)...)
	buf = append(buf, common.LeftPadBytes(p.MaxAmount.Bytes(), 32)...)
	buf = append(buf, uintWord(p.PreApprovalExpiry)...)
	buf = append(buf, uintWord(p.AuthorizationExpiry)...)
	buf = append(buf, uintWord(p.RefundExpiry)...)
	buf = append(buf, uintWord(uint64(p.MinFeeBps))...)
	buf = append(buf, uintWord(uint64(p.MaxFeeBps))...)
	buf = append(buf, addressWord(p.FeeReceiver)...)
	buf = append(buf, p.Salt[:]...)
	info := crypto.Keccak256(buf)
	outer := make([]byte, 0, 96)
	outer = append(outer, uintWord(uint64(chainID))...)
	outer = append(outer, addressWord(escrow)...)
	outer = append(outer, info...)
	return atr.Hash(crypto.Keccak256Hash(outer)), true
}

// JSON is p as a request carries it: addresses as written, integers as
// decimal strings, the salt as 0x hex.
func (p PaymentInfo) JSON() *jsonv.Object {
	u := func(n uint64) string { return strconv.FormatUint(n, 10) }
	return jsonv.Obj(
		"operator", p.Operator, "payer", p.Payer, "receiver", p.Receiver, "token", p.Token,
		"maxAmount", p.MaxAmount.String(), "preApprovalExpiry", u(p.PreApprovalExpiry),
		"authorizationExpiry", u(p.AuthorizationExpiry), "refundExpiry", u(p.RefundExpiry),
		"minFeeBps", u(uint64(p.MinFeeBps)), "maxFeeBps", u(uint64(p.MaxFeeBps)),
		"feeReceiver", p.FeeReceiver, "salt", p.Salt.String())
}

// paymentInfoOf reads JSON's form back, strictly: exactly its members.
func paymentInfoOf(o *jsonv.Object) (PaymentInfo, bool) {
	if o == nil || o.Len() != 12 {
		return PaymentInfo{}, false
	}
	s, ok := stringsOf(o, "operator", "payer", "receiver", "token", "maxAmount", "preApprovalExpiry",
		"authorizationExpiry", "refundExpiry", "minFeeBps", "maxFeeBps", "feeReceiver", "salt")
	if !ok {
		return PaymentInfo{}, false
	}
	p := PaymentInfo{Operator: s[0], Payer: s[1], Receiver: s[2], Token: s[3], FeeReceiver: s[10]}
	var okAmount bool
	p.MaxAmount, okAmount = new(big.Int).SetString(s[4], 10)
	var errs [5]error
	p.PreApprovalExpiry, errs[0] = strconv.ParseUint(s[5], 10, 48)
	p.AuthorizationExpiry, errs[1] = strconv.ParseUint(s[6], 10, 48)
	p.RefundExpiry, errs[2] = strconv.ParseUint(s[7], 10, 48)
	var minFee, maxFee uint64
	minFee, errs[3] = strconv.ParseUint(s[8], 10, 16)
	maxFee, errs[4] = strconv.ParseUint(s[9], 10, 16)
	p.MinFeeBps, p.MaxFeeBps = uint16(minFee), uint16(maxFee)
	salt, errSalt := atr.ParseHash(s[11])
	p.Salt = salt
	for _, e := range errs {
		if e != nil {
			return PaymentInfo{}, false
		}
	}
	return p, okAmount && IsUint256Decimal(s[4]) && errSalt == nil
}

// BindSalt is the salt that binds H when the option names a receiver
// authorizer or a policy: keccak256(abi.encode(SaltBindingTypeHash,
// receiverAuthorizer, policy, H)).
func BindSalt(receiverAuthorizer, policy string, h atr.Hash) atr.Hash {
	tag, _ := HexBytes(SaltBindingTypeHash)
	buf := make([]byte, 0, 128)
	buf = append(buf, tag...)
	buf = append(buf, addressWord(receiverAuthorizer)...)
	buf = append(buf, addressWord(policy)...)
	buf = append(buf, h[:]...)
	return atr.Hash(crypto.Keccak256Hash(buf))
}

// authCaptureTerms is what an auth-capture option fixes.
type authCaptureTerms struct {
	chainID                     int64
	deployment                  EscrowDeployment
	bound                       bool // a receiver authorizer or a policy is named: the salt is a commitment
	receiverAuthorizer, policy  string
	authorizationFlow           bool // paymentFlow "authorization": charged at once, PaymentCharged
	operator, feeReceiver       string
	receiver, token             string
	maxAmount                   *big.Int
	authorizationExpiry, refund uint64
	minFeeBps, maxFeeBps        uint16
	tokenName, tokenVersion     string
}

// info is the PaymentInfo of payer with salt, collectable until expiry.
func (t authCaptureTerms) info(payer string, salt atr.Hash, expiry uint64) PaymentInfo {
	return PaymentInfo{Operator: t.operator, Payer: payer, Receiver: t.receiver, Token: t.token,
		MaxAmount: t.maxAmount, PreApprovalExpiry: expiry, AuthorizationExpiry: t.authorizationExpiry,
		RefundExpiry: t.refund, MinFeeBps: t.minFeeBps, MaxFeeBps: t.maxFeeBps, FeeReceiver: t.feeReceiver, Salt: salt}
}

// authCaptureRequired are the extra members every auth-capture option names.
var authCaptureRequired = []string{"captureAuthorizer", "captureDeadline", "refundDeadline", "feeRecipient",
	"minFeeBps", "maxFeeBps", "name", "version"}

// deploymentOf is the escrow an option's extra names: none or v1.1's is
// v1.1, v1.0's is v1.0, any other none.
func deploymentOf(extra *jsonv.Object) (EscrowDeployment, bool) {
	v, has := extra.Get("authCaptureEscrow")
	if !has {
		return EscrowV11, true
	}
	s, _ := jsonv.AsString(v)
	for _, d := range []EscrowDeployment{EscrowV11, EscrowV10} {
		if strings.EqualFold(s, d.Escrow) {
			return d, true
		}
	}
	return EscrowDeployment{}, false
}

// authCaptureFilter is the option filter of the auth-capture pairing paid
// by method ("eip3009", the default, or "permit2"). An auth-capture option
// this package cannot pay is refused with why: a member missing
// (x402/option-malformed), another escrow (x402/escrow-not-canonical), or a
// flow it does not carry (x402/flow-not-carried).
func authCaptureFilter(method string) func(*jsonv.Object) (bool, string) {
	return func(o *jsonv.Object) (bool, string) {
		if s, _ := o.GetString("scheme"); s != "auth-capture" {
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
		for _, k := range authCaptureRequired {
			if !extra.Has(k) {
				return false, x402.CodeOptionMalformed
			}
		}
		if _, ok := deploymentOf(extra); !ok {
			return false, CodeEscrowNotCanonical
		}
		if f, has := extra.Get("paymentFlow"); has && f != "escrow" && f != "authorization" {
			return false, CodeFlowNotCarried
		}
		if v, _ := extra.Get("autoCapture"); v == true {
			return false, CodeFlowNotCarried
		}
		m, has := extra.Get("assetTransferMethod")
		if !has {
			m = "eip3009"
		}
		return m == method, ""
	}
}

// uintMember reads a non-negative safe-integer JSON number or a uint256
// decimal string, within bits.
func uintMember(v jsonv.Value, bits int) (uint64, bool) {
	if n, ok := jsonv.AsSafeInt(v); ok {
		return uint64(n), n >= 0 && (bits >= 64 || uint64(n) < 1<<bits)
	}
	s, ok := jsonv.AsString(v)
	if !ok || !IsUint256Decimal(s) {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, bits)
	return n, err == nil
}

// termsOf reads the escrow terms of an option the filter served
// (x402/option-malformed when one does not read).
func termsOf(o *jsonv.Object) (authCaptureTerms, error) {
	malformed := rails.Refuse(x402.CodeOptionMalformed)
	extra, _ := o.GetObject("extra")
	d, _ := deploymentOf(extra)
	str := func(k, fallback string) string {
		v, has := extra.Get(k)
		if !has {
			return fallback
		}
		s, _ := jsonv.AsString(v)
		return s
	}
	t := authCaptureTerms{deployment: d,
		operator: str("captureAuthorizer", ""), feeReceiver: str("feeRecipient", ""),
		receiverAuthorizer: str("receiverAuthorizer", zeroAddress), policy: str("policy", zeroAddress),
		tokenName: str("name", ""), tokenVersion: str("version", "")}
	t.receiver, _ = o.GetString("payTo")
	t.token, _ = o.GetString("asset")
	network, _ := o.GetString("network")
	t.chainID, _ = chainID(network)
	amount, _ := o.GetString("amount")
	var ok [6]bool
	t.maxAmount, ok[0] = new(big.Int).SetString(amount, 10)
	ok[0] = ok[0] && IsUint256Decimal(amount) && t.maxAmount.BitLen() <= 120
	cd, _ := extra.Get("captureDeadline")
	rd, _ := extra.Get("refundDeadline")
	minF, _ := extra.Get("minFeeBps")
	maxF, _ := extra.Get("maxFeeBps")
	t.authorizationExpiry, ok[1] = uintMember(cd, 48)
	t.refund, ok[2] = uintMember(rd, 48)
	var minFee, maxFee uint64
	minFee, ok[3] = uintMember(minF, 16)
	maxFee, ok[4] = uintMember(maxF, 16)
	t.minFeeBps, t.maxFeeBps = uint16(minFee), uint16(maxFee)
	ok[5] = CheckedAddress(t.operator) && CheckedAddress(t.feeReceiver) && CheckedAddress(t.receiverAuthorizer) &&
		CheckedAddress(t.policy) && t.tokenName != "" && t.tokenVersion != ""
	for _, b := range ok {
		if !b {
			return authCaptureTerms{}, malformed
		}
	}
	t.bound = !strings.EqualFold(t.receiverAuthorizer, zeroAddress) || !strings.EqualFold(t.policy, zeroAddress)
	f, _ := extra.GetString("paymentFlow")
	t.authorizationFlow = f == "authorization"
	return t, nil
}

// authCapture is what the two pairings share; method is the token
// authorization.
type authCapture struct {
	id, method string
}

func (a authCapture) filter(o *jsonv.Object) (bool, string) { return authCaptureFilter(a.method)(o) }

func (a authCapture) read(doc jsonv.Value) (rails.Read, error) {
	return x402.Read(doc, func(o *jsonv.Object) bool { ok, _ := a.filter(o); return ok })
}

// authCaptureBuilt is the common part of a build: the terms, the salt (H,
// or its commitment when bound) and the nonce the authorization signs.
type authCaptureBuilt struct {
	c           evmChoice
	t           authCaptureTerms
	salt, nonce atr.Hash
	info        PaymentInfo
	salts       []jsonv.Value // the payload's trailing members: salt, and saltNonce when bound
}

func (a authCapture) built(choice jsonv.Value, h atr.Hash) (authCaptureBuilt, error) {
	c, err := readChoice(choice, a.filter, nil)
	if err != nil {
		return authCaptureBuilt{}, err
	}
	t, err := termsOf(c.accepted)
	if err != nil {
		return authCaptureBuilt{}, err
	}
	salt := h
	if t.bound {
		salt = BindSalt(t.receiverAuthorizer, t.policy, h)
	}
	info := t.info(zeroAddress, salt, uint64(c.deadline))
	nonce, ok := info.Hash(t.chainID, t.deployment.Escrow)
	if !ok {
		return authCaptureBuilt{}, rails.Refuse(x402.CodeOptionMalformed)
	}
	b := authCaptureBuilt{c: c, t: t, salt: salt, nonce: nonce, info: info,
		salts: []jsonv.Value{"salt", salt.String()}}
	if t.bound {
		b.salts = append(b.salts, "saltNonce", h.String())
	}
	return b, nil
}

// request is the signing request: the typed data and, for the summary, the
// escrow and the payment info (payer zero) whose hash the nonce is.
func (b authCaptureBuilt) request(td *jsonv.Object) rails.Request {
	return jsonv.Obj("kind", "eip712", "typedData", td,
		"escrow", jsonv.Obj("address", b.t.deployment.Escrow, "paymentInfo", b.info.JSON()))
}

// authCapturePresented is a presented auth-capture payment as read back.
type authCapturePresented struct {
	h        atr.Hash
	accepted *jsonv.Object
	t        authCaptureTerms
	payer    string
	salt     atr.Hash
	expiry   uint64
	auth     *jsonv.Object
	signed   atr.Hash
}

// presented reads an auth-capture payment back: the signature, the terms,
// the salt (x402/salt-malformed) and when bound the saltNonce whose
// commitment it must be (x402/salt-not-bound), H being the saltNonce then
// and the salt otherwise; then the token authorization, whose nonce must be
// the payment hash of those terms with the payer zero
// (x402/nonce-not-payment).
func (a authCapture) presented(p jsonv.Value) (authCapturePresented, error) {
	accepted, payload, err := presentedEVM(p, "auth-capture", a.filter)
	if err != nil {
		return authCapturePresented{}, err
	}
	if !signatureReads(payload) {
		return authCapturePresented{}, rails.Refuse(x402.CodeSignatureMalformed)
	}
	t, err := termsOf(accepted)
	if err != nil {
		return authCapturePresented{}, err
	}
	saltOf := func(k string) (atr.Hash, bool) {
		s, _ := payload.GetString(k)
		if !rails.IsHex(s, 64) {
			return atr.Hash{}, false
		}
		h, err := atr.ParseHash(s)
		return h, err == nil
	}
	salt, ok := saltOf("salt")
	if !ok {
		return authCapturePresented{}, rails.Refuse(CodeSaltMalformed)
	}
	h := salt
	if t.bound {
		saltNonce, ok := saltOf("saltNonce")
		if !ok {
			return authCapturePresented{}, rails.Refuse(CodeSaltMalformed)
		}
		if BindSalt(t.receiverAuthorizer, t.policy, saltNonce) != salt {
			return authCapturePresented{}, rails.Refuse(CodeSaltNotBound)
		}
		h = saltNonce
	}
	malformed := rails.Refuse(x402.CodePayloadMalformed)
	var payer, expiryText string
	var signed atr.Hash
	var okNonce bool
	var auth *jsonv.Object
	if a.method == "eip3009" {
		auth, _ = payload.GetObject("authorization")
		s, ok := stringsOf(auth, "from", "to", "value", "validAfter", "validBefore", "nonce")
		if !ok {
			return authCapturePresented{}, malformed
		}
		payer, expiryText = s[0], s[4]
		if rails.IsHex(s[5], 64) {
			signed, _ = atr.ParseHash(s[5])
			okNonce = true
		}
	} else {
		auth, _ = payload.GetObject("permit2Authorization")
		s, ok := stringsOf(auth, "from", "spender", "nonce", "deadline")
		if !ok {
			return authCapturePresented{}, malformed
		}
		payer, expiryText = s[0], s[3]
		signed, okNonce = Permit2NonceHash(s[2])
	}
	expiry, err := strconv.ParseUint(expiryText, 10, 48)
	if !IsAddress(payer) || !IsUint256Decimal(expiryText) || err != nil {
		return authCapturePresented{}, malformed
	}
	want, ok := t.info(zeroAddress, salt, expiry).Hash(t.chainID, t.deployment.Escrow)
	if !okNonce || !ok || want != signed {
		return authCapturePresented{}, rails.Refuse(CodeNonceNotPayment)
	}
	return authCapturePresented{h: h, accepted: accepted, t: t, payer: payer, salt: salt, expiry: expiry,
		auth: auth, signed: signed}, nil
}

func (a authCapture) bound(p jsonv.Value) (string, error) {
	got, err := a.presented(p)
	if err != nil {
		return "", err
	}
	return got.h.String(), nil
}

// reference is what a seller records at claim: the network, settleBy (the
// pre-approval expiry), the escrow's PaymentAuthorized (PaymentCharged for
// the authorization flow) whose topic 1 is the payment hash, the search
// that finds it, and for EIP-3009 the token's Transfer to the collector.
func (a authCapture) reference(p jsonv.Value) (*jsonv.Object, error) {
	got, err := a.presented(p)
	if err != nil {
		return nil, err
	}
	t := got.t
	paymentHash, ok := t.info(got.payer, got.salt, got.expiry).Hash(t.chainID, t.deployment.Escrow)
	if !ok {
		return nil, rails.Refuse(x402.CodePayloadMalformed)
	}
	topic0 := TopicPaymentAuthorized
	if t.authorizationFlow {
		topic0 = t.deployment.ChargedTopic
	}
	network, _ := got.accepted.GetString("network")
	ref := jsonv.Obj(
		"network", network,
		"settleBy", strconv.FormatUint(got.expiry, 10),
		"bindingLog", jsonv.Obj("address", t.deployment.Escrow, "topic0", topic0, "index", 1, "value", paymentHash.String()),
	)
	if a.method == "eip3009" {
		digest, err := TransferDigest(TransferFields{From: got.payer, To: t.deployment.EIP3009Collector, Value: t.maxAmount})
		if err != nil {
			return nil, rails.Refuse(x402.CodePayloadMalformed)
		}
		ref.Set("transferLog", jsonv.Obj("address", t.token, "topic0", TopicTransfer.Hex(), "identity", "from,to,value", "digest", hex0x(digest[:])))
		ref.Set("search", jsonv.Obj("address", t.token, "topics", []jsonv.Value{TopicAuthorizationUsed.Hex(), nil, got.signed.String()}))
	} else {
		ref.Set("search", jsonv.Obj("address", t.deployment.Escrow, "topics", []jsonv.Value{topic0, paymentHash.String()}))
	}
	return ref, nil
}

// summarize reads the escrow member of an auth-capture request: the
// payment info whose hash (payer zero) the typed data's nonce must be,
// under a canonical escrow, with the same token, amount and expiry as the
// typed data. The grant is what the operator can capture: maxAmount of the
// token to the receiver.
func summarizeEscrow(req rails.Request, network, token, amount, nonce, expiry, collector string, permit2 bool) (rails.Grant, error) {
	bad := rails.Refuse(CodeRequestUnreadable)
	e, ok := req.GetObject("escrow")
	if !ok || e.Len() != 2 {
		return rails.Grant{}, bad
	}
	address, _ := e.GetString("address")
	info, okInfo := e.GetObject("paymentInfo")
	p, okP := paymentInfoOf(info)
	var d EscrowDeployment
	found := false
	for _, dep := range []EscrowDeployment{EscrowV11, EscrowV10} {
		if strings.EqualFold(address, dep.Escrow) {
			d, found = dep, true
		}
	}
	chain, _ := chainID(network)
	if !okInfo || !okP || !found || !strings.EqualFold(p.Payer, zeroAddress) {
		return rails.Grant{}, bad
	}
	want := d.EIP3009Collector
	if permit2 {
		want = d.Permit2Collector
	}
	h, ok := p.Hash(chain, d.Escrow)
	signed, okSigned := Permit2NonceHash(nonce)
	if !ok || !okSigned || h != signed || !strings.EqualFold(collector, want) || !strings.EqualFold(token, p.Token) ||
		amount != p.MaxAmount.String() || expiry != strconv.FormatUint(p.PreApprovalExpiry, 10) {
		return rails.Grant{}, bad
	}
	return rails.Grant{
		Network: network, Asset: p.Token, Decimals: rails.KnownDecimals(network, p.Token),
		Amount: p.MaxAmount, Payee: p.Receiver, PayableUntil: UnixTime(expiry),
	}, nil
}

// inspect states what a presented payment grants.
func (a authCapture) inspect(p jsonv.Value) (rails.Inspection, error) {
	got, err := a.presented(p)
	if err != nil {
		return rails.Inspection{}, err
	}
	t := got.t
	network, _ := got.accepted.GetString("network")
	g := rails.Grant{Network: network, Asset: t.token, Decimals: rails.KnownDecimals(network, t.token),
		Amount: t.maxAmount, Payer: got.payer, Payee: t.receiver, PayableUntil: UnixTime(strconv.FormatUint(got.expiry, 10))}
	u := func(n uint64) string { return strconv.FormatUint(n, 10) }
	details := jsonv.Obj("escrow", t.deployment.Escrow, "operator", t.operator,
		"captureDeadline", u(t.authorizationExpiry), "refundDeadline", u(t.refund),
		"feeBps", u(uint64(t.minFeeBps))+"–"+u(uint64(t.maxFeeBps)), "feeReceiver", t.feeReceiver,
		"salt", got.salt.String(), "nonce", got.signed.String(), "amountIs", "the most the operator can capture, to the receiver")
	where := "payload.salt: the escrow payment info's salt is H; the authorization's nonce is that payment info's hash (payer zero)"
	if t.bound {
		where = "payload.saltNonce: H, committed to by payload.salt (with the receiver authorizer and policy), the escrow payment info's salt; the authorization's nonce is that payment info's hash (payer zero)"
	}
	return rails.Inspection{Pairing: a.id, Kind: "payment", Grant: g, H: got.h.String(), WhereH: where, Details: details}, nil
}
