package evm

import (
	"crypto/rand"
	"encoding/hex"
	"math/big"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/x402"
)

// Batch is x402/batch-settlement/eip155 (docs/batch-settlement.md): the
// buyer opens a payment channel in the x402 batch-settlement contract with a
// deposit, then pays each request with a voucher raising the amount the
// seller may claim.
//
// Where H goes: the salt of the channel's configuration. The channel id is
// the EIP-712 hash of the configuration, so the deposit's token
// authorization (its nonce or its witness), every voucher and the
// ChannelCreated event on chain all commit to H. One signer call signs the
// opening: the token authorization by the payer, then the first voucher by
// the payer's authorizer.
type Batch struct{}

// BatchID is the pairing id.
const BatchID = "x402/batch-settlement/eip155"

// The batch-settlement contracts: the channel contract, the collectors that
// pull an EIP-3009 or a Permit2 deposit into it, and Permit2.
const (
	BatchSettlement         = "0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003"
	ERC3009DepositCollector = "0x4020806089470a89826cB9fB1f4059150b550004"
	Permit2DepositCollector = "0x4020425FAf3B746C082C2f942b4E5159887B0005"
	Permit2                 = "0x000000000022D473030F116dDEE9F6B43aC78BA3"
)

// The batch-settlement domain, types and events.
var (
	batchDomainName    = "x402 Batch Settlement"
	batchDomainVersion = "1"
	// TypeHashChannelConfig is keccak256 of the ChannelConfig type.
	TypeHashChannelConfig = crypto.Keccak256Hash([]byte("ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)"))
	// TypeHashVoucher is keccak256 of the Voucher type.
	TypeHashVoucher = crypto.Keccak256Hash([]byte("Voucher(bytes32 channelId,uint128 maxClaimableAmount)"))
	// TopicChannelCreated is keccak256 of the channel contract's
	// ChannelCreated(bytes32,(address,address,address,address,address,uint40,bytes32)).
	TopicChannelCreated = crypto.Keccak256Hash([]byte("ChannelCreated(bytes32,(address,address,address,address,address,uint40,bytes32))"))
	// TopicDeposited is the channel contract's Deposited event: channel id in
	// topic 1, depositor in topic 2, amount in data word 0.
	TopicDeposited = common.HexToHash("0x6c2a09353b5e75e70d0b9778b80a413809bb235d46c211811c474b3346791d89")

	domainTypeHash = crypto.Keccak256([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"))
	// The domain's name and version hashes, computed once: every channel
	// id of every payment in a channel needs them.
	domainNameHash    = crypto.Keccak256([]byte(batchDomainName))
	domainVersionHash = crypto.Keccak256([]byte(batchDomainVersion))
	contractWord      = addressWord(BatchSettlement)
	two128            = new(big.Int).Lsh(big.NewInt(1), 128)
	two40             = int64(1) << 40
)

// Refusal codes of the ChannelCreated reads.
const (
	CodeNetworkMalformed  = "evm/network-malformed"
	CodeChannelIDMismatch = "evm/channel-id-mismatch"
	CodeNoChannelCreated  = "evm/no-channel-created"
)

var (
	_ rails.Pairing       = Batch{}
	_ rails.Channel       = Batch{}
	_ rails.WithinBuilder = Batch{}
	_ rails.Summarizer    = Batch{}
	_ rails.Inspector     = Batch{}
)

func (Batch) ID() string { return BatchID }

func (Batch) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

// ChannelConfig is a batch-settlement channel's configuration; its EIP-712
// hash under the channel contract's domain is the channel id.
type ChannelConfig struct {
	Payer, PayerAuthorizer, Receiver, ReceiverAuthorizer, Token string // addresses as written
	WithdrawDelay                                               int64  // < 2^40
	Salt                                                        [32]byte
}

// channelConfigOf reads a channelConfig object: five addresses, a withdraw
// delay that is a safe integer below 2^40, and a 32-byte salt.
func channelConfigOf(v jsonv.Value) (ChannelConfig, bool) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return ChannelConfig{}, false
	}
	var c ChannelConfig
	for _, f := range []struct {
		key string
		dst *string
	}{{"payer", &c.Payer}, {"payerAuthorizer", &c.PayerAuthorizer}, {"receiver", &c.Receiver}, {"receiverAuthorizer", &c.ReceiverAuthorizer}, {"token", &c.Token}} {
		s, ok := o.GetString(f.key)
		if !ok || !IsAddress(s) {
			return ChannelConfig{}, false
		}
		*f.dst = s
	}
	dv, _ := o.Get("withdrawDelay")
	delay, ok := jsonv.AsSafeInt(dv)
	if !ok || delay >= two40 {
		return ChannelConfig{}, false
	}
	c.WithdrawDelay = delay
	salt, _ := o.GetString("salt")
	b, ok := HexBytes(salt)
	if !ok || len(b) != 32 {
		return ChannelConfig{}, false
	}
	copy(c.Salt[:], b)
	return c, true
}

