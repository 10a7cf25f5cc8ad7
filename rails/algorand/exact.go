// Package algorand holds the Algorand pairing, x402/exact/algorand, and
// what it needs: a strict canonical msgpack codec, addresses, transactions
// and their ids (docs/algorand.md).
package algorand

// x402/exact/algorand: H goes in the note of the payer's asset transfer,
// paymentGroup[paymentIndex].txn.note, as exactly the 77 bytes of its LCP
// string "lcp:sha256:0x…" (the note is part of what the payer signs and is
// on chain in the confirmed transaction, so the payment is a public proof).

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

// Exact is the x402/exact/algorand pairing.
type Exact struct{}

// ExactID is the pairing id.
const ExactID = "x402/exact/algorand"

// Refusal codes of the pairing.
const (
	CodeOptionMalformed    = "avm/option-malformed"
	CodeNetworkMalformed   = "avm/network-malformed"
	CodeNetworkMismatch    = "avm/network-mismatch"
	CodeTxnMalformed       = "avm/txn-malformed"
	CodeGroupTooLarge      = "avm/group-too-large"
	CodeIndexOutOfRange    = "avm/index-out-of-range"
	CodeNotAxfer           = "avm/not-axfer"
	CodeNoteNotLCP         = "avm/note-not-lcp"
	CodeSignatureMalformed = "avm/signature-malformed"
	CodeSignatureInvalid   = "avm/signature-invalid"
)

// Bounds of a payment's payload.
const (
	MaxGroup      = 16   // transactions in a group, the protocol's limit
	MaxEntryChars = 8192 // base64 characters of one signed transaction
)

func (Exact) ID() string { return ExactID }

func (Exact) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

// CheckOption says whether the pairing serves option o. An option that is
// not exact on an algorand: network is not its (served false, code ""); one
// that is but is malformed is refused with the code saying how: a network
// reference that is not 32 characters, an assetTransferMethod (which
// Algorand's scheme does not have), a paymentFlow other than authorization,
// an asset or amount that is no uint64, a payTo or feePayer that is no
// address, or a maxTimeoutSeconds that is not a positive integer.
func CheckOption(o *jsonv.Object) (served bool, code string) {
	n, ok := o.GetString("network")
	if !ok || !strings.HasPrefix(n, NetworkPrefix) {
		return false, ""
	}
	if s, _ := o.GetString("scheme"); s != "exact" {
		return false, ""
	}
	ev, hasExtra := o.Get("extra")
	extra, ok := jsonv.AsObject(ev)
	if hasExtra && !ok {
		return false, CodeOptionMalformed
	}
	if !IsNetwork(n) {
		return false, CodeNetworkMalformed
	}
	if extra.Has("assetTransferMethod") {
		return false, CodeOptionMalformed
	}
	if f, has := extra.Get("paymentFlow"); has && f != "authorization" {
		return false, CodeOptionMalformed
	}
	asset, _ := o.Get("asset")
	amount, _ := o.Get("amount")
	payTo, _ := o.Get("payTo")
	mt, _ := o.Get("maxTimeoutSeconds")
	timeout, okT := jsonv.AsSafeInt(mt)
	if fp, has := extra.Get("feePayer"); has && !IsAddress(fp) {
		return false, CodeOptionMalformed
	}
	if _, ok := uint64Of(asset); !ok {
		return false, CodeOptionMalformed
	}
	if _, ok := uint64Of(amount); !ok || !IsAddress(payTo) || !okT || timeout <= 0 {
		return false, CodeOptionMalformed
	}
	return true, ""
}

func serves(o *jsonv.Object) bool { ok, _ := CheckOption(o); return ok }

// uint64Of reads a decimal string of a uint64 without leading zeros.
func uint64Of(v jsonv.Value) (uint64, bool) {
	s, ok := v.(string)
	if !ok || s == "" || len(s) > 20 || len(s) > 1 && s[0] == '0' || !rails.IsDecimal(s) {
		return 0, false
	}
	u, err := strconv.ParseUint(s, 10, 64)
	return u, err == nil
}

func (Exact) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, serves) }

// paramKeys are the members of the buyer input params, algod's suggested
// parameters (GET /v2/transactions/params) as decimal strings and the
// genesis hash in base64.
var paramKeys = []string{"firstValid", "genesisHash", "genesisId", "minFee", "feePerByte"}

