package aptos

// x402/exact/aptos: H goes in the challenge only (the document's
// extensions.legalContext, echoed in the payment). The payer signs a
// 0x1::primary_fungible_store::transfer<0x1::fungible_asset::Metadata>
// that has no field for H, so the payment is no public proof of the terms
// and the gate runs the agreement exchange first (docs/aptos.md).

import (
	"crypto/ed25519"
	"crypto/sha3"
	"encoding/base64"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/bcs"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

// Exact is the x402/exact/aptos pairing.
type Exact struct{}

// ExactID is the pairing id.
const ExactID = "x402/exact/aptos"

// Refusal codes of the pairing.
const (
	CodeNetworkMalformed  = "aptos/network-malformed"
	CodeTxMalformed       = "aptos/tx-malformed"
	CodeNotEntryFunction  = "aptos/not-entry-function"
	CodeNotX402Transfer   = "aptos/not-an-x402-transfer"
	CodeChainMismatch     = "aptos/chain-mismatch"
	CodeTransferMismatch  = "aptos/transfer-mismatch"  // the wallet's transaction does not pay what was asked
	CodeSignatureInvalid  = "aptos/signature-invalid"  // not the sender's Ed25519 signature over the transaction
	CodeAuthenticatorKind = "aptos/authenticator-kind" // an authenticator other than a single Ed25519 key
	CodeSignedNotBound    = "x402/signed-not-bound"
)

// MaxPayloadChars bounds payload.transaction: the x402 form writes each
// byte as a JSON number, up to four characters, then base64.
const MaxPayloadChars = (MaxTxBytes*4+256+2)/3*4 + 4

var _ rails.Pairing = Exact{}

// ChainID reads an aptos: network's chain id, 1 to 255 without a leading
// zero; false for anything else.
func ChainID(network string) (uint8, bool) {
	ref, ok := strings.CutPrefix(network, "aptos:")
	if !ok || ref == "" || len(ref) > 3 || ref[0] == '0' {
		return 0, false
	}
	n, err := strconv.Atoi(ref)
	if err != nil || n < 1 || n > 255 || strconv.Itoa(n) != ref {
		return 0, false
	}
	return uint8(n), true
}

// CheckOption is "" for an option the pairing pays, or why not:
// x402/option-not-this-pairing for one that is not exact on an aptos:
// network or whose payTo, asset (long addresses) or amount (a u64) do not
// read; aptos/network-malformed for an aptos: network whose chain id is not
// 1 to 255 without a leading zero.
func CheckOption(o *jsonv.Object) string {
	notThis := x402.CodeOptionNotThisPairing
	if s, _ := o.GetString("scheme"); s != "exact" {
		return notThis
	}
	n, _ := o.GetString("network")
	if !strings.HasPrefix(n, "aptos:") {
		return notThis
	}
	if _, ok := ChainID(n); !ok {
		return CodeNetworkMalformed
	}
	if _, ok := longAddress(mpp.String(o, "payTo")); !ok {
		return notThis
	}
	if _, ok := longAddress(mpp.String(o, "asset")); !ok {
		return notThis
	}
	if a, _ := o.Get("amount"); !okU64(a) {
		return notThis
	}
	return ""
}

// longAddress reads 0x and 64 lowercase hex digits.
func longAddress(s string) (Address, bool) {
	if len(s) != 66 {
		return Address{}, false
	}
	return ParseAddress(s)
}

func okU64(v jsonv.Value) bool { _, ok := u64Of(v); return ok }

func serves(o *jsonv.Object) bool { return CheckOption(o) == "" }

func (Exact) ID() string { return ExactID }

func (Exact) Pattern() rails.Pattern {
	return rails.Pattern{Name: "opaque-challenge", PublicProof: false}
}

func (Exact) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, serves) }

