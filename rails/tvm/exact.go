package tvm

// x402/exact/tvm: H goes in the Jetton transfer's forward payload, a
// reference to a TEP-74 text comment cell (32 zero bits, then the UTF-8 of
// "lcp:sha256:0x…"); the option's extra.forwardPayload advertises that cell,
// and the payer's W5 wallet signs the request whose one action sends it.

import (
	"crypto/ed25519"
	"encoding/hex"
	"math/big"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

// Exact is the x402/exact/tvm pairing.
type Exact struct{}

// ExactID is the pairing id.
const ExactID = "x402/exact/tvm"

// Opcodes of TEP-74 and the W5 wallet.
const (
	OpJettonTransfer   = 0x0f8a7ea5
	OpInternalTransfer = 0x178d4519
	OpInternalSigned   = 0x73696e74
	OpSendMsg          = 0x0ec3c86d
)

// Refusal codes.
const (
	CodeNetworkMalformed = "tvm/network-malformed"
	CodeOptionMalformed  = "tvm/option-malformed"
	CodeCarrierMismatch  = "tvm/carrier-mismatch"
	CodeCarrierOccupied  = "tvm/carrier-occupied"
	CodeValueTooLow      = "tvm/value-too-low"
	CodeNotW5Signed      = "tvm/not-w5-signed"
	CodeActions          = "tvm/actions"
	CodeNotJetton        = "tvm/not-jetton-transfer"
	CodePayloadNotLCP    = "tvm/payload-not-lcp"
)

// sendMode 3: the sender pays fees separately and errors are ignored, as
// the x402 TON scheme's wallets send.
const sendMode = 3

var coinsLimit = new(big.Int).Lsh(big.NewInt(1), 120)

func (Exact) ID() string { return ExactID }

func (Exact) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

// IsNetwork reports whether n is tvm: and a decimal global id (tvm:-239
// mainnet, tvm:-3 testnet): an optional minus, no leading zeros, at most 16
// digits.
func IsNetwork(n string) bool {
	ref, ok := strings.CutPrefix(n, "tvm:")
	digits := strings.TrimPrefix(ref, "-")
	return ok && digits != "" && len(digits) <= 16 && rails.IsDecimal(digits) && (len(digits) == 1 || digits[0] != '0')
}

func coins(s string) (*big.Int, bool) {
	if !rails.IsDecimal(s) || len(s) > 37 || len(s) > 1 && s[0] == '0' {
		return nil, false
	}
	v, ok := new(big.Int).SetString(s, 10)
	return v, ok && v.Cmp(coinsLimit) < 0
}

// CheckOption says whether the pairing serves option o, and if not, why:
// x402/option-not-this-pairing for an option that is not exact on a tvm:
// network, names an assetTransferMethod or a paymentFlow other than
// authorization; tvm/network-malformed; tvm/option-malformed for an asset,
// payTo or responseDestination not raw, fees not sponsored, an amount or
// forwardTonAmount not below 2^120, or a maxTimeoutSeconds below 1.
func CheckOption(o *jsonv.Object) string {
	notThis := x402.CodeOptionNotThisPairing
	if s, _ := o.GetString("scheme"); s != "exact" {
		return notThis
	}
	network, _ := o.GetString("network")
	if !strings.HasPrefix(network, "tvm:") {
		return notThis
	}
	ev, hasExtra := o.Get("extra")
	extra, isObj := jsonv.AsObject(ev)
	if hasExtra && !isObj {
		return CodeOptionMalformed
	}
	if _, has := extra.Get("assetTransferMethod"); has {
		return notThis
	}
	if f, has := extra.Get("paymentFlow"); has && f != "authorization" {
		return notThis
	}
	if !IsNetwork(network) {
		return CodeNetworkMalformed
	}
	if _, ok := ParseAddress(mpp.String(o, "asset")); !ok {
		return CodeOptionMalformed
	}
	if _, ok := ParseAddress(mpp.String(o, "payTo")); !ok {
		return CodeOptionMalformed
	}
	if v, _ := extra.Get("areFeesSponsored"); v != true {
		return CodeOptionMalformed
	}
	if v, has := extra.Get("forwardTonAmount"); has {
		s, _ := jsonv.AsString(v)
		if _, ok := coins(s); !ok {
			return CodeOptionMalformed
		}
	}
	if v, has := extra.Get("responseDestination"); has {
		s, _ := jsonv.AsString(v)
		if _, ok := ParseAddress(s); !ok {
			return CodeOptionMalformed
		}
	}
	if _, ok := coins(mpp.String(o, "amount")); !ok {
		return CodeOptionMalformed
	}
	mt, _ := o.Get("maxTimeoutSeconds")
	if t, ok := jsonv.AsSafeInt(mt); !ok || t < 1 {
		return CodeOptionMalformed
	}
	return ""
}

func serves(o *jsonv.Object) bool { return CheckOption(o) == "" }

// Comment is TEP-74's text comment cell holding h's LCP string.
func Comment(h atr.Hash) *Cell {
	c, _ := NewBuilder().Uint(0, 32).Bytes([]byte(mpp.LegalContextValue(h))).End()
	return c
}

// CommentHash reads an LCP string from a text comment cell with no
// references, its text strict UTF-8 and exactly the LCP string.
func CommentHash(c *Cell) (atr.Hash, bool) {
	if c == nil || len(c.refs) != 0 || c.bits < 32 || (c.bits-32)%8 != 0 {
		return atr.Hash{}, false
	}
	s := c.Parse()
	if op, _ := s.Uint(32); op != 0 {
		return atr.Hash{}, false
	}
	text, _ := s.Bytes((c.bits - 32) / 8)
	h, ok := mpp.ParseLegalContext(string(text))
	if !ok || string(text) != mpp.LegalContextValue(h) {
		return atr.Hash{}, false
	}
	return h, true
}

func (Exact) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, serves) }

