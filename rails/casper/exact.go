// Package casper holds the Casper pairing, x402/exact/casper, and what it
// needs: CEP-3009's typed data over Casper (EIP-712's encoding with a
// Casper domain), Casper's tagged keys and account hashes, and the seller's
// status and recovery from the executed call (docs/casper.md).
package casper

// x402/exact/casper: H goes in the CEP-3009 TransferWithAuthorization the
// payer signs, as its 32-byte nonce (payload.authorization.nonce, 64 hex
// digits); the token contract checks the signature when it executes
// transfer_with_authorization, and H stays on chain as that call's nonce
// argument.

import (
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

// Exact is the x402/exact/casper pairing.
type Exact struct{}

// ExactID is the pairing id.
const ExactID = "x402/exact/casper"

// Refusal codes of the pairing. The first eight are the reference gates'
// (the vector file's); the last two are termsgate's checks of the signer's
// answer before the payment leaves.
const (
	CodeNetworkMalformed   = "casper/network-malformed"
	CodeOptionMalformed    = "casper/option-malformed"
	CodeAddressMalformed   = "casper/address-malformed"
	CodeAmountMalformed    = "casper/amount-malformed"
	CodePayloadMalformed   = "casper/payload-malformed"
	CodeSignatureMalformed = "casper/signature-malformed"
	CodeKeyTagMismatch     = "casper/key-tag-mismatch"
	CodeSignatureInvalid   = "casper/signature-invalid" // not the key's signature over the typed data's digest
	CodeKeyNotPayer        = "casper/key-not-payer"     // the key's account hash is not the authorization's from
)

// Bounds of the tagged hex the payload carries: a tag byte and a 33-byte
// secp256k1 key at most, a tag byte and a 64-byte signature (65 bytes; the
// reference allows one byte more, and so does this reader).
const (
	MaxPublicKeyHex = 68
	MaxSignatureHex = 132
	maxName         = 64
)

// Key tags, Casper's algorithm bytes.
const (
	TagEd25519   = 0x01
	TagSecp256k1 = 0x02
)

var uint256Limit = new(big.Int).Lsh(big.NewInt(1), 256)

func (Exact) ID() string { return ExactID }

func (Exact) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

// IsNetwork reports a CAIP-2 Casper network: casper: and a chainspec name
// of 1 to 64 lowercase letters, digits and hyphens.
func IsNetwork(n string) bool {
	name, ok := strings.CutPrefix(n, "casper:")
	if !ok || name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func isHexDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// IsPackageHash is 64 hex digits without a prefix: a contract package hash.
func IsPackageHash(s string) bool { return len(s) == 64 && isHexDigits(s) }

// IsAddress is a CEP-18 address as CEP-3009 writes it: 66 hex digits, tag
// 00 (an account hash) or 01 (a package hash), then 32 bytes.
func IsAddress(s string) bool {
	return len(s) == 66 && s[0] == '0' && (s[1] == '0' || s[1] == '1') && isHexDigits(s)
}

func isName(v jsonv.Value) bool {
	s, ok := v.(string)
	return ok && s != "" && len(s) <= maxName
}

// isTagged is 01 or 02 and whole bytes of hex, at most maxHex digits.
func isTagged(v jsonv.Value, maxHex int) bool {
	s, ok := v.(string)
	return ok && len(s) <= maxHex && len(s) >= 4 && len(s)%2 == 0 && s[0] == '0' && (s[1] == '1' || s[1] == '2') && isHexDigits(s)
}

// Uint256 reads a decimal uint256 without leading zeros.
func Uint256(v jsonv.Value) (*big.Int, bool) {
	s, ok := v.(string)
	if !ok || s == "" || len(s) > 78 || len(s) > 1 && s[0] == '0' || !rails.IsDecimal(s) {
		return nil, false
	}
	if len(s) <= 19 { // below 10^19, a uint64: big.Int's parser is most of a read
		u, _ := strconv.ParseUint(s, 10, 64)
		return new(big.Int).SetUint64(u), true
	}
	n, _ := new(big.Int).SetString(s, 10)
	return n, n.Cmp(uint256Limit) < 0
}

// CheckOption is "" for an option the pairing pays, else
// x402/option-not-this-pairing: exact on a casper: network, asset a package
// hash, payTo an address, amount a uint256, extra naming the token's
// EIP-712 name and version (1 to 64 characters each) and
// maxTimeoutSeconds a positive integer.
func CheckOption(o *jsonv.Object) string {
	if s, _ := o.GetString("scheme"); s != "exact" {
		return x402.CodeOptionNotThisPairing
	}
	extra, _ := o.GetObject("extra")
	name, _ := extra.Get("name")
	version, _ := extra.Get("version")
	a, _ := o.Get("amount")
	mt, _ := o.Get("maxTimeoutSeconds")
	t, okT := jsonv.AsSafeInt(mt)
	if _, ok := Uint256(a); !ok || !IsNetwork(mpp.String(o, "network")) || !IsPackageHash(mpp.String(o, "asset")) ||
		!IsAddress(mpp.String(o, "payTo")) || !isName(name) || !isName(version) || !okT || t <= 0 {
		return x402.CodeOptionNotThisPairing
	}
	return ""
}

func serves(o *jsonv.Object) bool { return CheckOption(o) == "" }

func (Exact) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, serves) }

