// Package sui holds the Sui pairing, x402/exact/sui, and what it needs: the
// TransactionData codec over rails/bcs, digests, addresses, the transfer
// the payer's wallet builds, and the seller's status and recovery by digest
// (docs/sui.md).
package sui

// x402/exact/sui: H goes in the payer's programmable transaction as its one
// Pure input that no command uses, exactly H's 32 bytes
// (payload.transaction, inputs[i] with no command naming Input(i)); the
// payer signs the whole TransactionData, the chain executes it unchanged,
// and H stays in the executed transaction's input list, read by its digest.

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

// Exact is the x402/exact/sui pairing.
type Exact struct{}

// ExactID is the pairing id.
const ExactID = "x402/exact/sui"

// Refusal codes of the pairing.
const (
	CodeNetworkMalformed    = "sui/network-malformed"
	CodeTxMalformed         = "sui/tx-malformed"
	CodeTxTooLarge          = "sui/tx-too-large"
	CodeNotProgrammable     = "sui/not-programmable"
	CodeHashNotCarried      = "sui/hash-not-carried"
	CodeAmbiguous           = "sui/ambiguous"
	CodeExpirationUnbounded = "sui/expiration-unbounded"
	CodeTransferMismatch    = "sui/transfer-mismatch" // the wallet's transaction does not pay what was asked
	CodeSignatureInvalid    = "sui/signature-invalid" // not an Ed25519 signature of the sender over the transaction
	CodeAddressMalformed    = "sui/address-malformed" // an account that is not 0x and 64 lowercase hex digits
	CodeSignedNotBound      = "x402/signed-not-bound"
)

// MaxSignatureChars bounds payload.signature.
const MaxSignatureChars = 8192

// SUI is the native coin's type as options write it.
const SUI = "0x2::sui::SUI"

// Networks are the Sui networks the pairing pays on.
var Networks = []string{"sui:mainnet", "sui:testnet", "sui:devnet"}

// IsNetwork reports one of Networks.
func IsNetwork(n string) bool {
	for _, m := range Networks {
		if n == m {
			return true
		}
	}
	return false
}

// ParseAddress reads 0x and 64 lowercase hex digits, as options and
// accounts write a Sui address.
func ParseAddress(s string) (Address, bool) {
	var a Address
	if len(s) != 66 || s[0] != '0' || s[1] != 'x' {
		return a, false
	}
	// Decoded in place, lowercase only: every option and choice is read
	// through here several times a payment, so it allocates nothing.
	for i := range a {
		hi, ok1 := lowerNibble(s[2+2*i])
		lo, ok2 := lowerNibble(s[3+2*i])
		if !ok1 || !ok2 {
			return Address{}, false
		}
		a[i] = hi<<4 | lo
	}
	return a, true
}