// Place sets extra.forwardPayload of the option at index i of doc's accepts
// to H's comment (a seller's advertise step, after x402.Advertise). An
// option that already carries another cell is tvm/carrier-occupied.
func Place(doc *jsonv.Object, i int, h atr.Hash) error {
	accepts, _ := doc.Get("accepts")
	list, _ := accepts.([]jsonv.Value)
	if i < 0 || i >= len(list) {
		return rails.Refuse(x402.CodeOptionNotInDocument)
	}
	o, ok := jsonv.AsObject(list[i])
	if !ok || !serves(o) {
		return rails.Refuse(x402.CodeOptionNotThisPairing)
	}
	carrier := Comment(h)
	extra, _ := o.GetObject("extra")
	if v, has := extra.Get("forwardPayload"); has {
		s, _ := jsonv.AsString(v)
		c, err := DecodeBoC64(s)
		if err != nil || !c.Equal(carrier) {
			return rails.Refuse(CodeCarrierOccupied)
		}
	}
	extra.Set("forwardPayload", EncodeBoC64(carrier))
	return nil
}

func carries(option *jsonv.Object, payload *Cell) bool {
	extra, _ := option.GetObject("extra")
	s, _ := extra.GetString("forwardPayload")
	c, err := DecodeBoC64(s)
	return err == nil && c.Equal(payload)
}

// Choose takes the first served option on the account's network (CAIP-10
// tvm:<global id>:<raw wallet address, its colon escaped>) and the inputs
// walletId and seqno (the W5 wallet's, uint32), jettonWallet (the payer's
// Jetton wallet for the asset, raw), attachNanotons (decimal, the value sent
// to it) and, for a wallet not yet deployed, stateInit (a base64 BoC).
func (Exact) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "tvm" {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	accepted := x402.OptionOn(read.Options, acct.Network())
	if accepted == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	c := jsonv.Obj("required", read.Required, "accepted", accepted, "wallet", acct.Address, "now", now)
	for _, k := range []string{"walletId", "seqno", "jettonWallet", "attachNanotons"} {
		v, has := inputs.Get(k)
		if !has {
			return nil, rails.Refuse(x402.CodeInputMissing)
		}
		c.Set(k, v)
	}
	if v, has := inputs.Get("stateInit"); has {
		c.Set("stateInit", v)
	}
	if _, err := readChoice(c, accepted); err != nil {
		return nil, err
	}
	return c, nil
}

// W5 is a built, unsigned W5 request.
type W5 struct {
	required, accepted *jsonv.Object
	network            string
	wallet             *Address
	request            *Cell
	init               *Cell
}

