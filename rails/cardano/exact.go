// Package cardano holds the Cardano pairing, x402/exact/cardano, and what it
// needs: Shelley addresses, the transaction reader over rails/cbor, the
// transfer the payer's wallet builds, and the seller's status and recovery
// by transaction id (docs/cardano.md).
package cardano

// x402/exact/cardano: H goes in a CIP-20 message under metadata label 674,
// {"msg": ["lcp:sha256:0x", <H's 64 lowercase hex digits>]}, in the
// transaction's auxiliary data (payload.transaction, item 4); the signed
// body commits to those bytes through its auxiliary_data_hash (key 7, their
// Blake2b-256), so H is on chain in the metadata, read by transaction id.

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

// Exact is the x402/exact/cardano pairing.
type Exact struct{}

// ExactID is the pairing id.
const ExactID = "x402/exact/cardano"

// Refusal codes of the pairing (the transaction's own are in tx.go).
const (
	CodeNetworkMalformed = "cardano/network-malformed"
	CodeTTLMissing       = "cardano/ttl-missing"
	CodeTransferMismatch = "cardano/transfer-mismatch" // the wallet's transaction does not pay what was asked
	CodeSignatureInvalid = "cardano/signature-invalid" // no witness of the payer's key over the transaction id
	CodeSignedNotBound   = "x402/signed-not-bound"
)

// MaxNonceChars bounds payload.nonce.
const MaxNonceChars = 256

// Lovelace is the native coin as options write it.
const Lovelace = "lovelace"

// networks maps the networks the pairing pays on, by their names and their
// CIP-34 ids, to their names.
var networks = map[string]string{
	"cardano:mainnet": "cardano:mainnet", "cardano:preprod": "cardano:preprod", "cardano:preview": "cardano:preview",
	"cip34:1-764824073": "cardano:mainnet", "cip34:0-1": "cardano:preprod", "cip34:0-2": "cardano:preview",
}

// NetworkName is a network's name (cardano:mainnet, cardano:preprod,
// cardano:preview), read from its name or its CIP-34 id; "" for none.
func NetworkName(n string) string { return networks[n] }

// NetworkID is the address network id of a network name: 1 on mainnet.
func NetworkID(name string) byte {
	if name == "cardano:mainnet" {
		return 1
	}
	return 0
}

// IsAsset reports "lovelace" or a native asset as Blockfrost writes its
// unit: the 56 hex digits of the policy id and up to 64 of the name, lowercase.
func IsAsset(s string) bool {
	if s == Lovelace {
		return true
	}
	if len(s) < 56 || len(s) > 120 || len(s)%2 != 0 || strings.ToLower(s) != s {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// u64Of reads a decimal string of a u64 without leading zeros.
func u64Of(s string) (uint64, bool) {
	if s == "" || len(s) > 20 || len(s) > 1 && s[0] == '0' || !rails.IsDecimal(s) {
		return 0, false
	}
	u, err := strconv.ParseUint(s, 10, 64)
	return u, err == nil
}

func (Exact) ID() string { return ExactID }

func (Exact) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

// CheckOption is "" for an option the pairing pays, or the code saying why
// not: x402/option-not-this-pairing for one that is not exact on a cardano:
// or cip34: network, has an extra that is not an object, an
// assetTransferMethod other than script or masumi, a paymentFlow other than
// authorization, or whose amount (a u64), asset (lovelace or a native
// asset's unit) or payTo (a Shelley address of the network) do not read;
// cardano/network-malformed for such a network outside mainnet, preprod
// and preview.
func CheckOption(o *jsonv.Object) string {
	notThis := x402.CodeOptionNotThisPairing
	if s, _ := o.GetString("scheme"); s != "exact" {
		return notThis
	}
	n, _ := o.GetString("network")
	if !strings.HasPrefix(n, "cardano:") && !strings.HasPrefix(n, "cip34:") {
		return notThis
	}
	name := NetworkName(n)
	if name == "" {
		return CodeNetworkMalformed
	}
	ev, hasExtra := o.Get("extra")
	extra, ok := jsonv.AsObject(ev)
	if hasExtra && !ok {
		return notThis
	}
	if m, has := extra.Get("assetTransferMethod"); has && m != "script" && m != "masumi" {
		return notThis
	}
	if f, has := extra.Get("paymentFlow"); has && f != "authorization" {
		return notThis
	}
	if _, ok := u64Of(mpp.String(o, "amount")); !ok {
		return notThis
	}
	if !IsAsset(mpp.String(o, "asset")) {
		return notThis
	}
	if a, err := ParseAddress(mpp.String(o, "payTo")); err != nil || a.NetworkID() != NetworkID(name) {
		return notThis
	}
	return ""
}

func serves(o *jsonv.Object) bool { return CheckOption(o) == "" }

func (Exact) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, serves) }