// Choose takes the first served option on the account's network. The
// payer's wallet builds the transaction (sequence number, gas price and
// chain id from its own node), so the pairing asks for no inputs.
func (Exact) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "aptos" {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	if _, ok := longAddress(acct.Address); !ok {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	accepted := x402.OptionOn(read.Options, acct.Network())
	if accepted == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	return jsonv.Obj("required", read.Required, "accepted", accepted, "payer", acct.Address, "now", now), nil
}

// DefaultTimeoutSeconds bounds the transaction when the option names no
// maxTimeoutSeconds.
const DefaultTimeoutSeconds = 60

type exactUnsigned struct {
	required, accepted *jsonv.Object
	payer              Address
	expiresAt          int64 // Unix seconds
}

// Build bounds the transaction by now + the option's maxTimeoutSeconds (60
// when it names none); a choice without a time is x402/choice-malformed,
// as a transaction without a bound is not signed.
func (Exact) Build(choice jsonv.Value, _ []byte, _ atr.Hash) (rails.Unsigned, error) {
	c, required, accepted, err := x402.ChosenOption(choice, serves)
	if err != nil {
		return nil, err
	}
	payer, ok := longAddress(mpp.String(c, "payer"))
	now, okN := jsonv.AsSafeInt(valueOf(c, "now"))
	if !ok || !okN || now <= 0 || now > 1<<40 {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	timeout := int64(DefaultTimeoutSeconds)
	if v, has := accepted.Get("maxTimeoutSeconds"); has {
		n, ok := jsonv.AsSafeInt(v)
		if !ok || n <= 0 || n > 7*24*3600 {
			return nil, rails.Refuse(x402.CodeChoiceMalformed)
		}
		timeout = n
	}
	return &exactUnsigned{required: required, accepted: accepted, payer: payer, expiresAt: now + timeout}, nil
}

// KindTransaction is the signing request of an Aptos payment: {kind,
// network, sender, asset, amount, payTo, expiresAt}. The wallet builds the
// x402 transfer of amount of the fungible asset whose metadata is asset
// from sender to payTo, with an expiration of at most expiresAt (Unix
// seconds) and the network's chain id, signs it with the sender's Ed25519
// key and answers {transaction}: x402's Aptos payload (standard base64 of
// {transaction, senderAuthenticator}, each a list of byte values).
const KindTransaction = "aptos-transaction"

func (Exact) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*exactUnsigned)
	return jsonv.Obj("kind", KindTransaction, "network", mpp.String(b.accepted, "network"), "sender", b.payer.String(),
		"asset", mpp.String(b.accepted, "asset"), "amount", mpp.String(b.accepted, "amount"),
		"payTo", mpp.String(b.accepted, "payTo"), "expiresAt", jsonv.Number(b.expiresAt)), nil
}

// Complete takes the wallet's {transaction} and checks, before the payment
// leaves, what the wallet built: a payload whose reference reads
// (x402/signed-not-bound otherwise), the sender the payer, the transfer the
// one asked for and an expiration within the request's
// (aptos/transfer-mismatch), and the sender's Ed25519 signature over it
// (aptos/signature-invalid).
func (Exact) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*exactUnsigned)
	a, ok := jsonv.AsObject(answer)
	if !ok {
		return rails.Completion{}, rails.Refuse(x402.CodePayloadMalformed)
	}
	txv, _ := a.Get("transaction")
	if _, ok := txv.(string); !ok {
		return rails.Completion{}, rails.Refuse(x402.CodePayloadMalformed)
	}
	payment := x402.Payment(b.required, b.accepted, jsonv.Obj("transaction", txv))
	s, err := carried(payment)
	if err != nil {
		return rails.Completion{}, rails.Refuse(CodeSignedNotBound)
	}
	if err := s.checkReference(); err != nil {
		return rails.Completion{}, rails.Refuse(CodeSignedNotBound)
	}
	tr, _ := s.Tx.ReadTransfer()
	if s.Tx.Sender != b.payer || !pays(tr, b.accepted) || s.Tx.Expiration > uint64(b.expiresAt) {
		return rails.Completion{}, rails.Refuse(CodeTransferMismatch)
	}
	if !s.Verifies() {
		return rails.Completion{}, rails.Refuse(CodeSignatureInvalid)
	}
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// pays reports a transfer of the option's amount of its asset to its payTo.
func pays(tr Transfer, accepted *jsonv.Object) bool {
	asset, _ := longAddress(mpp.String(accepted, "asset"))
	payTo, _ := longAddress(mpp.String(accepted, "payTo"))
	amount, ok := u64Of(valueOf(accepted, "amount"))
	return ok && tr.Metadata == asset && tr.Recipient == payTo && tr.Amount == amount
}

// Signed is a payload's transaction as read: the raw transaction and its
// bytes, the fee payer when the x402 form names one, and the sender's
// Ed25519 key and signature.
type Signed struct {
	Tx        *RawTransaction
	Raw       []byte
	FeePayer  *Address
	PublicKey ed25519.PublicKey
	Signature []byte
	Network   string
}

// Signing messages' prefixes: SHA3-256 of the type's name.
var (
	prefixRaw         = sha3.Sum256([]byte("APTOS::RawTransaction"))
	prefixRawWithData = sha3.Sum256([]byte("APTOS::RawTransactionWithData"))
)