// JSON is the configuration in its payload form; the salt in lowercase.
func (c ChannelConfig) JSON() *jsonv.Object {
	return jsonv.Obj("payer", c.Payer, "payerAuthorizer", c.PayerAuthorizer, "receiver", c.Receiver,
		"receiverAuthorizer", c.ReceiverAuthorizer, "token", c.Token, "withdrawDelay", c.WithdrawDelay,
		"salt", hex0x(c.Salt[:]))
}

func addressWord(a string) []byte {
	b, _ := HexBytes(a) // checked by the caller
	return common.LeftPadBytes(b, 32)
}

func uintWord(n uint64) []byte {
	var w [32]byte
	for i := 0; i < 8; i++ {
		w[31-i] = byte(n >> (8 * i))
	}
	return w[:]
}

// Words is the configuration ABI-encoded as the tuple ChannelCreated logs:
// seven 32-byte words.
func (c ChannelConfig) Words() []byte {
	w := c.words()
	return w[:]
}

func (c ChannelConfig) words() (w [7 * 32]byte) {
	for i, a := range [...]string{c.Payer, c.PayerAuthorizer, c.Receiver, c.ReceiverAuthorizer, c.Token} {
		if !decodeHexInto(w[32*i+12:32*i+32], a) {
			copy(w[32*i:32*i+32], addressWord(a)) // not an address: as addressWord reads it
		}
	}
	copy(w[5*32:6*32], uintWord(uint64(c.WithdrawDelay)))
	copy(w[6*32:], c.Salt[:])
	return w
}

// domainMemo is the last domain separator computed, with its chain: a
// channel's payments all name one chain.
type domainMemo struct {
	chain     int64
	separator [32]byte
}

var lastDomain atomic.Pointer[domainMemo]

// BatchDomainSeparator is the channel contract's EIP-712 domain separator
// on chain.
func BatchDomainSeparator(chain int64) [32]byte {
	if m := lastDomain.Load(); m != nil && m.chain == chain {
		return m.separator
	}
	var b [5 * 32]byte
	copy(b[0:], domainTypeHash)
	copy(b[32:], domainNameHash)
	copy(b[64:], domainVersionHash)
	copy(b[96:], uintWord(uint64(chain)))
	copy(b[128:], contractWord)
	d := crypto.Keccak256Hash(b[:])
	lastDomain.Store(&domainMemo{chain, d})
	return d
}

// StructHash is the configuration's EIP-712 struct hash.
func (c ChannelConfig) StructHash() [32]byte {
	var b [8 * 32]byte
	copy(b[:32], TypeHashChannelConfig[:])
	w := c.words()
	copy(b[32:], w[:])
	return crypto.Keccak256Hash(b[:])
}

// channelMemo is the last channel id derived, with exactly what it was
// derived from: every payment in a channel carries the same configuration,
// and the gate reads the channel of the hold, the built payment and the
// signed one, so the same id is asked for several times per payment.
type channelMemo struct {
	config ChannelConfig
	chain  int64
	id     [32]byte
}

var lastChannel atomic.Pointer[channelMemo]

// ChannelID is the channel id on chain: the EIP-712 digest of the
// configuration under the channel contract's domain.
func (c ChannelConfig) ChannelID(chain int64) [32]byte {
	if m := lastChannel.Load(); m != nil && m.chain == chain && m.config == c {
		return m.id
	}
	id := digest712(BatchDomainSeparator(chain), c.StructHash())
	lastChannel.Store(&channelMemo{c, chain, id})
	return id
}

// DepositNonce is the EIP-3009 nonce of a deposit: keccak256(channelId ‖
// authSalt).
func DepositNonce(channel, authSalt [32]byte) [32]byte {
	return crypto.Keccak256Hash(channel[:], authSalt[:])
}