// Choose takes the first served option on the account's network. The
// payer's wallet builds the transaction (its outputs, the fee and the TTL
// come from the wallet's own node), so the pairing asks for no inputs.
func (Exact) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "cardano" || NetworkName(acct.Network()) != acct.Network() {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	if a, err := ParseAddress(acct.Address); err != nil || a.NetworkID() != NetworkID(acct.Network()) || a.PaymentKeyHash() == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	accepted := x402.OptionOn(read.Options, acct.Network())
	if accepted == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	return jsonv.Obj("required", read.Required, "accepted", accepted, "payer", acct.Address, "now", now), nil
}

// Validity bounds the TTL the wallet sets: the option's maxTimeoutSeconds
// when it names 1 to MaxValidity seconds, DefaultValidity when it names none.
const (
	DefaultValidity = 300
	MaxValidity     = 3600
)

func validity(accepted *jsonv.Object) (int64, bool) {
	v, has := accepted.Get("maxTimeoutSeconds")
	if !has {
		return DefaultValidity, true
	}
	n, ok := jsonv.AsSafeInt(v)
	if !ok || n < 1 {
		return 0, false
	}
	return min(n, MaxValidity), true
}

type exactUnsigned struct {
	required, accepted *jsonv.Object
	payer              Address
	payerText          string // the payer as the choice wrote it, which ParseAddress holds to its one spelling
	h                  atr.Hash
	validity           int64
	until              int64 // Unix seconds; 0 when the choice names no time
}