// SigningMessage is what the sender signs: the prefix of RawTransaction
// and its bytes, or, with a fee payer, the prefix of RawTransactionWithData
// and its fee-payer variant (1) over the bytes, no secondary signers and
// the fee payer's address.
func SigningMessage(raw []byte, feePayer *Address) []byte {
	if feePayer == nil {
		return append(prefixRaw[:len(prefixRaw):len(prefixRaw)], raw...)
	}
	m := append(prefixRawWithData[:len(prefixRawWithData):len(prefixRawWithData)], 1)
	m = append(m, raw...)
	m = append(m, 0)
	return append(m, feePayer[:]...)
}

// AddressOfEd25519 is the address of a single Ed25519 key: SHA3-256 of the
// key and the scheme byte 0.
func AddressOfEd25519(pub ed25519.PublicKey) Address {
	return Address(sha3.Sum256(append(append([]byte{}, pub...), 0)))
}

// Verifies reports that the key is the sender's (its address is the
// sender, as for an account whose key was never rotated) and signed the
// transaction's signing message.
func (s *Signed) Verifies() bool {
	return s.SignatureVerifies() && AddressOfEd25519(s.PublicKey) == s.Tx.Sender
}

// SignatureVerifies reports that the authenticator's key signed the
// transaction's signing message, whoever's key it is.
func (s *Signed) SignatureVerifies() bool {
	return len(s.PublicKey) == ed25519.PublicKeySize && ed25519.Verify(s.PublicKey, SigningMessage(s.Raw, s.FeePayer), s.Signature)
}

// Ed25519Authenticator writes the BCS authenticator of a single Ed25519
// key (variant 0, the key and the signature, each with its length).
func Ed25519Authenticator(pub ed25519.PublicKey, sig []byte) []byte {
	w := &bcs.Writer{B: make([]byte, 0, 99)}
	w.ULEB128(0)
	w.Bytes(pub)
	w.Bytes(sig)
	return w.B
}

// readEd25519 reads an Ed25519 authenticator from r.
func readEd25519(r *bcs.Reader) (ed25519.PublicKey, []byte, error) {
	v := r.ULEB128()
	if r.Err() != nil {
		return nil, nil, rails.Refuse(CodeTxMalformed)
	}
	if v != 0 {
		return nil, nil, rails.Refuse(CodeAuthenticatorKind)
	}
	pub := r.Bytes(64)
	sig := r.Bytes(128)
	if r.Err() != nil || len(pub) != ed25519.PublicKeySize || len(sig) != ed25519.SignatureSize {
		return nil, nil, rails.Refuse(CodeTxMalformed)
	}
	return ed25519.PublicKey(pub), sig, nil
}

func txRefusal(err error) error {
	if err == ErrNotEntryFunction {
		return rails.Refuse(CodeNotEntryFunction)
	}
	return rails.Refuse(CodeTxMalformed)
}

// X402Payload writes x402's form of a signed transaction: standard base64
// of {transaction, senderAuthenticator}, the transaction's bytes followed
// by its fee payer option (none here).
func X402Payload(raw, authenticator []byte) string {
	j := make([]byte, 0, 4*(len(raw)+len(authenticator))+48)
	j = append(j, `{"transaction":`...)
	j = appendByteList(j, raw, true)
	j = append(j, `,"senderAuthenticator":`...)
	j = appendByteList(j, authenticator, false)
	j = append(j, '}')
	return base64.StdEncoding.EncodeToString(j)
}

func appendByteList(j, b []byte, noFeePayer bool) []byte {
	j = append(j, '[')
	for i, c := range b {
		if i > 0 {
			j = append(j, ',')
		}
		switch {
		case c >= 100:
			j = append(j, '0'+c/100, '0'+c/10%10, '0'+c%10)
		case c >= 10:
			j = append(j, '0'+c/10, '0'+c%10)
		default:
			j = append(j, '0'+c)
		}
	}
	if noFeePayer {
		if len(b) > 0 {
			j = append(j, ',')
		}
		j = append(j, '0')
	}
	return append(j, ']')
}

// jsonScan reads x402's payload form strictly: one object of exactly the
// members transaction and senderAuthenticator (in either order, once
// each), each a list of byte values written as JSON integers 0 to 255
// without leading zeros, JSON whitespace between tokens, nothing after.
type jsonScan struct {
	b []byte
	i int
}