// Cell is the unsigned request cell.
func (w *W5) Cell() *Cell { return w.request }

// RequestHash is the representation hash the wallet key signs.
func (w *W5) RequestHash() [32]byte { return w.request.Hash() }

func uint32Of(v jsonv.Value) (uint64, bool) {
	n, ok := jsonv.AsSafeInt(v)
	return uint64(n), ok && n >= 0 && n < 1<<32
}

// Build writes the W5 internal_signed request: wallet id, valid until now +
// maxTimeoutSeconds, seqno, one action_send_msg (mode 3) of a bounceable
// message to the payer's Jetton wallet with attachNanotons, whose body is
// the Jetton transfer of amount to payTo with H's comment as forward
// payload, and no extended actions.
func (Exact) Build(ch jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, required, accepted, err := x402.ChosenOption(ch, serves)
	if err != nil {
		return nil, err
	}
	carrier := Comment(h)
	if !carries(accepted, carrier) {
		return nil, rails.Refuse(CodeCarrierMismatch)
	}
	v, err := readChoice(c, accepted)
	if err != nil {
		return nil, err
	}
	malformed := rails.Refuse(x402.CodeOptionMalformed)
	wallet, jetton, walletID, seqno, validUntil, init, forward, attach := v.wallet, v.jetton, v.walletID, v.seqno, v.validUntil, v.init, v.forward, v.attach
	extra, _ := accepted.GetObject("extra")
	var response *Address
	if s, has := extra.GetString("responseDestination"); has {
		response, _ = ParseAddress(s)
	}
	amount, _ := coins(mpp.String(accepted, "amount"))
	payTo, _ := ParseAddress(mpp.String(accepted, "payTo"))
	body, err := NewBuilder().Uint(OpJettonTransfer, 32).Uint(0, 64).Coins(amount).Address(payTo).Address(response).
		Bit(false).Coins(forward).Bit(true).Ref(carrier).End()
	if err != nil {
		return nil, malformed
	}
	out, err := internalMessage(true, jetton, attach, nil, body)
	if err != nil {
		return nil, malformed
	}
	empty, _ := NewBuilder().End()
	actions, _ := NewBuilder().Ref(empty).Uint(OpSendMsg, 32).Uint(sendMode, 8).Ref(out).End()
	request, _ := NewBuilder().Uint(OpInternalSigned, 32).Uint(walletID, 32).Uint(validUntil, 32).Uint(seqno, 32).
		Bit(true).Ref(actions).Bit(false).End()
	return &W5{required: required, accepted: accepted, network: mpp.String(accepted, "network"), wallet: wallet,
		request: request, init: init}, nil
}

type choice struct {
	wallet, jetton              *Address
	walletID, seqno, validUntil uint64
	init                        *Cell
	forward, attach             *big.Int
}

// readChoice checks a choice's own members (Choose, before anything is
// fetched, and Build again): the wallet and Jetton wallet raw, wallet id
// and seqno uint32, valid-until within uint32, a state init of W5's shape,
// attachNanotons above the forward amount.
func readChoice(c, accepted *jsonv.Object) (*choice, error) {
	var err error
	malformed := rails.Refuse(x402.CodeOptionMalformed)
	wallet, ok1 := ParseAddress(mpp.String(c, "wallet"))
	jetton, ok2 := ParseAddress(mpp.String(c, "jettonWallet"))
	wv, _ := c.Get("walletId")
	sv, _ := c.Get("seqno")
	nv, _ := c.Get("now")
	walletID, ok3 := uint32Of(wv)
	seqno, ok4 := uint32Of(sv)
	now, ok5 := jsonv.AsSafeInt(nv)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || now < 0 {
		return nil, malformed
	}
	mt, _ := accepted.Get("maxTimeoutSeconds")
	timeout, _ := jsonv.AsSafeInt(mt)
	validUntil := uint64(now) + uint64(timeout)
	if validUntil >= 1<<32 {
		return nil, malformed
	}
	var init *Cell
	if v, has := c.Get("stateInit"); has {
		s, _ := jsonv.AsString(v)
		if init, err = DecodeBoC64(s); err != nil {
			return nil, rails.Refuse(err.Error())
		}
		if !isStateInit(init) {
			return nil, malformed
		}
	}
	extra, _ := accepted.GetObject("extra")
	forward := new(big.Int)
	if s, has := extra.GetString("forwardTonAmount"); has {
		forward, _ = coins(s)
	}
	attach, ok := coins(mpp.String(c, "attachNanotons"))
	if !ok {
		return nil, malformed
	}
	if attach.Cmp(forward) <= 0 {
		return nil, rails.Refuse(CodeValueTooLow)
	}
	return &choice{wallet: wallet, jetton: jetton, walletID: walletID, seqno: seqno, validUntil: validUntil, init: init,
		forward: forward, attach: attach}, nil
}

