// Package near holds the NEAR pairing, x402/exact/near, and what it needs:
// a strict borsh codec of NEP-366 delegate actions, keys, the NEP-461
// signing hash, and the seller's status and recovery from the relayed
// transaction (docs/near.md).
package near

// x402/exact/near: H goes in the memo argument of the one NEP-141
// ft_transfer the payer's NEP-366 delegate action calls, as its LCP string
// "lcp:sha256:0x…" (payload.signedDelegateAction, actions[0].FunctionCall
// .args.memo); the payer signs the delegate action, and the arguments are
// on chain in the relayed call.

import (
	"crypto/ed25519"
	"encoding/base64"
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

// Exact is the x402/exact/near pairing.
type Exact struct{}

// ExactID is the pairing id.
const ExactID = "x402/exact/near"

// Refusal codes of the pairing.
const (
	CodeNetworkMalformed = "near/network-malformed"
	CodeOptionMalformed  = "near/option-malformed"
	CodeSDAMalformed     = "near/sda-malformed"
	CodeSDATooLarge      = "near/sda-too-large"
	CodeActions          = "near/actions"
	CodeNotFTTransfer    = "near/not-ft-transfer"
	CodeArgsMalformed    = "near/args-malformed"
	CodeMemoMissing      = "near/memo-missing"
	CodeMemoNotLCP       = "near/memo-not-lcp"
	CodeSignatureInvalid = "near/signature-invalid" // not the action's key's Ed25519 signature over its hash
)

// MaxSDAChars bounds payload.signedDelegateAction.
const MaxSDAChars = 8192

var u128Limit = new(big.Int).Lsh(big.NewInt(1), 128)

func (Exact) ID() string { return ExactID }

func (Exact) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

// IsNetwork reports near:mainnet or near:testnet.
func IsNetwork(n string) bool { return n == "near:mainnet" || n == "near:testnet" }

func amountOf(v jsonv.Value) (*big.Int, bool) {
	s, ok := v.(string)
	if !ok || s == "" || len(s) > 39 || len(s) > 1 && s[0] == '0' || !rails.IsDecimal(s) {
		return nil, false
	}
	n, _ := new(big.Int).SetString(s, 10)
	return n, n.Cmp(u128Limit) < 0
}

// CheckOption is "" for an option the pairing pays, or the code saying why
// not, in the reference gates' order: not exact on a near: network, an
// assetTransferMethod or a paymentFlow other than authorization
// (x402/option-not-this-pairing); extra not an object, an asset or payTo
// that is no account id, an amount that is no u128, a maxTimeoutSeconds
// below 1 (near/option-malformed); a network other than mainnet and
// testnet (near/network-malformed).
func CheckOption(o *jsonv.Object) string {
	notThis := x402.CodeOptionNotThisPairing
	if s, _ := o.GetString("scheme"); s != "exact" {
		return notThis
	}
	n, _ := o.GetString("network")
	if !strings.HasPrefix(n, "near:") {
		return notThis
	}
	ev, hasExtra := o.Get("extra")
	extra, ok := jsonv.AsObject(ev)
	if hasExtra && !ok {
		return CodeOptionMalformed
	}
	if extra.Has("assetTransferMethod") {
		return notThis
	}
	if f, has := extra.Get("paymentFlow"); has && f != "authorization" {
		return notThis
	}
	if !IsNetwork(n) {
		return CodeNetworkMalformed
	}
	a, _ := o.Get("amount")
	mt, _ := o.Get("maxTimeoutSeconds")
	t, okT := jsonv.AsSafeInt(mt)
	if _, ok := amountOf(a); !ok || !IsAccountID(mpp.String(o, "asset")) || !IsAccountID(mpp.String(o, "payTo")) || !okT || t < 1 {
		return CodeOptionMalformed
	}
	return ""
}

func serves(o *jsonv.Object) bool { return CheckOption(o) == "" }

func (Exact) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, serves) }