// serves is the option filter: batch-settlement on an eip155 chain, with the
// channel's terms in extra.
func (Batch) serves(o *jsonv.Object) bool {
	if s, _ := o.GetString("scheme"); s != x402.SchemeBatch {
		return false
	}
	extra, ok := o.GetObject("extra")
	if !ok {
		return false
	}
	n, _ := o.GetString("network")
	asset, _ := o.GetString("asset")
	payTo, _ := o.GetString("payTo")
	ra, _ := extra.GetString("receiverAuthorizer")
	if !validChain(n) || !IsAddress(asset) || !IsAddress(payTo) || !IsAddress(ra) || strings.Trim(ra[2:], "0") == "" {
		return false
	}
	if d, _ := extra.Get("withdrawDelay"); !isWithdrawDelay(d) {
		return false
	}
	name, _ := extra.GetString("name")
	version, _ := extra.GetString("version")
	if name == "" || version == "" {
		return false
	}
	if m, has := extra.Get("assetTransferMethod"); has && m != "eip3009" && m != "permit2" {
		return false
	}
	if f, has := extra.Get("paymentFlow"); has && f != "authorization" {
		return false
	}
	return true
}

func isWithdrawDelay(v jsonv.Value) bool { _, ok := x402.WithdrawDelay(v); return ok }

func (p Batch) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, p.serves) }

// Choose takes the first served option on the account's chain, the
// payerAuthorizer (required), the authSalt (drawn here when not given, so
// that Finish rebuilds the same deposit) and the deposit.
func (Batch) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "eip155" || !IsAddress(acct.Address) {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	accepted := x402.OptionOn(read.Options, acct.Network())
	if accepted == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	missing := rails.Refuse(x402.CodeInputMissing)
	pa, has := inputs.Get("payerAuthorizer")
	authorizer, _ := pa.(string)
	if !has || !IsAddress(authorizer) {
		return nil, missing
	}
	if err := CheckAddresses("from", acct.Address, "payerAuthorizer", authorizer); err != nil {
		return nil, err
	}
	if err := CheckAddressesIn("", accepted); err != nil {
		return nil, err
	}
	authSalt := ""
	if v, has := inputs.Get("authSalt"); has {
		if authSalt, _ = v.(string); !rails.IsHex(authSalt, 64) {
			return nil, missing
		}
	} else {
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, rails.Refuse(x402.CodeInputMissing) // no randomness: nothing to salt with
		}
		authSalt = hex0x(b[:])
	}
	deposit, err := x402.Deposit(accepted, inputs)
	if err != nil {
		return nil, err
	}
	return jsonv.Obj("required", read.Required, "accepted", accepted, "from", acct.Address, "now", now,
		"payerAuthorizer", authorizer, "deposit", deposit.String(), "authSalt", authSalt), nil
}

type batchUnsigned struct {
	required, accepted *jsonv.Object
	from               string
	config             ChannelConfig
	channel            string // 0x and lowercase hex
	deposit, amount    string
	deadline           string
	authSalt           string
	permit2            bool
	requests           []jsonv.Value
}

// payable: an amount below 2^128 in at most 39 digits, a positive timeout.
func payable(o *jsonv.Object) (amount *big.Int, timeout int64, ok bool) {
	s, _ := o.GetString("amount")
	if !rails.IsDecimal(s) || len(s) > 39 {
		return nil, 0, false
	}
	amount, _ = new(big.Int).SetString(s, 10)
	tv, _ := o.Get("maxTimeoutSeconds")
	timeout, okT := jsonv.AsSafeInt(tv)
	return amount, timeout, amount.Cmp(two128) < 0 && okT && timeout > 0
}