// isStateInit: split_depth and special absent, code and data present, no
// library, and nothing more.
func isStateInit(c *Cell) bool {
	s := c.Parse()
	v, err := s.Uint(5)
	return err == nil && v == 0b00110 && s.RemainingBits() == 0 && len(c.refs) == 2
}

// internalMessage is a relaxed internal message (src addr_none, IHR
// disabled, no extra currencies, fees, lt and time zero), its init and body
// as references.
func internalMessage(bounce bool, dest *Address, value *big.Int, init, body *Cell) (*Cell, error) {
	b := NewBuilder().Bit(false).Bit(true).Bit(bounce).Bit(false).Address(nil).Address(dest).Coins(value).Bit(false).
		Coins(new(big.Int)).Coins(new(big.Int)).Uint(0, 64).Uint(0, 32)
	if init != nil {
		b.Bit(true).Bit(true).Ref(init)
	} else {
		b.Bit(false)
	}
	return b.Bit(true).Ref(body).End()
}

// KindW5 is the signing request of a W5 wallet request: {kind, network,
// wallet, hash, request}, hash 0x hex of the 32-byte representation hash the
// Ed25519 key signs and request the unsigned request cell as a base64 BoC
// (so that a signer can read what it signs). The answer is the 64-byte
// signature in 0x hex.
const KindW5 = "ton-w5"

func (Exact) Request(u rails.Unsigned) (rails.Request, error) {
	w := u.(*W5)
	h := w.request.Hash()
	return jsonv.Obj("kind", KindW5, "network", w.network, "wallet", w.wallet.String(),
		"hash", "0x"+hex.EncodeToString(h[:]), "request", EncodeBoC64(w.request)), nil
}

// Signed is the request with its signature: the wallet message's body.
func (w *W5) Signed(sig []byte) (*Cell, error) {
	if len(sig) != ed25519.SignatureSize {
		return nil, rails.Refuse(x402.CodeSignatureMalformed)
	}
	signed, err := NewBuilder().Slice(w.request.Parse()).Bytes(sig).End()
	if err != nil {
		return nil, rails.Refuse(x402.CodeSignatureMalformed)
	}
	return internalMessage(false, w.wallet, new(big.Int), w.init, signed)
}