func (Exact) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, required, accepted, err := x402.ChosenOption(choice, serves)
	if err != nil {
		return nil, err
	}
	payer, perr := ParseAddress(mpp.String(c, "payer"))
	if perr != nil || payer.PaymentKeyHash() == nil || payer.NetworkID() != NetworkID(NetworkName(mpp.String(accepted, "network"))) {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	secs, ok := validity(accepted)
	if !ok {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	u := &exactUnsigned{required: required, accepted: accepted, payer: payer, payerText: mpp.String(c, "payer"), h: h, validity: secs}
	if nv, has := c.Get("now"); has {
		now, ok := jsonv.AsSafeInt(nv)
		if !ok || now < 0 || now > 1<<52 {
			return nil, rails.Refuse(x402.CodeChoiceMalformed)
		}
		if now > 0 {
			u.until = now + secs
		}
	}
	return u, nil
}

// KindTransaction is the signing request of a Cardano payment: {kind,
// network, payer, payTo, asset, amount, auxiliaryData, validitySeconds,
// validUntil?}. The wallet builds the transaction that moves amount of
// asset from payer to payTo, attaches auxiliaryData (hex, exactly the bytes
// AuxiliaryData writes for H) with its hash as the body's key 7, sets a TTL
// at most validitySeconds past its node's tip, signs the body and answers
// {transaction, nonce}: x402's Cardano payload, the transaction in standard
// base64 and the nonce the first input it spends (txid#index). validUntil
// (Unix seconds) is the buyer's estimate of when the TTL passes.
const KindTransaction = "cardano-transaction"

func (Exact) Request(u rails.Unsigned) (rails.Request, error) {
	return u.(*exactUnsigned).request(), nil
}

func (b *exactUnsigned) request() rails.Request {
	req := jsonv.Obj("kind", KindTransaction, "network", NetworkName(mpp.String(b.accepted, "network")), "payer", b.payerText,
		"payTo", mpp.String(b.accepted, "payTo"), "asset", mpp.String(b.accepted, "asset"), "amount", mpp.String(b.accepted, "amount"),
		"auxiliaryData", hex0x(AuxiliaryData(b.h)), "validitySeconds", jsonv.Number(b.validity))
	if b.until > 0 {
		req.Set("validUntil", jsonv.Number(b.until))
	}
	return req
}

// hex0x is 0x and b in lowercase hex, written in one allocation.
func hex0x(b []byte) string {
	const digits = "0123456789abcdef"
	var sb strings.Builder
	sb.Grow(2 + 2*len(b))
	sb.WriteString("0x")
	for _, c := range b {
		sb.WriteByte(digits[c>>4])
		sb.WriteByte(digits[c&15])
	}
	return sb.String()
}

// Complete takes the wallet's {transaction, nonce} and checks, before the
// payment leaves, what the wallet built: the message carrying the built H
// under the body's auxiliary data hash, and a TTL (x402/signed-not-bound
// otherwise), an output paying the option (cardano/transfer-mismatch), and
// a witness of the payer's payment key over the transaction id
// (cardano/signature-invalid).
func (Exact) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*exactUnsigned)
	a, ok := jsonv.AsObject(answer)
	if !ok {
		return rails.Completion{}, rails.Refuse(x402.CodePayloadMalformed)
	}
	txv, _ := a.Get("transaction")
	nv, _ := a.Get("nonce")
	payment := x402.Payment(b.required, b.accepted, jsonv.Obj("transaction", txv, "nonce", nv))
	c, err := bound(payment)
	if err != nil {
		if r, ok := err.(*rails.Refusal); ok && r.Code == x402.CodePayloadMalformed {
			return rails.Completion{}, err
		}
		return rails.Completion{}, rails.Refuse(CodeSignedNotBound)
	}
	if c.H != b.h || !c.Tx.HasTTL {
		return rails.Completion{}, rails.Refuse(CodeSignedNotBound)
	}
	if !Pays(c.Tx, b.accepted) {
		return rails.Completion{}, rails.Refuse(CodeTransferMismatch)
	}
	if !WitnessedBy(c.Tx, b.payer.PaymentKeyHash()) {
		return rails.Completion{}, rails.Refuse(CodeSignatureInvalid)
	}
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// Pays reports an output of the transaction paying exactly the option's
// amount of its asset to its payTo (and, for lovelace, no native assets).
func Pays(t *Tx, accepted *jsonv.Object) bool {
	payTo, err := ParseAddress(mpp.String(accepted, "payTo"))
	if err != nil {
		return false
	}
	amount, ok := u64Of(mpp.String(accepted, "amount"))
	if !ok {
		return false
	}
	asset := mpp.String(accepted, "asset")
	outs, err := t.Outputs()
	if err != nil {
		return false
	}
	for _, o := range outs {
		if string(o.Address) != string(payTo) {
			continue
		}
		if asset == Lovelace && o.Coin == amount && len(o.Assets) == 0 || asset != Lovelace && o.Assets[asset] == amount && len(o.Assets) == 1 {
			return true
		}
	}
	return false
}

// WitnessedBy reports a vkey witness of the key whose hash is keyHash that
// verifies over the transaction id.
func WitnessedBy(t *Tx, keyHash []byte) bool {
	for _, w := range t.VKeyWitnesses() {
		if string(KeyHash(w.VKey)) == string(keyHash) && ed25519.Verify(w.VKey, t.ID[:], w.Signature) {
			return true
		}
	}
	return false
}

// Carried is what a payment's payload carries: the transaction, its H (or
// HErr, the refusal of its message's reading), the nonce and the
// network's name.
type Carried struct {
	Tx      *Tx
	H       atr.Hash
	HErr    error
	Nonce   string
	Network string
}