// Build checks the choice and builds the opening's two requests with H as
// the configuration's salt.
func (p Batch) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	required, ok1 := c.GetObject("required")
	accepted, ok2 := c.GetObject("accepted")
	if !ok1 || !ok2 {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	deposit, err := x402.ReviveDecimal(c, "deposit")
	if err != nil {
		return nil, err
	}
	if err := x402.Chosen(required, accepted, p.serves); err != nil {
		return nil, err
	}
	malformed := rails.Refuse(x402.CodeOptionMalformed)
	amount, timeout, ok := payable(accepted)
	if !ok {
		return nil, malformed
	}
	from, _ := c.GetString("from")
	authorizer, _ := c.GetString("payerAuthorizer")
	authSalt, _ := c.GetString("authSalt")
	if !IsAddress(from) || !IsAddress(authorizer) || !rails.IsHex(authSalt, 64) {
		return nil, malformed
	}
	if deposit.Sign() <= 0 || deposit.Cmp(two128) >= 0 {
		return nil, malformed
	}
	nv, _ := c.Get("now")
	now, ok := jsonv.AsSafeInt(nv)
	if !ok {
		return nil, malformed
	}
	extra, _ := accepted.GetObject("extra")
	network, _ := accepted.GetString("network")
	chain, _ := chainID(network)
	asset, _ := accepted.GetString("asset")
	payTo, _ := accepted.GetString("payTo")
	ra, _ := extra.GetString("receiverAuthorizer")
	dv, _ := extra.Get("withdrawDelay")
	delay, _ := jsonv.AsSafeInt(dv)
	config := ChannelConfig{Payer: from, PayerAuthorizer: authorizer, Receiver: payTo, ReceiverAuthorizer: ra,
		Token: asset, WithdrawDelay: delay, Salt: h}
	channel := config.ChannelID(chain)
	deadline := strconv.FormatInt(now+timeout, 10)
	saltBytes, _ := HexBytes(authSalt)
	var salt [32]byte
	copy(salt[:], saltBytes)
	u := &batchUnsigned{
		required: required, accepted: accepted, from: from, config: config, channel: hex0x(channel[:]),
		deposit: deposit.String(), amount: amount.String(), deadline: deadline, authSalt: authSalt,
	}
	var tokenAuth *jsonv.Object
	if m, _ := extra.GetString("assetTransferMethod"); m == "permit2" {
		u.permit2 = true
		tokenAuth = Permit2Deposit(chain, asset, u.deposit, new(big.Int).SetBytes(salt[:]).String(), deadline, u.channel)
	} else {
		name, _ := extra.GetString("name")
		version, _ := extra.GetString("version")
		nonce := DepositNonce(channel, salt)
		tokenAuth = ReceiveWithAuthorization(name, version, chain, asset, jsonv.Obj(
			"from", from, "to", ERC3009DepositCollector, "value", u.deposit,
			"validAfter", "0", "validBefore", deadline, "nonce", hex0x(nonce[:])))
	}
	u.requests = []jsonv.Value{
		jsonv.Obj("kind", "eip712", "typedData", tokenAuth),
		jsonv.Obj("kind", "eip712", "typedData", VoucherTypedData(chain, u.channel, u.amount)),
	}
	return u, nil
}

// ReceiveWithAuthorization is the EIP-712 typed data of an EIP-3009
// ReceiveWithAuthorization ({from, to, value, validAfter, validBefore,
// nonce}, all strings) under the token's domain: only to may submit it.
func ReceiveWithAuthorization(name, version string, chain int64, token string, authorization *jsonv.Object) *jsonv.Object {
	return tokenAuthorization(name, version, chain, token, receiveTypes, "ReceiveWithAuthorization", authorization)
}

// Permit2Deposit is the Permit2 PermitWitnessTransferFrom that lets the
// Permit2 deposit collector pull amount of token, with the channel id as its
// witness. Permit2's domain has no version.
func Permit2Deposit(chain int64, token, amount, nonce, deadline, channel string) *jsonv.Object {
	return jsonv.Obj(
		"domain", jsonv.Obj("name", "Permit2", "chainId", chain, "verifyingContract", Permit2),
		"types", jsonv.Obj(
			"EIP712Domain", []jsonv.Value{field("name", "string"), field("chainId", "uint256"), field("verifyingContract", "address")},
			"PermitWitnessTransferFrom", []jsonv.Value{
				field("permitted", "TokenPermissions"), field("spender", "address"), field("nonce", "uint256"),
				field("deadline", "uint256"), field("witness", "DepositWitness"),
			},
			"DepositWitness", []jsonv.Value{field("channelId", "bytes32")},
			"TokenPermissions", []jsonv.Value{field("token", "address"), field("amount", "uint256")},
		),
		"primaryType", "PermitWitnessTransferFrom",
		"message", jsonv.Obj(
			"permitted", jsonv.Obj("token", token, "amount", amount),
			"spender", Permit2DepositCollector, "nonce", nonce, "deadline", deadline,
			"witness", jsonv.Obj("channelId", channel)),
	)
}

// voucherTypes are a voucher's types, built once; each request gets a copy.
var voucherTypes = jsonv.Obj("EIP712Domain", eip712DomainType(),
	"Voucher", []jsonv.Value{field("channelId", "bytes32"), field("maxClaimableAmount", "uint128")})