// Complete writes the internal message to the payer's wallet: value zero,
// not bounceable, the state init when the wallet is not deployed, the
// signed request as its body; payload {settlementBoc, asset}. The signature
// is checked for length only: the W5 contract verifies it before any action
// runs, and the buyer's key is not in the choice.
func (Exact) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	w := u.(*W5)
	s, _ := jsonv.AsString(answer)
	sig, ok := mpp.HexBytes(s, ed25519.SignatureSize, ed25519.SignatureSize)
	if !ok {
		return rails.Completion{}, rails.Refuse(x402.CodeSignatureMalformed)
	}
	root, err := w.Signed(sig)
	if err != nil {
		return rails.Completion{}, err
	}
	payment := x402.Payment(w.required, w.accepted, jsonv.Obj("settlementBoc", EncodeBoC64(root),
		"asset", mpp.String(w.accepted, "asset")))
	if err := x402.AppendPaymentIdentifier(payment, w.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// Carried is what a settlement BoC carries.
type Carried struct {
	H                atr.Hash
	TransferBodyHash [32]byte
	JettonWallet     *Address
	ValidUntil       uint64
	Payload          *Cell
}

// Carrier reads a settlement BoC: an internal message whose body is a W5
// internal_signed request (tvm/not-w5-signed) with exactly one
// action_send_msg behind an empty list (tvm/actions), sending a Jetton
// transfer (tvm/not-jetton-transfer) whose forward payload is a reference to
// H's comment (tvm/payload-not-lcp).
func Carrier(settlementBoc string) (*Carried, error) {
	root, err := DecodeBoC64(settlementBoc)
	if err != nil {
		return nil, rails.Refuse(err.Error())
	}
	_, body, ok := readInternal(root)
	if !ok {
		return nil, rails.Refuse(CodeBocMalformed)
	}
	s := body.Parse()
	notW5 := rails.Refuse(CodeNotW5Signed)
	if op, err := s.Uint(32); err != nil || op != OpInternalSigned {
		return nil, notW5
	}
	_, err1 := s.Uint(32)
	validUntil, err2 := s.Uint(32)
	_, err3 := s.Uint(32)
	list, err4 := s.MaybeRef()
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return nil, notW5
	}
	ext, err := s.Bit()
	if err != nil {
		return nil, notW5
	}
	if list == nil || ext {
		return nil, rails.Refuse(CodeActions)
	}
	if s.RemainingBits() != 512 || s.RemainingRefs() != 0 {
		return nil, notW5
	}
	if list.bits != 40 || len(list.refs) != 2 || list.refs[0].bits != 0 || len(list.refs[0].refs) != 0 {
		return nil, rails.Refuse(CodeActions)
	}
	if op, _ := list.Parse().Uint(32); op != OpSendMsg {
		return nil, rails.Refuse(CodeActions)
	}
	dest, transfer, ok := readInternal(list.refs[1])
	if !ok {
		return nil, rails.Refuse(CodeNotJetton)
	}
	payload, err := JettonPayload(transfer)
	if err != nil {
		return nil, err
	}
	h, ok := CommentHash(payload)
	if !ok {
		return nil, rails.Refuse(CodePayloadNotLCP)
	}
	return &Carried{H: h, TransferBodyHash: transfer.Hash(), JettonWallet: dest, ValidUntil: validUntil, Payload: payload}, nil
}

// JettonPayload reads a Jetton transfer body up to its forward payload,
// which must be a reference (tvm/payload-not-lcp when inline or absent).
func JettonPayload(body *Cell) (*Cell, error) {
	s := body.Parse()
	not := rails.Refuse(CodeNotJetton)
	if op, err := s.Uint(32); err != nil || op != OpJettonTransfer {
		return nil, not
	}
	if _, err := s.Uint(64); err != nil {
		return nil, not
	}
	if _, err := s.Coins(); err != nil {
		return nil, not
	}
	if _, err := s.Address(); err != nil {
		return nil, not
	}
	if _, err := s.MaybeAddress(); err != nil {
		return nil, not
	}
	if _, err := s.MaybeRef(); err != nil {
		return nil, not
	}
	if _, err := s.Coins(); err != nil {
		return nil, not
	}
	isRef, err := s.Bit()
	if err != nil {
		return nil, not
	}
	if !isRef {
		return nil, rails.Refuse(CodePayloadNotLCP)
	}
	ref, err := s.Ref()
	if err != nil {
		return nil, not
	}
	return ref, nil
}

// readInternal reads a relaxed internal message's destination and body
// (inline or a reference), skipping an init.
func readInternal(c *Cell) (*Address, *Cell, bool) {
	s := c.Parse()
	tag, err := s.Bit()
	if err != nil || tag {
		return nil, nil, false
	}
	if _, err := s.Uint(3); err != nil {
		return nil, nil, false
	}
	if _, err := s.MaybeAddress(); err != nil {
		return nil, nil, false
	}
	dest, err := s.Address()
	if err != nil {
		return nil, nil, false
	}
	if _, err := s.Coins(); err != nil {
		return nil, nil, false
	}
	if _, err := s.MaybeRef(); err != nil { // extra currencies
		return nil, nil, false
	}
	_, e1 := s.Coins()
	_, e2 := s.Coins()
	_, e3 := s.Uint(64)
	_, e4 := s.Uint(32)
	hasInit, e5 := s.Bit()
	if e1 != nil || e2 != nil || e3 != nil || e4 != nil || e5 != nil {
		return nil, nil, false
	}
	if hasInit {
		// only the reference form is read: an inline state init is not what a buyer writes
		if isRef, err := s.Bit(); err != nil || !isRef {
			return nil, nil, false
		}
		if _, err := s.Ref(); err != nil {
			return nil, nil, false
		}
	}
	isRef, err := s.Bit()
	if err != nil {
		return nil, nil, false
	}
	if isRef {
		body, err := s.Ref()
		if err != nil || s.RemainingBits() != 0 || s.RemainingRefs() != 0 {
			return nil, nil, false
		}
		return dest, body, true
	}
	b := NewBuilder().Slice(s)
	body, err := b.End()
	return dest, body, err == nil
}