// Choose takes the first served option on the account's network and the
// input params; the choice holds both, so Build rebuilds the same group.
func (Exact) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "algorand" {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	if _, ok := ParseAddress(acct.Address); !ok {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	accepted := x402.OptionOn(read.Options, acct.Network())
	if accepted == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	pv, _ := inputs.Get("params")
	p, ok := jsonv.AsObject(pv)
	if !ok {
		return nil, rails.Refuse(x402.CodeInputMissing)
	}
	params := jsonv.Obj()
	for _, k := range paramKeys {
		s, ok := p.GetString(k)
		if !ok {
			return nil, rails.Refuse(x402.CodeInputMissing)
		}
		params.Set(k, s)
	}
	if _, err := readParams(params); err != nil {
		return nil, err
	}
	return jsonv.Obj("required", read.Required, "accepted", accepted, "payer", acct.Address, "params", params, "now", now), nil
}

// RoundInterval bounds how long one round takes when the request's
// validUntil is estimated: Algorand's rounds take about 2.8 s, so 5 s
// leaves room for a slow network. The signature is worthless after
// lastValid, a round, not a time: validUntil is the buyer's own estimate of
// when that round will have passed, which the spend policy reads.
const RoundInterval = 5

// Params are algod's suggested parameters, as the build uses them.
type Params struct {
	FirstValid, MinFee, FeePerByte uint64
	GenesisID                      string
	GenesisHash                    [32]byte
}

// readParams reads the choice's params: uint64 decimals, a genesis id of
// at most 64 characters and a 32-byte genesis hash in standard base64.
func readParams(p *jsonv.Object) (Params, error) {
	var out Params
	var ok1, ok2, ok3 bool
	// The members as held (uint64Of takes only strings), not boxed again.
	fv, _ := p.Get("firstValid")
	mf, _ := p.Get("minFee")
	fpb, _ := p.Get("feePerByte")
	out.FirstValid, ok1 = uint64Of(fv)
	out.MinFee, ok2 = uint64Of(mf)
	out.FeePerByte, ok3 = uint64Of(fpb)
	out.GenesisID = mpp.String(p, "genesisId")
	if !ok1 || !ok2 || !ok3 || out.GenesisID == "" || len(out.GenesisID) > MaxGenesisID || !utf8.ValidString(out.GenesisID) {
		return Params{}, rails.Refuse(x402.CodeInputMissing)
	}
	gh, err := base64.StdEncoding.Strict().DecodeString(mpp.String(p, "genesisHash"))
	if err != nil || len(gh) != 32 {
		return Params{}, rails.Refuse(CodeNetworkMismatch)
	}
	copy(out.GenesisHash[:], gh)
	return out, nil
}

// errOptionMalformed is Build's refusal, made once: Build runs twice a
// payment and refuses rarely.
var errOptionMalformed = rails.Refuse(CodeOptionMalformed)

type exactUnsigned struct {
	required, accepted *jsonv.Object
	group              []*Txn
	index              int
	payer              [32]byte
	network            string
	until              int64  // Unix seconds; 0 when the choice names no time
	toSign             []byte // the payer's transfer's signing bytes
}

// Build writes the asset transfer with H's LCP string as its note. With
// the option's feePayer it is grouped after the fee payer's zero payment
// to itself, which carries both fees (the payer's transfer then pays
// none); without, the payer pays the suggested fee.
func (Exact) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, required, accepted, err := x402.ChosenOption(choice, serves)
	if err != nil {
		return nil, err
	}
	var malformed error = errOptionMalformed
	payer, ok := ParseAddress(mpp.String(c, "payer"))
	pv, _ := c.GetObject("params")
	if !ok || pv == nil {
		return nil, malformed
	}
	p, err := readParams(pv)
	if err != nil {
		return nil, err
	}
	network := mpp.String(accepted, "network")
	if !IsNetworkOf(network, p.GenesisHash) {
		return nil, rails.Refuse(CodeNetworkMismatch)
	}
	asset, _ := accepted.Get("asset")
	amount, _ := accepted.Get("amount")
	mt, _ := accepted.Get("maxTimeoutSeconds")
	timeout, _ := jsonv.AsSafeInt(mt)
	assetID, _ := uint64Of(asset)
	amt, _ := uint64Of(amount)
	payTo, _ := ParseAddress(mpp.String(accepted, "payTo"))
	life := uint64(timeout)
	if life > MaxTxnLife {
		life = MaxTxnLife
	}
	if p.FirstValid > ^uint64(0)-life {
		return nil, malformed
	}
	base := Txn{Sender: payer, FirstValid: p.FirstValid, LastValid: p.FirstValid + life, GenesisID: p.GenesisID, GenesisHash: p.GenesisHash}
	axfer := base
	axfer.Type, axfer.AssetID, axfer.AssetAmount, axfer.AssetReceiver = "axfer", assetID, amt, payTo
	axfer.Note = []byte(mpp.LegalContextValue(h))
	u := &exactUnsigned{required: required, accepted: accepted, payer: payer, network: network}
	if nv, has := c.Get("now"); has {
		now, ok := jsonv.AsSafeInt(nv)
		if !ok || now < 0 {
			return nil, malformed
		}
		if now > 0 {
			u.until = now + int64(life)*RoundInterval
		}
	}
	extra, _ := accepted.GetObject("extra")
	fpText, sponsored := extra.GetString("feePayer")
	if !sponsored {
		fee, ok := SuggestedFee(axfer, p.FeePerByte, p.MinFee)
		if !ok {
			return nil, malformed
		}
		axfer.Fee = fee
		u.group, u.toSign = []*Txn{&axfer}, axfer.SigningBytes()
		return u, nil
	}
	feePayer, _ := ParseAddress(fpText)
	zero := base
	zero.Type, zero.Sender, zero.Receiver = "pay", feePayer, feePayer
	f1, ok1 := SuggestedFee(zero, p.FeePerByte, p.MinFee)
	f2, ok2 := SuggestedFee(axfer, p.FeePerByte, p.MinFee)
	if !ok1 || !ok2 || f1 > ^uint64(0)-f2 {
		return nil, malformed
	}
	zero.Fee = f1 + f2
	group := []*Txn{&zero, &axfer}
	gid := GroupID(group)
	zero.Group, axfer.Group = gid, gid
	u.group, u.index, u.toSign = group, 1, axfer.SigningBytes()
	return u, nil
}