// Choose takes the first served option on the account's network. The
// account's address is the payer's CEP-18 address (00 and its account
// hash); the authorization needs nothing else from the chain.
func (Exact) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "casper" || !IsAddress(acct.Address) {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	accepted := x402.OptionOn(read.Options, acct.Network())
	if accepted == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	return jsonv.Obj("required", read.Required, "accepted", accepted, "from", acct.Address, "now", now), nil
}

// Authorization is CEP-3009's TransferWithAuthorization message, as the
// payload writes it: addresses as 66 hex digits, integers as decimal
// strings, the nonce as 64 lowercase hex digits.
type Authorization struct {
	From, To                 string
	Value                    *big.Int
	ValidAfter, ValidBefore  *big.Int
	Nonce                    [32]byte
	Name, Version, ChainName string // the domain
	ContractPackageHash      [32]byte
}

// JSON is the authorization as payload.authorization.
func (a *Authorization) JSON() *jsonv.Object {
	return jsonv.Obj("from", a.From, "to", a.To, "value", a.Value.String(), "validAfter", a.ValidAfter.String(),
		"validBefore", a.ValidBefore.String(), "nonce", hex.EncodeToString(a.Nonce[:]))
}

type exactUnsigned struct {
	required, accepted *jsonv.Object
	auth               *Authorization
	digest             [32]byte
}

// Build writes the authorization: from the payer, to payTo, value amount,
// validAfter 0, validBefore now + maxTimeoutSeconds, nonce H, under the
// domain of the option's token (extra.name, extra.version, the network as
// chain_name, asset as contract_package_hash).
func (Exact) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, required, accepted, err := x402.ChosenOption(choice, serves)
	if err != nil {
		return nil, err
	}
	from := mpp.String(c, "from")
	if !IsAddress(from) {
		return nil, rails.Refuse(CodeAddressMalformed)
	}
	nv, _ := c.Get("now")
	now, ok := jsonv.AsSafeInt(nv)
	if !ok || now < 0 {
		return nil, rails.Refuse(CodeOptionMalformed)
	}
	mt, _ := accepted.Get("maxTimeoutSeconds")
	window, _ := jsonv.AsSafeInt(mt)
	a := optionAuthorization(accepted)
	a.From = from
	a.ValidAfter = new(big.Int)
	a.ValidBefore = new(big.Int).Add(big.NewInt(now), big.NewInt(window))
	a.Nonce = h
	return &exactUnsigned{required: required, accepted: accepted, auth: a, digest: a.Digest()}, nil
}

// optionAuthorization is the domain and transfer a served option names.
func optionAuthorization(accepted *jsonv.Object) *Authorization {
	extra, _ := accepted.GetObject("extra")
	av, _ := accepted.Get("amount")
	value, _ := Uint256(av)
	pkg, _ := hex.DecodeString(mpp.String(accepted, "asset"))
	return &Authorization{To: mpp.String(accepted, "payTo"), Value: value, Name: mpp.String(extra, "name"),
		Version: mpp.String(extra, "version"), ChainName: mpp.String(accepted, "network"), ContractPackageHash: [32]byte(pkg)}
}