func lowerNibble(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// String is the address as 0x and 64 lowercase hex digits.
func (a Address) String() string {
	var b [66]byte
	b[0], b[1] = '0', 'x'
	hex.Encode(b[2:], a[:])
	return string(b[:])
}

// IsCoinType reports a coin type 0x<1–64 hex>::module::Name.
func IsCoinType(s string) bool {
	if len(s) > 2+64+2*2+2*MaxIdentifier {
		return false
	}
	addr, mod, name, ok := coinTypeParts(s)
	if !ok || !strings.HasPrefix(addr, "0x") {
		return false
	}
	if h := addr[2:]; h == "" || len(h) > 64 || !isHex(h) {
		return false
	}
	return isIdent(mod) && isIdent(name)
}

// coinTypeParts splits s at "::" into exactly three parts, as
// strings.Split would, without allocating the slice.
func coinTypeParts(s string) (addr, mod, name string, ok bool) {
	addr, rest, ok1 := strings.Cut(s, "::")
	mod, name, ok2 := strings.Cut(rest, "::")
	if !ok1 || !ok2 || strings.Contains(name, "::") {
		return "", "", "", false
	}
	return addr, mod, name, true
}

// IsSUI reports the native coin's type, in its short or long form.
func IsSUI(coinType string) bool {
	if !IsCoinType(coinType) || !strings.HasSuffix(coinType, "::sui::SUI") {
		return false
	}
	addr, _, _, _ := coinTypeParts(coinType)
	h := strings.TrimLeft(strings.TrimPrefix(addr, "0x"), "0")
	return h == "2"
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func isIdent(s string) bool {
	if s == "" || len(s) > MaxIdentifier {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// u64Of reads a decimal string of a u64 without leading zeros.
func u64Of(v jsonv.Value) (uint64, bool) {
	s, ok := v.(string)
	if !ok || s == "" || len(s) > 20 || len(s) > 1 && s[0] == '0' || !rails.IsDecimal(s) {
		return 0, false
	}
	u, err := strconv.ParseUint(s, 10, 64)
	return u, err == nil
}

func (Exact) ID() string { return ExactID }

func (Exact) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

// CheckOption is "" for an option the pairing pays, or the code saying why
// not: x402/option-not-this-pairing for one that is not exact on a sui:
// network, has an assetTransferMethod or a paymentFlow other than
// authorization, or whose payTo, asset (a coin type) or amount (a u64) do
// not read; sui/network-malformed for a sui: network other than mainnet,
// testnet and devnet.
func CheckOption(o *jsonv.Object) string {
	notThis := x402.CodeOptionNotThisPairing
	if s, _ := o.GetString("scheme"); s != "exact" {
		return notThis
	}
	n, _ := o.GetString("network")
	if !strings.HasPrefix(n, "sui:") {
		return notThis
	}
	if !IsNetwork(n) {
		return CodeNetworkMalformed
	}
	ev, hasExtra := o.Get("extra")
	extra, ok := jsonv.AsObject(ev)
	if hasExtra && !ok {
		return notThis
	}
	if extra.Has("assetTransferMethod") {
		return notThis
	}
	if f, has := extra.Get("paymentFlow"); has && f != "authorization" {
		return notThis
	}
	if _, ok := ParseAddress(mpp.String(o, "payTo")); !ok {
		return notThis
	}
	if !IsCoinType(mpp.String(o, "asset")) {
		return notThis
	}
	if a, _ := o.Get("amount"); !okU64(a) {
		return notThis
	}
	return ""
}

func okU64(v jsonv.Value) bool { _, ok := u64Of(v); return ok }

func serves(o *jsonv.Object) bool { return CheckOption(o) == "" }

func (Exact) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, serves) }

// Choose takes the first served option on the account's network. The
// payer's wallet builds the transaction (gas coins, gas price and the epoch
// come from the wallet's own node), so the pairing asks for no inputs.
func (Exact) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "sui" {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	if _, ok := ParseAddress(acct.Address); !ok {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	accepted := x402.OptionOn(read.Options, acct.Network())
	if accepted == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	return jsonv.Obj("required", read.Required, "accepted", accepted, "payer", acct.Address, "now", now), nil
}

// EpochSeconds is how long a Sui epoch lasts, about a day on mainnet and
// testnet. The wallet bounds its transaction by the epoch after the current
// one, so the signature is worthless at most two epochs after it is made:
// the request's validUntil, now + 2 epochs, is the buyer's estimate the
// spend policy reads (the chain's bound is the epoch, not a time).
const EpochSeconds = 24 * 3600

type exactUnsigned struct {
	required, accepted *jsonv.Object
	payer              Address
	h                  atr.Hash
	until              int64 // Unix seconds; 0 when the choice names no time
}

func (Exact) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, required, accepted, err := x402.ChosenOption(choice, serves)
	if err != nil {
		return nil, err
	}
	payer, ok := ParseAddress(mpp.String(c, "payer"))
	if !ok {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	u := &exactUnsigned{required: required, accepted: accepted, payer: payer, h: h}
	if nv, has := c.Get("now"); has {
		now, ok := jsonv.AsSafeInt(nv)
		if !ok || now < 0 || now > 1<<52 {
			return nil, rails.Refuse(x402.CodeChoiceMalformed)
		}
		if now > 0 {
			u.until = now + 2*EpochSeconds
		}
	}
	return u, nil
}

// KindTransaction is the signing request of a Sui payment: {kind, network,
// sender, asset, amount, payTo, pureInput, expiration, validUntil?}. The wallet builds
// the programmable transaction that moves amount of the coin type asset
// from sender to payTo, adds pureInput (0x hex of H's 32 bytes) as one Pure
// input no command uses, bounds the expiration by epoch ("epoch-bounded"),
// and answers {signature, transaction}: x402's Sui payload, both standard
// base64 (the signature Sui's serialized form, flag, signature, key).
// validUntil (Unix seconds) is the buyer's estimate of when the epoch bound
// will have passed (EpochSeconds).
const KindTransaction = "sui-transaction"

func (Exact) Request(u rails.Unsigned) (rails.Request, error) {
	return u.(*exactUnsigned).request(), nil
}

func (Exact) request(b *exactUnsigned) (rails.Request, error) {
	// The option's strings are passed as the values already held (Serves
	// checked each is a string), not read out and boxed again.
	return jsonv.Obj("kind", KindTransaction, "network", optionString(b.accepted, "network"), "sender", b.payer.String(),
		"asset", optionString(b.accepted, "asset"), "amount", optionString(b.accepted, "amount"),
		"payTo", optionString(b.accepted, "payTo"), "pureInput", Address(b.h).String(),
		"expiration", "epoch-bounded"), nil
}

// optionString is o's member k when it is a string, else "".
func optionString(o *jsonv.Object, k string) jsonv.Value {
	if v, ok := o.Get(k); ok {
		if _, ok := v.(string); ok {
			return v
		}
	}
	return ""
}

// request is the built request, with validUntil when the choice named a time.
func (b *exactUnsigned) request() rails.Request {
	req, _ := Exact{}.request(b)
	if b.until > 0 {
		req.Set("validUntil", jsonv.Number(b.until))
	}
	return req
}

// Complete takes the wallet's {signature, transaction} and checks, before
// the payment leaves, what the wallet built: H as its one unused Pure input
// and an epoch bound (x402/signed-not-bound otherwise), the sender the
// payer and the transfer the one asked for (sui/transfer-mismatch), and an
// Ed25519 signature of the sender's key over the transaction
// (sui/signature-invalid).
func (Exact) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*exactUnsigned)
	a, ok := jsonv.AsObject(answer)
	if !ok {
		return rails.Completion{}, rails.Refuse(x402.CodePayloadMalformed)
	}
	sig, _ := a.Get("signature")
	txv, _ := a.Get("transaction")
	payload := jsonv.Obj("signature", sig, "transaction", txv)
	payment := x402.Payment(b.required, b.accepted, payload)
	c, err := carried(payment)
	if err != nil {
		var r *rails.Refusal
		if rr, ok := err.(*rails.Refusal); ok {
			r = rr
		}
		if r != nil && (r.Code == x402.CodeSignatureMalformed || r.Code == x402.CodePayloadMalformed) {
			return rails.Completion{}, err
		}
		return rails.Completion{}, rails.Refuse(CodeSignedNotBound)
	}
	if c.H != b.h {
		return rails.Completion{}, rails.Refuse(CodeSignedNotBound)
	}
	if _, ok := c.Tx.UntilEpoch(); !ok {
		return rails.Completion{}, rails.Refuse(CodeSignedNotBound)
	}
	if c.Tx.Sender != b.payer || !Pays(c.Tx, b.accepted) {
		return rails.Completion{}, rails.Refuse(CodeTransferMismatch)
	}
	if !VerifySignature(c.Signature, c.Raw, c.Tx.Sender) {
		return rails.Completion{}, rails.Refuse(CodeSignatureInvalid)
	}
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// VerifySignature checks Sui's serialized signature sig (base64 of flag
// 0x00, 64 bytes of Ed25519 signature, 32 bytes of key): the key is the
// sender's and it signed the transaction's intent message.
func VerifySignature(sig string, tx []byte, sender Address) bool {
	raw, ok := StdBase64(sig)
	if !ok || len(raw) != 1+ed25519.SignatureSize+ed25519.PublicKeySize || raw[0] != 0 {
		return false
	}
	pub := raw[1+ed25519.SignatureSize:]
	if AddressOfEd25519(pub) != sender {
		return false
	}
	m := IntentMessage(tx)
	return ed25519.Verify(pub, m[:], raw[1:1+ed25519.SignatureSize])
}

// Carried is what a payment's payload carries: the transaction as decoded
// and as sent, its digest, the H of its one unused Pure input, and the
// signature as written.
type Carried struct {
	Tx        *Tx
	Raw       []byte
	Digest    string // set by PaymentReference only: Complete and Bound need no digest
	H         atr.Hash
	Signature string
	Network   string
}

// DecodeTransaction reads a payload's transaction: padded standard base64
// of at most MaxTxBytes bytes of canonical TransactionData of a
// programmable kind.
func DecodeTransaction(text string) (*Tx, []byte, error) {
	if len(text) > (MaxTxBytes+2)/3*4 {
		return nil, nil, rails.Refuse(CodeTxTooLarge)
	}
	raw, ok := StdBase64(text)
	if !ok {
		return nil, nil, rails.Refuse(CodeTxMalformed)
	}
	if len(raw) > MaxTxBytes {
		return nil, nil, rails.Refuse(CodeTxTooLarge)
	}
	t, err := DecodeTx(raw)
	if err == ErrNotProgrammable {
		return nil, nil, rails.Refuse(CodeNotProgrammable)
	}
	if err != nil {
		return nil, nil, rails.Refuse(CodeTxMalformed)
	}
	return t, raw, nil
}

// StdBase64 decodes padded standard base64 and nothing else: Go's decoder
// skips newlines, which a payment's bytes must not hold.
func StdBase64(text string) ([]byte, bool) {
	for i := 0; i < len(text); i++ {
		if c := text[i]; c == '\n' || c == '\r' {
			return nil, false
		}
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(text)
	return raw, err == nil
}

// CarriedH is the hash of a transaction's one unused Pure input:
// sui/hash-not-carried when there is none or it is not 32 bytes,
// sui/ambiguous when there are several.
func CarriedH(t *Tx) (atr.Hash, error) {
	un := t.UnusedPure()
	switch {
	case len(un) == 0:
		return atr.Hash{}, rails.Refuse(CodeHashNotCarried)
	case len(un) > 1:
		return atr.Hash{}, rails.Refuse(CodeAmbiguous)
	}
	p := t.Inputs[un[0]].Pure
	if len(p) != 32 {
		return atr.Hash{}, rails.Refuse(CodeHashNotCarried)
	}
	return atr.Hash(p), nil
}

// carried reads a presented payment: x402 v2, an option this pairing
// serves, a signature string of 1 to 8192 characters, a transaction string
// that decodes, and its carried H.
func carried(presented jsonv.Value) (*Carried, error) {
	accepted, payload, err := x402.Presented(presented, serves)
	if err != nil {
		return nil, err
	}
	sig, ok := payload.GetString("signature")
	if !ok || sig == "" || len(sig) > MaxSignatureChars {
		return nil, rails.Refuse(x402.CodeSignatureMalformed)
	}
	text, ok := payload.GetString("transaction")
	if !ok {
		return nil, rails.Refuse(x402.CodePayloadMalformed)
	}
	t, raw, err := DecodeTransaction(text)
	if err != nil {
		return nil, err
	}
	h, err := CarriedH(t)
	if err != nil {
		return nil, err
	}
	return &Carried{Tx: t, Raw: raw, H: h, Signature: sig, Network: mpp.String(accepted, "network")}, nil
}

// Bound reads H from the transaction's one unused Pure input. The
// signature is not verified here (the facilitator and the chain do that).
func (Exact) Bound(presented jsonv.Value) (string, error) {
	c, err := carried(presented)
	if err != nil {
		return "", err
	}
	return c.H.String(), nil
}

// Reference is what a seller records of a claimed payment to find it: the
// network, the digest and the last epoch it can execute in.
type Reference struct {
	Network    string
	Digest     string
	UntilEpoch uint64
}

// PaymentReference reads a presented payment's reference;
// sui/expiration-unbounded when the transaction sets no epoch bound.
func PaymentReference(presented jsonv.Value) (Reference, error) {
	c, err := carried(presented)
	if err != nil {
		return Reference{}, err
	}
	until, ok := c.Tx.UntilEpoch()
	if !ok {
		return Reference{}, rails.Refuse(CodeExpirationUnbounded)
	}
	c.Digest = DigestString(c.Raw)
	return Reference{Network: c.Network, Digest: c.Digest, UntilEpoch: until}, nil
}