// VoucherTypedData is the voucher the payer's authorizer signs: the channel
// and the cumulative amount the receiver may claim from it.
func VoucherTypedData(chain int64, channel, maxClaimable string) *jsonv.Object {
	return jsonv.Obj(
		"domain", jsonv.Obj("name", batchDomainName, "version", batchDomainVersion, "chainId", chain, "verifyingContract", BatchSettlement),
		"types", voucherTypes.Clone(),
		"primaryType", "Voucher",
		"message", jsonv.Obj("channelId", channel, "maxClaimableAmount", maxClaimable),
	)
}

func (Batch) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*batchUnsigned)
	return jsonv.Obj("kind", rails.KindBatch, "requests", jsonv.Clone(b.requests)), nil
}

// hexSignature is "0x" and at least one byte of hex pairs, at most 8192
// bytes.
func hexSignature(v jsonv.Value) (string, bool) {
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	b, ok := HexBytes(s)
	return s, ok && len(b) >= 1 && len(b) <= MaxSignatureBytes
}

// signatures reads a batch answer: exactly n hex signatures.
func signatures(answer jsonv.Value, n int) ([]string, bool) {
	list, ok := jsonv.AsArray(answer)
	if !ok || len(list) != n {
		return nil, false
	}
	out := make([]string, n)
	for i, v := range list {
		if out[i], ok = hexSignature(v); !ok {
			return nil, false
		}
	}
	return out, true
}

// Complete joins the two signatures (token authorization, voucher) into the
// deposit payment, then appends the payment identifier.
func (Batch) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*batchUnsigned)
	sigs, ok := signatures(answer, 2)
	if !ok {
		return rails.Completion{}, rails.Refuse(x402.CodeSignatureMalformed)
	}
	var authorization *jsonv.Object
	if b.permit2 {
		saltBytes, _ := HexBytes(b.authSalt)
		authorization = jsonv.Obj("permit2Authorization", jsonv.Obj(
			"from", b.from, "permitted", jsonv.Obj("token", b.config.Token, "amount", b.deposit),
			"spender", Permit2DepositCollector, "nonce", new(big.Int).SetBytes(saltBytes).String(),
			"deadline", b.deadline, "witness", jsonv.Obj("channelId", b.channel), "signature", sigs[0]))
	} else {
		authorization = jsonv.Obj("erc3009Authorization", jsonv.Obj(
			"validAfter", "0", "validBefore", b.deadline, "salt", b.authSalt, "signature", sigs[0]))
	}
	payload := jsonv.Obj(
		"type", "deposit",
		"channelConfig", b.config.JSON(),
		"voucher", jsonv.Obj("channelId", b.channel, "maxClaimableAmount", b.amount, "signature", sigs[1]),
		"deposit", jsonv.Obj("amount", b.deposit, "authorization", authorization),
	)
	payment := x402.Payment(b.required, b.accepted, payload)
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// depositAuthorization reads an opening's deposit: a decimal amount of at
// most 39 digits (x402/payload-malformed) and exactly one authorization
// form (x402/deposit-authorization), an EIP-3009 one with a decimal
// validBefore and a 32-byte salt or a Permit2 one with a decimal deadline
// (x402/payload-malformed).
type depositRead struct {
	amount   *big.Int
	permit2  bool
	settleBy string
	authSalt [32]byte
}

func depositOf(payload *jsonv.Object) (depositRead, error) {
	malformed := rails.Refuse(x402.CodePayloadMalformed)
	d, ok := payload.GetObject("deposit")
	if !ok {
		return depositRead{}, malformed
	}
	s, _ := d.GetString("amount")
	if !rails.IsDecimal(s) || len(s) > 39 {
		return depositRead{}, malformed
	}
	var r depositRead
	r.amount, _ = new(big.Int).SetString(s, 10)
	auth, ok := d.GetObject("authorization")
	if !ok {
		return depositRead{}, rails.Refuse(x402.CodeDepositAuthorization)
	}
	e, hasE := auth.Get("erc3009Authorization")
	p, hasP := auth.Get("permit2Authorization")
	if hasE == hasP {
		return depositRead{}, rails.Refuse(x402.CodeDepositAuthorization)
	}
	if hasE {
		eo, _ := jsonv.AsObject(e)
		vb, _ := eo.GetString("validBefore")
		salt, _ := eo.GetString("salt")
		if eo == nil || !rails.IsDecimal(vb) || len(vb) > 39 || !rails.IsHex(salt, 64) {
			return depositRead{}, malformed
		}
		b, _ := HexBytes(salt)
		copy(r.authSalt[:], b)
		r.settleBy = vb
		return r, nil
	}
	po, _ := jsonv.AsObject(p)
	dl, _ := po.GetString("deadline")
	if po == nil || !rails.IsDecimal(dl) || len(dl) > 39 {
		return depositRead{}, malformed
	}
	r.permit2, r.settleBy = true, dl
	return r, nil
}