// DecodeTransaction reads a payload's transaction: padded standard base64
// of at most MaxTxBytes bytes that DecodeTx reads.
func DecodeTransaction(text string) (*Tx, error) {
	if len(text) > (MaxTxBytes+2)/3*4 {
		return nil, rails.Refuse(CodeTxTooLarge)
	}
	raw, ok := stdBase64(text)
	if !ok {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	return DecodeTx(raw)
}

// stdBase64 decodes padded standard base64 and nothing else: Go's decoder
// skips newlines, which a payment's bytes must not hold.
func stdBase64(text string) ([]byte, bool) {
	if strings.ContainsAny(text, "\r\n") {
		return nil, false
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(text)
	return raw, err == nil
}

// carried reads a presented payment: x402 v2, an option this pairing
// serves (CheckOption's code otherwise), a transaction string and a nonce string of at most 256
// characters (x402/payload-malformed otherwise), a transaction that
// decodes with auxiliary data matching its key 7, and the reading of its
// message.
func carried(presented jsonv.Value) (*Carried, error) {
	accepted, payload, err := x402.Presented(presented, func(*jsonv.Object) bool { return true })
	if err != nil {
		return nil, err
	}
	if code := CheckOption(accepted); code != "" {
		return nil, rails.Refuse(code)
	}
	text, ok := payload.GetString("transaction")
	if !ok {
		return nil, rails.Refuse(x402.CodePayloadMalformed)
	}
	nonce, ok := payload.GetString("nonce")
	if !ok || len([]rune(nonce)) > MaxNonceChars || len(nonce) > 4*MaxNonceChars {
		return nil, rails.Refuse(x402.CodePayloadMalformed)
	}
	t, err := decodeCarried(text)
	if err != nil {
		return nil, err
	}
	if err := t.CheckAux(); err != nil {
		return nil, err
	}
	c := &Carried{Tx: t, Nonce: nonce, Network: NetworkName(mpp.String(accepted, "network"))}
	c.H, c.HErr = Carrier(t.Aux)
	return c, nil
}

// lastCarried is the transaction carried decoded last, by its text: the
// gate's Finish reads one payment twice, in Complete and again in Bound,
// and its decoding (base64, the strict CBOR reader, the body's Blake2b) is
// most of a read. A hit is keyed by the whole text, so it is the decoding
// of the same bytes (TestCarriedMemoAgrees); nothing writes a *Tx that
// carried returns, so one is shared safely.
var lastCarried atomic.Pointer[carriedTx]

type carriedTx struct {
	text string
	tx   *Tx
}

func decodeCarried(text string) (*Tx, error) {
	if m := lastCarried.Load(); m != nil && m.text == text {
		return m.tx, nil
	}
	t, err := DecodeTransaction(text)
	if err == nil {
		lastCarried.Store(&carriedTx{text: text, tx: t})
	}
	return t, err
}

// bound is carried's H, or why it has none.
func bound(presented jsonv.Value) (*Carried, error) {
	c, err := carried(presented)
	if err == nil && c.HErr != nil {
		err = c.HErr
	}
	return c, err
}

// Bound reads H from the CIP-20 message the signed body commits to. The
// witnesses are not verified here (the facilitator and the ledger do that).
func (Exact) Bound(presented jsonv.Value) (string, error) {
	c, err := bound(presented)
	if err != nil {
		return "", err
	}
	return c.H.String(), nil
}

// Reference is what a seller records of a claimed payment to find it: the
// network, the transaction id and the last slot it can land in.
type Reference struct {
	Network string
	TxID    string // 0x and 64 lowercase hex digits
	TTLSlot uint64
}

// PaymentReference reads a presented payment's reference, whether or not
// its message carries H; cardano/ttl-missing when the body sets no TTL.
func PaymentReference(presented jsonv.Value) (Reference, error) {
	c, err := carried(presented)
	if err != nil {
		return Reference{}, err
	}
	if !c.Tx.HasTTL {
		return Reference{}, rails.Refuse(CodeTTLMissing)
	}
	return Reference{Network: c.Network, TxID: c.Tx.IDString(), TTLSlot: c.Tx.TTL}, nil
}