func u64Of(s string) (uint64, bool) {
	if s == "" || len(s) > 20 || len(s) > 1 && s[0] == '0' || !rails.IsDecimal(s) {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// Choose takes the first served option on the account's network and the
// inputs publicKey (the payer's access key), accessKeyNonce (its nonce at
// final) and finalHeight (the final block's height), both decimal strings.
func (Exact) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "near" || !IsAccountID(acct.Address) {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	accepted := x402.OptionOn(read.Options, acct.Network())
	if accepted == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	pk, ok1 := inputs.GetString("publicKey")
	nonce, ok2 := inputs.GetString("accessKeyNonce")
	height, ok3 := inputs.GetString("finalHeight")
	if !ok1 || !ok2 || !ok3 {
		return nil, rails.Refuse(x402.CodeInputMissing)
	}
	c := jsonv.Obj("required", read.Required, "accepted", accepted, "payer", acct.Address, "publicKey", pk,
		"accessKeyNonce", nonce, "finalHeight", height, "now", now)
	if _, err := readChoice(c, accepted, atr.Hash{}); err != nil {
		return nil, err
	}
	return c, nil
}

// readChoice builds the delegate action a choice names, its memo h's LCP
// string; x402/option-malformed for a key, nonce or height that does not
// read or would overflow.
func readChoice(c, accepted *jsonv.Object, h atr.Hash) (*DelegateAction, error) {
	malformed := rails.Refuse(x402.CodeOptionMalformed)
	payer := mpp.String(c, "payer")
	key, ok1 := ParsePublicKey(mpp.String(c, "publicKey"))
	nonce, ok2 := u64Of(mpp.String(c, "accessKeyNonce"))
	height, ok3 := u64Of(mpp.String(c, "finalHeight"))
	mt, _ := accepted.Get("maxTimeoutSeconds")
	window, _ := jsonv.AsSafeInt(mt)
	if !IsAccountID(payer) || !ok1 || !ok2 || !ok3 || nonce == ^uint64(0) || height > ^uint64(0)-uint64(window) {
		return nil, malformed
	}
	amount, _ := accepted.GetString("amount")
	args := ftTransferArgs(mpp.String(accepted, "payTo"), amount, h)
	return &DelegateAction{SenderID: payer, ReceiverID: mpp.String(accepted, "asset"),
		Actions: []Action{{Kind: 2, Method: "ft_transfer", Args: args, Gas: FTTransferGas, Deposit: big.NewInt(1)}},
		Nonce:   nonce + 1, MaxBlockHeight: height + uint64(window), PublicKey: key}, nil
}

// ftTransferArgs are ft_transfer's arguments as JSON.stringify writes them:
// receiver_id, amount and memo, in that order.
func ftTransferArgs(payTo, amount string, h atr.Hash) []byte {
	return jsonv.Marshal(jsonv.Obj("receiver_id", payTo, "amount", amount, "memo", mpp.LegalContextValue(h)))
}

type exactUnsigned struct {
	required, accepted *jsonv.Object
	action             *DelegateAction
	encoded            []byte // action's borsh bytes, written once for the hash, the request and the payment
	hash               [32]byte
	until              int64 // Unix seconds; 0 when the choice names no time
}

// BlockSeconds bounds how long a NEAR block takes when the request's
// validUntil is estimated: blocks come about every second, so 2 s leaves
// room for a slow chain. The action is worthless past its block height, a
// height and not a time: validUntil is the buyer's estimate of when that
// height will have passed, which the spend policy reads.
const BlockSeconds = 2

// Build writes the delegate action: one ft_transfer of amount to payTo on
// the token contract asset, 30 Tgas and 1 yoctoNEAR attached (NEP-141's
// deposit), memo H's LCP string, nonce the key's next, valid until
// finalHeight + maxTimeoutSeconds (a block a second).
func (Exact) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, required, accepted, err := x402.ChosenOption(choice, serves)
	if err != nil {
		return nil, err
	}
	d, err := readChoice(c, accepted, h)
	if err != nil {
		return nil, err
	}
	enc := d.Encode()
	u := &exactUnsigned{required: required, accepted: accepted, action: d, encoded: enc, hash: signingHashOf(enc)}
	if nv, has := c.Get("now"); has {
		now, ok := jsonv.AsSafeInt(nv)
		if !ok || now < 0 || now > 1<<52 {
			return nil, rails.Refuse(x402.CodeChoiceMalformed)
		}
		mt, _ := accepted.Get("maxTimeoutSeconds")
		window, _ := jsonv.AsSafeInt(mt)
		if now > 0 && window <= 1<<40 {
			u.until = now + window*BlockSeconds
		}
	}
	return u, nil
}

// KindDelegate is the signing request of a delegate action: {kind,
// network, hash, delegateAction, validUntil?}, hash 0x hex of the 32 bytes the key signs
// and delegateAction 0x hex of the borsh bytes it is the NEP-461 hash of
// (so that a signer can state what it signs), validUntil the buyer's
// estimate (Unix seconds) of when its block height will have passed
// (BlockSeconds). The answer is {keyType,
// bytes}: 0 and a 64-byte Ed25519 signature, or 1 and a 65-byte secp256k1
// one, in 0x hex.
const KindDelegate = "near-delegate"

func (Exact) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*exactUnsigned)
	req := jsonv.Obj("kind", KindDelegate, "network", mpp.String(b.accepted, "network"),
		"hash", hex0x(b.hash[:]), "delegateAction", hex0x(b.encoded))
	if b.until > 0 {
		req.Set("validUntil", jsonv.Number(b.until))
	}
	return req, nil
}