// channelOf reads the channel a presented payment names: its configuration
// (x402/payload-malformed), its voucher's channelId (x402/payload-malformed)
// and the id the configuration hashes to, which must be that one
// (x402/channel-id-mismatch).
func (p Batch) channelOf(presented jsonv.Value) (accepted, payload *jsonv.Object, c ChannelConfig, channel [32]byte, err error) {
	accepted, payload, err = x402.Presented(presented, p.serves)
	if err != nil {
		return
	}
	c, channel, err = channelOfPayload(accepted, payload)
	return
}

// channelOfPayload is channelOf once the payment's option and payload are
// read.
func channelOfPayload(accepted, payload *jsonv.Object) (c ChannelConfig, channel [32]byte, err error) {
	malformed := rails.Refuse(x402.CodePayloadMalformed)
	cv, _ := payload.Get("channelConfig")
	c, ok := channelConfigOf(cv)
	if !ok {
		err = malformed
		return
	}
	voucher, _ := payload.GetObject("voucher")
	named, ok := voucher.GetString("channelId")
	if !ok {
		err = malformed
		return
	}
	network, _ := accepted.GetString("network")
	chain, _ := chainID(network)
	channel = c.ChannelID(chain)
	if !sameHex32(channel, named) {
		err = rails.Refuse(x402.CodeChannelIDMismatch)
	}
	return
}

// sameHex32 is SameBytes(hex0x(b[:]), s) without writing b out: s is 0x and
// the 64 hex digits of b, in either case.
func sameHex32(b [32]byte, s string) bool {
	var d [32]byte
	return decodeHexInto(d[:], s) && d == b
}

// Bound reads H back out of an opening: the configuration's salt, once the
// deposit reads and the configuration hashes to the voucher's channel id. No
// signature is verified.
func (p Batch) Bound(presented jsonv.Value) (string, error) {
	accepted, payload, err := x402.Presented(presented, p.serves)
	if err != nil {
		return "", err
	}
	if t, _ := payload.Get("type"); t != "deposit" {
		return "", rails.Refuse(x402.CodeNotAnOpening)
	}
	cv, _ := payload.Get("channelConfig")
	if _, ok := channelConfigOf(cv); !ok {
		return "", rails.Refuse(x402.CodePayloadMalformed)
	}
	if _, err := depositOf(payload); err != nil {
		return "", err
	}
	c, _, err := channelOfPayload(accepted, payload)
	if err != nil {
		return "", err
	}
	return hex0x(c.Salt[:]), nil
}

// ChannelKind: a deposit opens, a voucher is within, a refund with an amount
// is within (a partial refund) and one without closes.
func (p Batch) ChannelKind(signed jsonv.Value) (rails.ChannelKind, error) {
	_, payload, err := x402.Presented(signed, p.serves)
	if err != nil {
		return "", err
	}
	switch t, _ := payload.Get("type"); t {
	case "deposit":
		return rails.ChannelOpen, nil
	case "voucher":
		return rails.ChannelWithin, nil
	case "refund":
		if payload.Has("amount") {
			return rails.ChannelWithin, nil
		}
		return rails.ChannelClose, nil
	}
	return "", rails.Refuse(x402.CodeChannelKindUnknown)
}

// ChannelRef is the accepted option's network and the channel id the
// configuration hashes to, in lowercase.
func (p Batch) ChannelRef(signed jsonv.Value) (rails.ChannelRef, error) {
	accepted, _, _, channel, err := p.channelOf(signed)
	if err != nil {
		return rails.ChannelRef{}, err
	}
	network, _ := accepted.GetString("network")
	return rails.ChannelRef{Network: network, Channel: hex0x(channel[:])}, nil
}

// BoundWithin reads H from any payment in the channel: every one carries the
// configuration, whose salt is H once it hashes to the voucher's channel.
func (p Batch) BoundWithin(signed jsonv.Value) (string, error) {
	_, _, c, _, err := p.channelOf(signed)
	if err != nil {
		return "", err
	}
	return hex0x(c.Salt[:]), nil
}