// KindTxn is the signing request of one Algorand transaction: {kind,
// network, bytes, validUntil?}, bytes 0x hex of "TX" and the transaction's
// canonical msgpack, exactly what Ed25519 signs, validUntil the buyer's
// estimate (Unix seconds) of when its last valid round will have passed.
// The answer is the 64-byte signature as 0x hex.
const KindTxn = "algorand-txn"

func (Exact) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*exactUnsigned)
	req := jsonv.Obj("kind", KindTxn, "network", b.network, "bytes", hex0x(b.toSign))
	if b.until > 0 {
		req.Set("validUntil", jsonv.Number(b.until))
	}
	return req, nil
}

// hex0x is "0x" and b's lowercase hex, in one allocation.
func hex0x(b []byte) string {
	var buf [1024]byte // a transaction's signing bytes fit: the copy below is the one allocation
	var out []byte
	if n := 2 + hex.EncodedLen(len(b)); n <= len(buf) {
		out = buf[:n]
	} else {
		out = make([]byte, n)
	}
	out[0], out[1] = '0', 'x'
	hex.Encode(out[2:], b)
	return string(out)
}

// Complete checks the signature verifies under the payer's key over what
// was asked, and writes the payment group: each transaction in base64 of
// its signed msgpack, the payer's with the signature, the fee payer's for
// the fee payer to sign.
func (Exact) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*exactUnsigned)
	s, _ := jsonv.AsString(answer)
	sig, ok := mpp.HexBytes(s, ed25519.SignatureSize, ed25519.SignatureSize)
	if !ok {
		return rails.Completion{}, rails.Refuse(CodeSignatureMalformed)
	}
	if !ed25519.Verify(b.payer[:], b.toSign, sig) {
		return rails.Completion{}, rails.Refuse(CodeSignatureInvalid)
	}
	entries := make([]jsonv.Value, len(b.group))
	for i, t := range b.group {
		var s []byte
		if i == b.index {
			s = sig
		}
		entries[i] = base64.StdEncoding.EncodeToString(EncodeSigned(t, s))
	}
	payload := jsonv.Obj("paymentIndex", jsonv.Number(b.index), "paymentGroup", entries)
	payment := x402.Payment(b.required, b.accepted, payload)
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// Carried is what a payment's payload carries: the payer's transfer, its
// signed form and place, and the H its note names.
type Carried struct {
	H      atr.Hash
	Txn    *Txn
	Signed *SignedTxn
	Index  int
	Group  []jsonv.Value
}