func (s *jsonScan) ws() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *jsonScan) eat(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *jsonScan) key() (string, bool) {
	if !s.eat('"') {
		return "", false
	}
	start := s.i
	for s.i < len(s.b) && s.b[s.i] != '"' && s.b[s.i] != '\\' && s.b[s.i] >= 0x20 {
		s.i++
	}
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return "", false
	}
	k := string(s.b[start:s.i])
	s.i++
	return k, s.eat(':')
}

func (s *jsonScan) list(max int) ([]byte, bool) {
	if !s.eat('[') {
		return nil, false
	}
	out := make([]byte, 0, 320)
	if s.eat(']') {
		return out, true
	}
	for {
		if s.i < len(s.b) && (s.b[s.i] < '0' || s.b[s.i] > '9') {
			s.ws()
		}
		start, n := s.i, 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' && s.i-start < 4 {
			n = n*10 + int(s.b[s.i]-'0')
			s.i++
		}
		d := s.i - start
		if d == 0 || d > 1 && s.b[start] == '0' || n > 255 || len(out) == max {
			return nil, false
		}
		out = append(out, byte(n))
		// the form as written has no whitespace: a comma right after the
		// value is taken without eat's skipping, which is most of a scan
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
			continue
		}
		if s.eat(']') {
			return out, true
		}
		if !s.eat(',') {
			return nil, false
		}
	}
}

// scanX402Form reads the form's two lists; false for anything else.
func scanX402Form(b []byte) (simple, auth []byte, ok bool) {
	s := &jsonScan{b: b}
	if !s.eat('{') {
		return nil, nil, false
	}
	for i := range 2 {
		k, okK := s.key()
		if !okK {
			return nil, nil, false
		}
		switch {
		case k == "transaction" && simple == nil:
			simple, okK = s.list(MaxTxBytes + 33)
		case k == "senderAuthenticator" && auth == nil:
			auth, okK = s.list(256)
		default:
			okK = false
		}
		if !okK || i == 0 && !s.eat(',') {
			return nil, nil, false
		}
	}
	if !s.eat('}') {
		return nil, nil, false
	}
	s.ws()
	return simple, auth, s.i == len(s.b)
}