// batchWithin is a voucher (or a refund's voucher) on a held channel.
type batchWithin struct {
	required, accepted *jsonv.Object
	config             *jsonv.Object // exactly as the opening sent it
	channel            string
	maxClaimable       string
	action             rails.WithinAction
	refund             string // a partial refund's amount
	request            rails.Request
}

func (w *batchWithin) Requests() []rails.Request { return []rails.Request{w.request.Clone()} }

// Complete takes the voucher's signature and returns the payment:
// {type: voucher | refund, channelConfig, voucher, amount?} with a fresh
// payment identifier where the document advertises one.
func (w *batchWithin) Complete(answers []string) (jsonv.Value, error) {
	if len(answers) != 1 {
		return nil, rails.Refuse(x402.CodeSignatureMalformed)
	}
	sig, ok := hexSignature(answers[0])
	if !ok {
		return nil, rails.Refuse(x402.CodeSignatureMalformed)
	}
	voucher := jsonv.Obj("channelId", w.channel, "maxClaimableAmount", w.maxClaimable, "signature", sig)
	payload := jsonv.Obj("type", "voucher", "channelConfig", w.config.Clone(), "voucher", voucher)
	if w.action != rails.WithinVoucher {
		payload.Set("type", "refund")
		if w.action == rails.WithinRefund {
			payload.Set("amount", w.refund)
		}
	}
	payment := x402.Payment(w.required, w.accepted, payload)
	if err := x402.AppendPaymentIdentifier(payment, w.required, rails.NewRef()); err != nil {
		return nil, err
	}
	return payment, nil
}