// KindEIP712 is the signing request of a Casper payment: {kind, network,
// typedData, digest}. typedData is CEP-3009's TransferWithAuthorization
// ({domain, types, primaryType, message}, integers as decimal strings,
// bytes and addresses as hex without 0x) and digest the 0x hex of its
// EIP-712 hash, which the key signs. The answer is {publicKey, signature},
// both Casper's tagged hex: 01 and an Ed25519 key and signature of the
// digest, or 02, a compressed secp256k1 key and the 64-byte ECDSA
// signature of SHA-256 of the digest (how Casper's keys sign a message).
const KindEIP712 = "casper-eip712"

// typesTemplate is CEP-3009's types member, the same in every request:
// each request gets a copy (one slab clone, not twelve objects built).
var typesTemplate = func() *jsonv.Object {
	field := func(name, typ string) jsonv.Value { return jsonv.Obj("name", name, "type", typ) }
	return jsonv.Obj(
		"EIP712Domain", []jsonv.Value{field("name", "string"), field("version", "string"), field("chain_name", "string"),
			field("contract_package_hash", "bytes32")},
		"TransferWithAuthorization", []jsonv.Value{field("from", "address"), field("to", "address"), field("value", "uint256"),
			field("validAfter", "uint256"), field("validBefore", "uint256"), field("nonce", "bytes32")})
}()

// TypedData is the request's typedData member for a.
func (a *Authorization) TypedData() *jsonv.Object {
	return jsonv.Obj(
		"domain", jsonv.Obj("name", a.Name, "version", a.Version, "chain_name", a.ChainName,
			"contract_package_hash", hex.EncodeToString(a.ContractPackageHash[:])),
		"types", typesTemplate.Clone(),
		"primaryType", "TransferWithAuthorization",
		"message", a.JSON())
}

func (Exact) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*exactUnsigned)
	return jsonv.Obj("kind", KindEIP712, "network", b.auth.ChainName, "typedData", b.auth.TypedData(),
		"digest", "0x"+hex.EncodeToString(b.digest[:])), nil
}

// Assemble joins a tagged public key and signature to the built
// authorization as the reference gates' complete does, checking their form
// only: tagged hex of at most 68 and 132 digits (casper/signature-malformed)
// with the same tag (casper/key-tag-mismatch). Complete verifies them too.
func Assemble(u rails.Unsigned, publicKey, signature jsonv.Value) (*jsonv.Object, error) {
	b := u.(*exactUnsigned)
	if !isTagged(publicKey, MaxPublicKeyHex) || !isTagged(signature, MaxSignatureHex) {
		return nil, rails.Refuse(CodeSignatureMalformed)
	}
	pk, sig := publicKey.(string), signature.(string)
	if pk[:2] != sig[:2] {
		return nil, rails.Refuse(CodeKeyTagMismatch)
	}
	return x402.Payment(b.required, b.accepted, jsonv.Obj("authorization", b.auth.JSON(), "publicKey", pk, "signature", sig)), nil
}

// Complete assembles the signer's {publicKey, signature} and, before the
// payment leaves, checks what the contract will: the key is the payer's
// (its account hash is from, casper/key-not-payer) and the signature is
// its signature over the digest (casper/signature-invalid).
func (Exact) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*exactUnsigned)
	a, _ := jsonv.AsObject(answer)
	pkv, _ := a.Get("publicKey")
	sigv, _ := a.Get("signature")
	payment, err := Assemble(u, pkv, sigv)
	if err != nil {
		return rails.Completion{}, err
	}
	key, err := ParsePublicKey(pkv.(string))
	if err != nil {
		return rails.Completion{}, rails.Refuse(CodeSignatureMalformed)
	}
	if !key.IsAccount(b.auth.From) {
		return rails.Completion{}, rails.Refuse(CodeKeyNotPayer)
	}
	if !key.Verify(b.digest[:], sigv.(string)) {
		return rails.Completion{}, rails.Refuse(CodeSignatureInvalid)
	}
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// Carried is what a presented payment carries, read as Bound reads it.
type Carried struct {
	Accepted      *jsonv.Object
	Authorization *jsonv.Object
	Nonce         atr.Hash
	PublicKey     string
	Signature     string
}

// ReadPayment reads a presented payment as Bound does.
func ReadPayment(presented jsonv.Value) (*Carried, error) { return carried(presented) }