// Carrier reads a payload {paymentIndex, paymentGroup} down to the
// transaction at paymentIndex, an asset transfer whose note is an LCP
// string. The refusals are in the order they are checked: a group that is
// no list, or of 0 or more than 16 entries, an index out of it, an entry
// that is not base64 of one canonical signed transaction within the caps,
// a transaction that is not an axfer, a note that is not the LCP string.
func Carrier(payload *jsonv.Object) (*Carried, error) {
	gv, _ := payload.Get("paymentGroup")
	group, ok := jsonv.AsArray(gv)
	if !ok {
		return nil, rails.Refuse(CodeTxnMalformed)
	}
	if len(group) < 1 || len(group) > MaxGroup {
		return nil, rails.Refuse(CodeGroupTooLarge)
	}
	iv, _ := payload.Get("paymentIndex")
	i, ok := jsonv.AsSafeInt(iv)
	if !ok || i < 0 || i >= int64(len(group)) {
		return nil, rails.Refuse(CodeIndexOutOfRange)
	}
	s, err := decodeEntry(group[i])
	if err != nil {
		return nil, err
	}
	if typ, _ := s.Txn.Get("type"); typ.Kind != KindStr || string(typ.Bytes) != "axfer" {
		return nil, rails.Refuse(CodeNotAxfer)
	}
	t, err := ReadTxn(s.Txn)
	if err != nil {
		return nil, rails.Refuse(CodeTxnMalformed)
	}
	h, ok := mpp.ParseLegalContext(string(t.Note))
	if !ok || string(t.Note) != mpp.LegalContextValue(h) {
		return nil, rails.Refuse(CodeNoteNotLCP)
	}
	return &Carried{H: h, Txn: t, Signed: s, Index: int(i), Group: group}, nil
}

// decodeEntry reads one entry of a payment group.
func decodeEntry(v jsonv.Value) (*SignedTxn, error) {
	text, ok := jsonv.AsString(v)
	if !ok || len(text) > MaxEntryChars {
		return nil, rails.Refuse(CodeTxnMalformed)
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(text)
	if err != nil {
		return nil, rails.Refuse(CodeTxnMalformed)
	}
	s, err := DecodeSigned(raw)
	if err != nil {
		return nil, rails.Refuse(CodeTxnMalformed)
	}
	return s, nil
}

// carried reads a presented x402 payment to its carrier, and checks the
// transfer is for the option's network.
func carried(presented jsonv.Value) (*Carried, *jsonv.Object, error) {
	o, ok := jsonv.AsObject(presented)
	if !ok {
		return nil, nil, rails.Refuse(x402.CodeNotV2)
	}
	if v, _ := o.Get("x402Version"); v != jsonv.Number(2) {
		return nil, nil, rails.Refuse(x402.CodeNotV2)
	}
	accepted, ok := o.GetObject("accepted")
	if !ok || !serves(accepted) {
		return nil, nil, rails.Refuse(x402.CodeOptionNotThisPairing)
	}
	payload, ok := o.GetObject("payload")
	if !ok {
		return nil, nil, rails.Refuse(x402.CodePayloadMalformed)
	}
	c, err := Carrier(payload)
	if err != nil {
		return nil, nil, err
	}
	if !IsNetworkOf(mpp.String(accepted, "network"), c.Txn.GenesisHash) {
		return nil, nil, rails.Refuse(CodeNetworkMismatch)
	}
	return c, accepted, nil
}

// Bound reads H back from the payer's transfer's note. Amount, receiver,
// asset and the signature are not checked here (the seller's facilitator
// and the chain do that).
func (Exact) Bound(presented jsonv.Value) (string, error) {
	c, _, err := carried(presented)
	if err != nil {
		return "", err
	}
	return c.H.String(), nil
}

// Reference is what a seller records of a claimed payment to find it on
// chain: the network, the transfer's id and its last valid round.
type Reference struct {
	Network   string
	TxID      string
	LastValid uint64
}

// PaymentReference reads a presented payment's reference.
func PaymentReference(presented jsonv.Value) (Reference, error) {
	c, accepted, err := carried(presented)
	if err != nil {
		return Reference{}, err
	}
	return Reference{Network: mpp.String(accepted, "network"), TxID: c.Txn.ID(), LastValid: c.Txn.LastValid}, nil
}