// BuildWithin builds the voucher for w.Cumulative on the held opening's
// channel, in the reference's order of checks: the new document and option
// (the x402 build codes), the opening's configuration (x402/payload-malformed)
// whose salt is h (x402/channel-id-mismatch), the amounts below 2^128
// (x402/option-malformed). The channel comes from the opening, never from
// the new document.
func (p Batch) BuildWithin(w rails.Within, h atr.Hash) (rails.InChannel, error) {
	if w.Required == nil || w.Accepted == nil {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	if err := x402.Chosen(w.Required, w.Accepted, p.serves); err != nil {
		return nil, err
	}
	payload, _ := w.Opening.GetObject("payload")
	cv, _ := payload.GetObject("channelConfig")
	c, ok := channelConfigOf(cv)
	if !ok {
		return nil, rails.Refuse(x402.CodePayloadMalformed)
	}
	if c.Salt != h {
		return nil, rails.Refuse(x402.CodeChannelIDMismatch)
	}
	malformed := rails.Refuse(x402.CodeOptionMalformed)
	if w.Cumulative == nil || w.Cumulative.Sign() < 0 || w.Cumulative.Cmp(two128) >= 0 {
		return nil, malformed
	}
	b := &batchWithin{required: w.Required, accepted: w.Accepted, config: cv, action: w.Action, maxClaimable: w.Cumulative.String()}
	switch w.Action {
	case rails.WithinVoucher, rails.WithinClose:
	case rails.WithinRefund:
		if w.RefundAmount == nil || w.RefundAmount.Sign() <= 0 || w.RefundAmount.Cmp(two128) >= 0 {
			return nil, malformed
		}
		b.refund = w.RefundAmount.String()
	default:
		return nil, rails.Refuse(x402.CodeChannelKindUnknown)
	}
	network, _ := w.Accepted.GetString("network")
	chain, _ := chainID(network)
	channel := c.ChannelID(chain)
	b.channel = hex0x(channel[:])
	b.request = jsonv.Obj("kind", "eip712", "typedData", VoucherTypedData(chain, b.channel, b.maxClaimable))
	return b, nil
}

// ChannelCreated reads a ChannelCreated log's data (the seven-word
// configuration) and checks that it hashes to the channel id in topic 1:
// evm/field-malformed for data that is not seven words of a configuration,
// evm/channel-id-mismatch when the id differs.
func ChannelCreated(l Log, chain int64) (ChannelConfig, error) {
	data, ok := HexBytes(l.Data)
	if !ok || len(data) != 7*32 || len(l.Topics) < 2 {
		return ChannelConfig{}, rails.Refuse(CodeFieldMalformed)
	}
	var c ChannelConfig
	for i, dst := range []*string{&c.Payer, &c.PayerAuthorizer, &c.Receiver, &c.ReceiverAuthorizer, &c.Token} {
		w := data[32*i : 32*i+32]
		if strings.Trim(string(w[:12]), "\x00") != "" {
			return ChannelConfig{}, rails.Refuse(CodeFieldMalformed)
		}
		*dst = "0x" + hex.EncodeToString(w[12:])
	}
	delay := new(big.Int).SetBytes(data[5*32 : 6*32])
	if !delay.IsInt64() || delay.Int64() >= two40 {
		return ChannelConfig{}, rails.Refuse(CodeFieldMalformed)
	}
	c.WithdrawDelay = delay.Int64()
	copy(c.Salt[:], data[6*32:])
	id := c.ChannelID(chain)
	if !SameBytes(hex0x(id[:]), l.Topics[1]) {
		return ChannelConfig{}, rails.Refuse(CodeChannelIDMismatch)
	}
	return c, nil
}

// Recover reads H from the chain with no payment in hand (ref {network,
// transaction}): the salt of the one ChannelCreated log the channel contract
// emitted in the transaction, once its configuration hashes to its id.
func (Batch) Recover(ref *jsonv.Object, r Reader) (string, error) {
	network, _ := ref.GetString("network")
	tx, _ := ref.GetString("transaction")
	chain, ok := chainID(network)
	if !ok {
		return "", rails.Refuse(CodeNetworkMalformed)
	}
	if r == nil || r.Network() != network {
		return "", rails.Refuse(CodeWrongReader)
	}
	receipt, failure := ReadReceipt(network, tx, r)
	switch failure {
	case ReadOK:
	case ReadNoReceipt:
		return "", rails.Refuse(CodeNotFound)
	case ReadReverted:
		return "", rails.Refuse(CodeReverted)
	default:
		return "", rails.Refuse(CodeUnreadable)
	}
	var created []Log
	for _, l := range receipt.Logs {
		if l.Raw != nil && SameAddress(l.Address, BatchSettlement) && SameBytes(l.Topic(0), TopicChannelCreated.Hex()) {
			created = append(created, l)
		}
	}
	switch len(created) {
	case 0:
		return "", rails.Refuse(CodeNoChannelCreated)
	case 1:
	default:
		return "", rails.Refuse(CodeAmbiguous)
	}
	c, err := ChannelCreated(created[0], chain)
	if err != nil {
		return "", err
	}
	return hex0x(c.Salt[:]), nil
}

// Reference is what a seller records for an opening, so that the chain can
// be read later (RefStatus, with the settling transaction added):
// {network, settleBy, bindingLog (the channel contract's Deposited with the
// channel id in topic 1), transferLog (the payer's transfer of the deposit
// to the collector or the channel contract), search (the filter that finds
// the transaction: the token's AuthorizationUsed with the deposit nonce,
// or the Deposited log)}.
func (p Batch) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	if _, err := p.Bound(presented); err != nil {
		return nil, err
	}
	accepted, payload, c, channel, _ := p.channelOf(presented) // Bound read them
	d, _ := depositOf(payload)
	id := hex0x(channel[:])
	to := ERC3009DepositCollector
	if d.permit2 {
		to = BatchSettlement
	}
	digest, err := TransferDigest(TransferFields{From: c.Payer, To: to, Value: d.amount})
	if err != nil {
		return nil, err
	}
	var search *jsonv.Object
	if d.permit2 {
		search = jsonv.Obj("address", BatchSettlement, "topics", []jsonv.Value{TopicDeposited.Hex(), id})
	} else {
		nonce := DepositNonce(channel, d.authSalt)
		search = jsonv.Obj("address", c.Token, "topics", []jsonv.Value{TopicAuthorizationUsed.Hex(), nil, hex0x(nonce[:])})
	}
	network, _ := accepted.GetString("network")
	return jsonv.Obj(
		"network", network,
		"settleBy", d.settleBy,
		"bindingLog", jsonv.Obj("address", BatchSettlement, "topic0", TopicDeposited.Hex(), "index", 1, "value", id),
		"transferLog", jsonv.Obj("address", c.Token, "topic0", TopicTransfer.Hex(), "identity", "from,to,value", "digest", hex0x(digest[:])),
		"search", search,
	), nil
}

// Status reads a Reference (with the settling transaction added) with
// RefStatus.
func (Batch) Status(ref *jsonv.Object, r Reader) Status {
	s, _ := RefStatus(ref, r)
	return s
}