func carried(presented jsonv.Value) (*Carried, *jsonv.Object, error) {
	o, ok := jsonv.AsObject(presented)
	if !ok {
		return nil, nil, rails.Refuse(x402.CodeNotV2)
	}
	if v, _ := o.Get("x402Version"); v != jsonv.Number(2) {
		return nil, nil, rails.Refuse(x402.CodeNotV2)
	}
	accepted, ok := o.GetObject("accepted")
	if !ok {
		return nil, nil, rails.Refuse(x402.CodeOptionNotThisPairing)
	}
	if code := CheckOption(accepted); code != "" {
		return nil, nil, rails.Refuse(code)
	}
	payload, ok := o.GetObject("payload")
	if !ok {
		return nil, nil, rails.Refuse(x402.CodePayloadMalformed)
	}
	boc, ok := payload.GetString("settlementBoc")
	if !ok {
		return nil, nil, rails.Refuse(x402.CodePayloadMalformed)
	}
	c, err := Carrier(boc)
	if err != nil {
		return nil, nil, err
	}
	if !carries(accepted, c.Payload) {
		return nil, nil, rails.Refuse(CodeCarrierMismatch)
	}
	return c, accepted, nil
}

// Bound reads H from the forward payload of the transfer the W5 wallet
// signed, which must be the option's. The signature is not verified here:
// the facilitator and the wallet contract do that.
func (Exact) Bound(presented jsonv.Value) (string, error) {
	c, _, err := carried(presented)
	if err != nil {
		return "", err
	}
	return c.H.String(), nil
}

// Reference is what a seller records at claim to find the payment.
type Reference struct {
	Network          string
	TransferBodyHash string // 0x and 64 lowercase hex digits
	JettonWallet     string // raw
	ValidUntil       uint64
}

// PaymentReference reads a presented payment's reference.
func PaymentReference(presented jsonv.Value) (Reference, error) {
	c, accepted, err := carried(presented)
	if err != nil {
		return Reference{}, err
	}
	return Reference{Network: mpp.String(accepted, "network"), TransferBodyHash: "0x" + hex.EncodeToString(c.TransferBodyHash[:]),
		JettonWallet: c.JettonWallet.String(), ValidUntil: c.ValidUntil}, nil
}

func refusal(code string) error { return rails.Refuse(code) }

// RequestCell reads a ton-w5 signing request: its network, wallet and the
// request cell, whose hash must be the request's hash and whose layout an
// internal_signed request with one send action (so that a signer signs
// nothing it cannot state).
func RequestCell(req rails.Request) (network string, wallet *Address, request *Cell, err error) {
	bad := func(what string) error { return rails.Refuse("tvm/request-malformed: " + what) }
	if k, _ := req.GetString("kind"); k != KindW5 {
		return "", nil, nil, bad("kind")
	}
	network, _ = req.GetString("network")
	if !IsNetwork(network) {
		return "", nil, nil, bad("network")
	}
	w, ok := ParseAddress(mpp.String(req, "wallet"))
	if !ok {
		return "", nil, nil, bad("wallet")
	}
	hash, ok := mpp.HexBytes(mpp.String(req, "hash"), 32, 32)
	if !ok {
		return "", nil, nil, bad("hash")
	}
	c, e := DecodeBoC64(mpp.String(req, "request"))
	if e != nil {
		return "", nil, nil, bad("request")
	}
	if h := c.Hash(); string(h[:]) != string(hash) {
		return "", nil, nil, bad("hash is not the request's")
	}
	s := c.Parse()
	if op, _ := s.Uint(32); op != OpInternalSigned || c.bits != 130 || len(c.refs) != 1 {
		return "", nil, nil, bad("not a W5 internal_signed request")
	}
	return network, w, c, nil
}