// DecodePayload reads payload.transaction: padded standard base64 of
// either x402's JSON form {transaction, senderAuthenticator} (the
// transaction a RawTransaction and its fee payer option) or a raw BCS
// SignedTransaction (a RawTransaction and a single Ed25519 authenticator).
// The transaction is an entry function (aptos/not-entry-function); any
// other misreading is aptos/tx-malformed.
func DecodePayload(text string) (*Signed, error) {
	if len(text) > MaxPayloadChars {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	b, ok := stdBase64(text)
	if !ok || len(b) == 0 {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	if b[0] == '{' {
		if simple, auth, ok := scanX402Form(b); ok {
			return decodeX402Form(simple, auth)
		}
	}
	return DecodeSignedTransaction(b)
}

// DecodeSignedTransaction reads a BCS SignedTransaction: a RawTransaction
// and a single Ed25519 authenticator (aptos/authenticator-kind for any
// other), nothing after.
func DecodeSignedTransaction(b []byte) (*Signed, error) {
	if len(b) > MaxTxBytes+128 {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	t, n, err := decodeRawPrefix(b)
	if err != nil {
		return nil, txRefusal(err)
	}
	r := bcs.NewReader(b[n:])
	pub, sig, err := readEd25519(r)
	if err != nil {
		return nil, err
	}
	if r.Done() != nil {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	return &Signed{Tx: t, Raw: b[:n], PublicKey: pub, Signature: sig}, nil
}

// SignedTransaction writes the BCS SignedTransaction a node accepts: the
// raw transaction and the sender's Ed25519 authenticator (a transaction
// with a fee payer is the fee payer's to submit and is not written here).
func (s *Signed) SignedTransaction() ([]byte, bool) {
	if s.FeePayer != nil {
		return nil, false
	}
	return append(append([]byte{}, s.Raw...), Ed25519Authenticator(s.PublicKey, s.Signature)...), true
}

var prefixTransaction = sha3.Sum256([]byte("APTOS::Transaction"))

// TransactionHash is the committed hash of a user transaction: SHA3-256 of
// the Transaction prefix, the user-transaction variant (0) and the
// SignedTransaction's bytes.
func TransactionHash(signed []byte) [32]byte {
	m := append(append(prefixTransaction[:len(prefixTransaction):len(prefixTransaction)], 0), signed...)
	return sha3.Sum256(m)
}

func decodeX402Form(simple, auth []byte) (*Signed, error) {
	t, n, err := decodeRawPrefix(simple)
	if err != nil {
		return nil, txRefusal(err)
	}
	s := &Signed{Tx: t, Raw: simple[:n]}
	r := bcs.NewReader(simple[n:])
	if r.Option() {
		if b := r.Fixed(32); r.Err() == nil {
			fp := Address(b)
			s.FeePayer = &fp
		}
	}
	if r.Done() != nil {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	ar := bcs.NewReader(auth)
	if s.PublicKey, s.Signature, err = readEd25519(ar); err != nil {
		return nil, err
	}
	if ar.Done() != nil {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	return s, nil
}

// stdBase64 decodes padded standard base64 and nothing else (Go's decoder
// skips newlines, which a payment's bytes must not hold).
func stdBase64(text string) ([]byte, bool) {
	if strings.IndexByte(text, '\r') >= 0 || strings.IndexByte(text, '\n') >= 0 {
		return nil, false
	}
	b, err := base64.StdEncoding.Strict().DecodeString(text)
	return b, err == nil
}

// carried reads a presented payment: x402 v2, an option this pairing
// serves, and a payload.transaction string (x402/payload-malformed) that
// decodes.
func carried(presented jsonv.Value) (*Signed, error) {
	accepted, payload, err := x402.Presented(presented, serves)
	if err != nil {
		return nil, err
	}
	text, ok := payload.GetString("transaction")
	if !ok {
		return nil, rails.Refuse(x402.CodePayloadMalformed)
	}
	d, err := decodeCarried(text)
	if err != nil {
		return nil, err
	}
	s := *d
	s.Network = mpp.String(accepted, "network")
	return &s, nil
}

// lastCarried is the payload carried decoded last, by its text: the gate's
// Finish reads one payment twice, in Complete and again in Bound, and its
// decoding (base64, the form's two byte lists, the BCS) is most of a read.
// A hit is keyed by the whole text, so it is the decoding of the same bytes
// (TestCarriedMemoAgrees); carried hands out a copy, and nothing writes
// the transaction it points to.
var lastCarried atomic.Pointer[carriedPayload]

type carriedPayload struct {
	text   string
	signed *Signed
}

func decodeCarried(text string) (*Signed, error) {
	if m := lastCarried.Load(); m != nil && m.text == text {
		return m.signed, nil
	}
	s, err := DecodePayload(text)
	if err == nil {
		lastCarried.Store(&carriedPayload{text: text, signed: s})
	}
	return s, err
}

// reference is the payment's reference: the transaction's chain id must be
// the option network's (aptos/chain-mismatch) and its call the x402
// transfer (aptos/not-an-x402-transfer).
func (s *Signed) reference() (Reference, error) {
	if err := s.checkReference(); err != nil {
		return Reference{}, err
	}
	tr, _ := s.Tx.ReadTransfer()
	return Reference{Network: s.Network, Sender: s.Tx.Sender, Sequence: s.Tx.SequenceNumber, ExpiresAt: s.Tx.Expiration,
		IDDigest: IDDigest(NormalForm(s.Tx.Sender, s.Tx.SequenceNumber, tr))}, nil
}

// checkReference is reference's refusal without the reference: Complete
// and Bound ask only whether one reads, and its id digest is a canonical
// JSON and a SHA-256.
func (s *Signed) checkReference() error {
	chain, _ := ChainID(s.Network)
	if s.Tx.ChainID != chain {
		return rails.Refuse(CodeChainMismatch)
	}
	if _, err := s.Tx.ReadTransfer(); err != nil {
		return rails.Refuse(CodeNotX402Transfer)
	}
	return nil
}

// PaymentReference reads a presented payment's reference: {network,
// sender, sequenceNumber, expiresAt, idDigest}, what PaymentStatus finds
// the payment by. The signature is not verified here.
func PaymentReference(presented jsonv.Value) (Reference, error) {
	s, err := carried(presented)
	if err != nil {
		return Reference{}, err
	}
	return s.reference()
}

// Bound reads H back from the echoed extensions.legalContext
// (x402/no-legal-context without it), once the payment's transaction reads
// and names a reference. The transaction carries no H.
func (Exact) Bound(presented jsonv.Value) (string, error) {
	s, err := carried(presented)
	if err != nil {
		return "", err
	}
	if err := s.checkReference(); err != nil {
		return "", err
	}
	o, _ := jsonv.AsObject(presented)
	return x402.EchoedLegalContext(o)
}

func valueOf(o *jsonv.Object, k string) jsonv.Value { v, _ := o.Get(k); return v }