// carried reads a presented payment: x402Version 2, an option this pairing
// serves as accepted, a payload whose authorization has the six members as
// strings and a nonce of 64 hex digits (0x allowed), and a tagged public
// key and signature. Anything else is casper/payload-malformed.
func carried(presented jsonv.Value) (*Carried, error) {
	malformed := rails.Refuse(CodePayloadMalformed)
	p, ok := jsonv.AsObject(presented)
	if !ok {
		return nil, malformed
	}
	if v, _ := p.Get("x402Version"); v != jsonv.Number(2) {
		return nil, malformed
	}
	accepted, ok := p.GetObject("accepted")
	if !ok || !serves(accepted) {
		return nil, malformed
	}
	payload, ok := p.GetObject("payload")
	if !ok {
		return nil, malformed
	}
	a, ok := payload.GetObject("authorization")
	if !ok {
		return nil, malformed
	}
	for _, k := range []string{"from", "to", "value", "validAfter", "validBefore", "nonce"} {
		if _, ok := a.GetString(k); !ok {
			return nil, malformed
		}
	}
	n := strings.TrimPrefix(mpp.String(a, "nonce"), "0x")
	raw, err := hex.DecodeString(n)
	if err != nil || len(raw) != 32 {
		return nil, malformed
	}
	pk, _ := payload.Get("publicKey")
	sig, _ := payload.Get("signature")
	if !isTagged(pk, MaxPublicKeyHex) || !isTagged(sig, MaxSignatureHex) {
		return nil, malformed
	}
	return &Carried{Accepted: accepted, Authorization: a, Nonce: atr.Hash(raw), PublicKey: pk.(string), Signature: sig.(string)}, nil
}

// Bound reads H from the authorization's nonce, in lowercase. The
// signature is not verified here: the token contract verifies it, and that
// the key is the payer's, when it executes the transfer.
func (Exact) Bound(presented jsonv.Value) (string, error) {
	c, err := carried(presented)
	if err != nil {
		return "", err
	}
	return c.Nonce.String(), nil
}

// Reference is what a seller records of a claimed payment to find it later:
// the network, the token's package hash (lowercase), the transfer's digest
// (IDDigest), validBefore, and, once known, the settling transaction's hash
// and the payment's H.
type Reference struct {
	Network     string
	Transaction string
	Asset       string
	IDDigest    [32]byte
	SettleBy    int64
	H           atr.Hash
}

// IDDigest is SHA-256 over the two 33-byte addresses and the value as a
// 32-byte big-endian integer: what identifies a transfer apart from its
// nonce.
func IDDigest(from, to string, value *big.Int) ([32]byte, bool) {
	if !IsAddress(from) || !IsAddress(to) || value == nil || value.Sign() < 0 || value.Cmp(uint256Limit) >= 0 {
		return [32]byte{}, false
	}
	packed := make([]byte, 98)
	f, _ := hex.DecodeString(from)
	t, _ := hex.DecodeString(to)
	copy(packed, f)
	copy(packed[33:], t)
	value.FillBytes(packed[66:])
	return sha256.Sum256(packed), true
}

// PaymentReference reads a presented payment's reference: value a uint256
// and validBefore at most 16 decimal digits and a safe integer, from and
// to addresses (casper/payload-malformed otherwise).
func PaymentReference(presented jsonv.Value) (Reference, error) {
	c, err := carried(presented)
	if err != nil {
		return Reference{}, err
	}
	a := c.Authorization
	vv, _ := a.Get("value")
	value, okV := Uint256(vv)
	vb := mpp.String(a, "validBefore")
	settleBy, errB := strconv.ParseInt(vb, 10, 64)
	if !okV || vb == "" || len(vb) > 16 || !rails.IsDecimal(vb) || errB != nil || settleBy > 1<<53-1 {
		return Reference{}, rails.Refuse(CodePayloadMalformed)
	}
	d, ok := IDDigest(mpp.String(a, "from"), mpp.String(a, "to"), value)
	if !ok {
		return Reference{}, rails.Refuse(CodePayloadMalformed)
	}
	return Reference{Network: mpp.String(c.Accepted, "network"), Asset: strings.ToLower(mpp.String(c.Accepted, "asset")),
		IDDigest: d, SettleBy: settleBy, H: c.Nonce}, nil
}