// Complete checks the answer's form (x402/signature-malformed) and, for an
// Ed25519 key, that it verifies under the action's key over the hash
// (near/signature-invalid), and writes the signed delegate action.
func (Exact) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*exactUnsigned)
	a, _ := jsonv.AsObject(answer)
	kt, _ := a.Get("keyType")
	t, okT := jsonv.AsSafeInt(kt)
	sig, okS := mpp.HexBytes(mpp.String(a, "bytes"), 64, 65)
	if !okT || !okS || !(t == KeyEd25519 && len(sig) == 64 || t == KeySecp256k1 && len(sig) == 65) || int64(b.action.PublicKey.Type) != t {
		return rails.Completion{}, rails.Refuse(x402.CodeSignatureMalformed)
	}
	if t == KeyEd25519 && !ed25519.Verify(b.action.PublicKey.Data, b.hash[:], sig) {
		return rails.Completion{}, rails.Refuse(CodeSignatureInvalid)
	}
	payload := jsonv.Obj("signedDelegateAction", base64.StdEncoding.EncodeToString(signedBytes(b.encoded, uint8(t), sig)))
	payment := x402.Payment(b.required, b.accepted, payload)
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// hex0x is 0x and b in lowercase hex, written in one allocation (hex.Encode
// a chunk at a time into a stack buffer).
func hex0x(b []byte) string {
	var sb strings.Builder
	sb.Grow(2 + 2*len(b))
	sb.WriteString("0x")
	var chunk [128]byte
	for len(b) > 0 {
		n := min(len(b), len(chunk)/2)
		hex.Encode(chunk[:], b[:n])
		sb.Write(chunk[:2*n])
		b = b[n:]
	}
	return sb.String()
}

// Carried is what a payment's signed delegate action carries.
type Carried struct {
	Signed *Signed
	H      atr.Hash
	Args   *jsonv.Object
}

// DecodeSDA reads a signedDelegateAction: at most 8192 characters of
// padded standard base64 (near/sda-too-large, near/sda-malformed) of one
// canonical SignedDelegateAction with exactly one action (near/actions), a
// FunctionCall of ft_transfer (near/not-ft-transfer) whose arguments carry
// H's LCP string as memo.
func DecodeSDA(text string) (*Carried, error) {
	if len(text) > MaxSDAChars {
		return nil, rails.Refuse(CodeSDATooLarge)
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(text)
	if err != nil || text == "" || strings.IndexByte(text, '\r') >= 0 || strings.IndexByte(text, '\n') >= 0 {
		return nil, rails.Refuse(CodeSDAMalformed)
	}
	s, err := DecodeSigned(raw)
	if _, kind := err.(actionKindError); kind {
		return nil, rails.Refuse(CodeNotFTTransfer)
	}
	if err != nil {
		return nil, rails.Refuse(CodeSDAMalformed)
	}
	if len(s.Action.Actions) != 1 {
		return nil, rails.Refuse(CodeActions)
	}
	if s.Action.Actions[0].Method != "ft_transfer" {
		return nil, rails.Refuse(CodeNotFTTransfer)
	}
	args, h, err := Memo(s.Action.Actions[0].Args)
	if err != nil {
		return nil, err
	}
	return &Carried{Signed: s, H: h, Args: args}, nil
}

// Memo reads ft_transfer's arguments: a JSON object in UTF-8 of at most
// 4096 bytes (near/args-malformed) whose memo is a string
// (near/memo-missing) that is an LCP string (near/memo-not-lcp).
func Memo(args []byte) (*jsonv.Object, atr.Hash, error) {
	if len(args) > MaxArgs || !utf8.Valid(args) {
		return nil, atr.Hash{}, rails.Refuse(CodeArgsMalformed)
	}
	v, err := jsonv.ParseDepth(args, 8)
	o, ok := jsonv.AsObject(v)
	if err != nil || !ok {
		return nil, atr.Hash{}, rails.Refuse(CodeArgsMalformed)
	}
	memo, ok := o.GetString("memo")
	if !ok {
		return nil, atr.Hash{}, rails.Refuse(CodeMemoMissing)
	}
	h, ok := mpp.ParseLegalContext(memo)
	if !ok {
		return nil, atr.Hash{}, rails.Refuse(CodeMemoNotLCP)
	}
	return o, h, nil
}

func carried(presented jsonv.Value) (*Carried, *jsonv.Object, error) {
	accepted, payload, err := x402.Presented(presented, serves)
	if err != nil {
		return nil, nil, err
	}
	text, ok := payload.GetString("signedDelegateAction")
	if !ok {
		return nil, nil, rails.Refuse(x402.CodePayloadMalformed)
	}
	c, err := DecodeSDA(text)
	if err != nil {
		return nil, nil, err
	}
	return c, accepted, nil
}

// Bound reads H from the memo of the delegated ft_transfer. The signature
// is not verified here (the facilitator and the runtime do that).
func (Exact) Bound(presented jsonv.Value) (string, error) {
	c, _, err := carried(presented)
	if err != nil {
		return "", err
	}
	return c.H.String(), nil
}

// Reference is what a seller records of a claimed payment: the token, the
// payer, its key, the delegate's nonce and last block height, and the
// relayed transaction's hash once the facilitator names it.
type Reference struct {
	Network, Asset, Payer, PublicKey string
	Nonce, MaxBlockHeight            uint64
	Transaction                      string
}

// PaymentReference reads a presented payment's reference.
func PaymentReference(presented jsonv.Value) (Reference, error) {
	c, accepted, err := carried(presented)
	if err != nil {
		return Reference{}, err
	}
	d := c.Signed.Action
	return Reference{Network: mpp.String(accepted, "network"), Asset: d.ReceiverID, Payer: d.SenderID,
		PublicKey: d.PublicKey.String(), Nonce: d.Nonce, MaxBlockHeight: d.MaxBlockHeight}, nil
}
