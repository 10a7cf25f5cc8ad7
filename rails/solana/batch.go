package solana

// x402/batch-settlement/solana (docs/batch-settlement.md, "Solana").
//
// Where H goes: the one Memo instruction of the transaction that opens the
// payment channel, text lcp:sha256:0x<H> (the option's extra.memo). The
// channel's address is a program-derived address of the payer, the fee
// payer, the mint, the voucher signer, a salt and a slot: it does not hold
// H, so later vouchers commit to H only through the channel the opening
// named (BoundWithin refuses x402/not-bound-within).

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"strconv"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/x402"
)

// Batch is x402/batch-settlement/solana: the buyer opens a channel in the
// payment-channels program with a deposit, in a v0 transaction the payer
// signs and the seller's fee payer co-signs and sends, and signs a voucher
// (a 50-byte Ed25519 message) for each later charge. One signer call signs
// the opening: the transaction message by the payer, then the first voucher
// by the payer's authorizer.
type Batch struct{}

// BatchID is the pairing id.
const BatchID = "x402/batch-settlement/solana"

// The payment-channels program, the sysvar its open instruction names, and
// the defaults of a channel transaction's compute budget.
var (
	ChannelProgram = MustKey("CHNLxYvVA28MJP9PrFuDXccuoGXAx7jBacfLEkahyGsX")
	RentSysvar     = MustKey("SysvarRent111111111111111111111111111111111")
)

// Channel defaults and limits.
const (
	// OpeningPayableSeconds bounds how long a signed opening stays
	// payable: it is a transaction on a recent blockhash
	// (BlockhashPayableSeconds).
	OpeningPayableSeconds = BlockhashPayableSeconds

	DefaultChannelComputeUnits = 200_000 // SetComputeUnitLimit of a channel transaction when the buyer names none
	VoucherLen                 = 50      // 56 01 ‖ channel (32) ‖ cumulative u64le ‖ expiresAt i64le
	maxSafeInt                 = 1<<53 - 1
	maxSignatureBase58         = 90
)

// Refusal codes of the channel readings.
const (
	CodePDANotFound        = "svm/pda-not-found"
	CodeNoChannelIx        = "svm/no-channel-instruction"
	CodeChannelIx          = "svm/channel-instruction"
	CodeChannelIDMismatch  = "svm/channel-id-mismatch"
	CodeNotBoundWithin     = "x402/not-bound-within"
	CodeWithinInputInvalid = "x402/input-malformed"
)

var (
	_ rails.Pairing       = Batch{}
	_ rails.Channel       = Batch{}
	_ rails.WithinBuilder = Batch{}
	_ rails.Summarizer    = Batch{}
	_ rails.Inspector     = Batch{}

	eventAuthority, _, _ = FindProgramAddress([][]byte{[]byte("event_authority")}, ChannelProgram)
)

func (Batch) ID() string { return BatchID }

func (Batch) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

// EventAuthority is the payment-channels program's event authority, an
// account its open instruction names.
func EventAuthority() Key { return eventAuthority }

// serves is the option filter: batch-settlement on a Solana network; the
// mint, payee and extra.feePayer keys; a known extra.tokenProgram; a
// withdraw delay in range and not shorter than maxTimeoutSeconds;
// extra.paymentFlow absent or "authorization"; extra.memo absent or a
// string of at most 256 bytes.
func (Batch) serves(o *jsonv.Object) bool {
	if s, _ := o.GetString("scheme"); s != x402.SchemeBatch {
		return false
	}
	extra, ok := o.GetObject("extra")
	if !ok {
		return false
	}
	n, _ := o.GetString("network")
	asset, _ := o.Get("asset")
	payTo, _ := o.Get("payTo")
	fp, _ := extra.Get("feePayer")
	if !IsNetwork(n) || !IsKey(asset) || !IsKey(payTo) || !IsKey(fp) {
		return false
	}
	if tp, _ := extra.GetString("tokenProgram"); tp != TokenProgram.String() && tp != Token2022Program.String() {
		return false
	}
	dv, _ := extra.Get("withdrawDelay")
	delay, ok := x402.WithdrawDelay(dv)
	if !ok {
		return false
	}
	if tv, has := o.Get("maxTimeoutSeconds"); has {
		if t, ok := timeoutNumber(tv); ok && float64(delay) < t {
			return false
		}
	}
	if f, has := extra.Get("paymentFlow"); has && f != "authorization" {
		return false
	}
	if m, has := extra.Get("memo"); has {
		s, ok := m.(string)
		if !ok || len(s) > maxMemoBytes {
			return false
		}
	}
	return true
}

// timeoutNumber is the number a maxTimeoutSeconds compares as: a JSON
// number, or a string holding one. Anything else does not compare (the
// build refuses a timeout that is not a positive safe integer).
func timeoutNumber(v jsonv.Value) (float64, bool) {
	switch t := v.(type) {
	case jsonv.Number:
		return float64(t), true
	case string:
		f, err := strconv.ParseFloat(t, 64)
		return f, err == nil
	}
	return 0, false
}

func (p Batch) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, p.serves) }

// Choose takes the first served option on the account's network and the
// buyer's inputs: payerAuthorizer (the key that signs vouchers), openSlot,
// tokenProgram, recentBlockhash (the option's extra.recentBlockhash wins),
// the optional compute budget, the salt (drawn here when not given, so
// that Finish rebuilds the same channel) and the deposit. Every input
// failure is x402/input-missing.
func (Batch) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, _, ok := accountKey(account)
	if !ok {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	accepted := x402.OptionOn(read.Options, acct.Network())
	if accepted == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	missing := rails.Refuse(x402.CodeInputMissing)
	extra, _ := accepted.GetObject("extra")
	authorizer, _ := inputs.GetString("payerAuthorizer")
	openSlot, _ := inputs.GetString("openSlot")
	tokenProgram, _ := inputs.GetString("tokenProgram")
	blockhash, offered := extra.Get("recentBlockhash")
	if !offered {
		blockhash, _ = inputs.Get("recentBlockhash")
	}
	bh, _ := blockhash.(string)
	if _, ok := ParseKey(authorizer); !ok || tokenProgram == "" {
		return nil, missing
	}
	if _, ok := U64(openSlot); !ok {
		return nil, missing
	}
	if _, ok := ParseKey(bh); !ok {
		return nil, missing
	}
	choice := jsonv.Obj("required", read.Required, "accepted", accepted, "payer", acct.Address, "now", now,
		"payerAuthorizer", authorizer, "openSlot", openSlot, "tokenProgram", tokenProgram)
	if v, has := inputs.Get("computeUnitLimit"); has {
		if n, ok := jsonv.AsSafeInt(v); !ok || n < 0 {
			return nil, missing
		}
		choice.Set("computeUnitLimit", v)
	}
	if v, has := inputs.Get("computeUnitPrice"); has {
		if s, ok := v.(string); !ok || !rails.IsDecimal(s) {
			return nil, missing
		}
		choice.Set("computeUnitPrice", v)
	}
	choice.Set("recentBlockhash", bh)
	salt := ""
	if v, has := inputs.Get("salt"); has {
		s, _ := v.(string)
		if _, ok := U64(s); !ok {
			return nil, missing
		}
		salt = s
	} else {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, missing // no randomness: nothing to salt the channel with
		}
		salt = strconv.FormatUint(binary.BigEndian.Uint64(b[:]), 10)
	}
	deposit, err := x402.Deposit(accepted, inputs)
	if err != nil {
		return nil, err
	}
	choice.Set("deposit", deposit.String())
	choice.Set("salt", salt)
	return choice, nil
}

// ChannelAddress is the channel's program-derived address under the
// payment-channels program: seeds "channel", payer, payee (the option's fee
// payer), mint, the voucher signer, salt and openSlot (u64 little-endian).
func ChannelAddress(payer, payee, mint, signer Key, salt, openSlot uint64) (Key, uint8, error) {
	seeds := [][]byte{[]byte("channel"), payer[:], payee[:], mint[:], signer[:],
		binary.LittleEndian.AppendUint64(nil, salt), binary.LittleEndian.AppendUint64(nil, openSlot)}
	return FindProgramAddress(seeds, ChannelProgram)
}

// OpenData is the open instruction's 67 bytes: 01 ‖ salt ‖ deposit ‖
// grace period (u32) ‖ openSlot ‖ one recipient (count 1, the key, 10 000
// basis points), little-endian.
func OpenData(salt, deposit uint64, grace uint32, openSlot uint64, recipient Key) []byte {
	b := []byte{1}
	b = binary.LittleEndian.AppendUint64(b, salt)
	b = binary.LittleEndian.AppendUint64(b, deposit)
	b = binary.LittleEndian.AppendUint32(b, grace)
	b = binary.LittleEndian.AppendUint64(b, openSlot)
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = append(b, recipient[:]...)
	return binary.LittleEndian.AppendUint16(b, 10_000)
}

// VoucherMessage is the 50 bytes a channel voucher signs: 56 01 ‖ channel
// ‖ cumulative u64le ‖ expiresAt i64le.
func VoucherMessage(channel Key, cumulative uint64, expiresAt int64) []byte {
	b := make([]byte, 0, VoucherLen)
	b = append(b, 0x56, 0x01)
	b = append(b, channel[:]...)
	b = binary.LittleEndian.AppendUint64(b, cumulative)
	return binary.LittleEndian.AppendUint64(b, uint64(expiresAt))
}

// ParseVoucher reads a voucher message: exactly VoucherLen bytes starting
// 56 01. ok is false for anything else.
func ParseVoucher(b []byte) (channel Key, cumulative uint64, expiresAt int64, ok bool) {
	if len(b) != VoucherLen || b[0] != 0x56 || b[1] != 0x01 {
		return Key{}, 0, 0, false
	}
	copy(channel[:], b[2:34])
	return channel, binary.LittleEndian.Uint64(b[34:42]), int64(binary.LittleEndian.Uint64(b[42:50])), true
}

// channelTx is what a channel transaction needs besides its instruction.
type channelTx struct {
	feePayer, payer, mint, tokenProgram, blockhash Key
	memo                                           *string
	limit                                          uint32
	price                                          uint64
}

// openIx is the open instruction with its 14 accounts in the program's
// order; the fee payer pays the rent and is the payee.
func (c channelTx) openIx(channel, signer Key, data []byte) (Ix, error) {
	payerATA, err1 := AssociatedTokenAccount(c.payer, c.tokenProgram, c.mint)
	channelATA, err2 := AssociatedTokenAccount(channel, c.tokenProgram, c.mint)
	if err1 != nil || err2 != nil {
		return Ix{}, rails.Refuse(CodeInputMalformed)
	}
	return Ix{Program: ChannelProgram, Data: data, Accounts: []AccountMeta{
		{Key: c.payer, Signer: true, Writable: true}, {Key: c.feePayer, Signer: true, Writable: true}, {Key: c.feePayer},
		{Key: c.mint}, {Key: signer}, {Key: channel, Writable: true}, {Key: payerATA, Writable: true},
		{Key: channelATA, Writable: true}, {Key: c.tokenProgram}, {Key: SystemProgram}, {Key: RentSysvar},
		{Key: AssociatedTokenProg}, {Key: eventAuthority}, {Key: ChannelProgram},
	}}, nil
}

// requestCloseIx is request_close (data 05): the payer as a read-only
// signer, the channel writable.
func requestCloseIx(payer, channel Key) Ix {
	return Ix{Program: ChannelProgram, Data: []byte{5}, Accounts: []AccountMeta{
		{Key: payer, Signer: true}, {Key: channel, Writable: true},
	}}
}

// message compiles the compute budget, the channel instruction and the
// memo, when there is one.
func (c channelTx) message(ix Ix) []byte {
	ixs := append(ComputeBudgetIxs(c.limit, c.price), ix)
	if c.memo != nil {
		ixs = append(ixs, Ix{Program: MemoV3, Data: []byte(*c.memo)})
	}
	return CompileV0(c.feePayer, c.blockhash, ixs)
}

// budget reads a compute budget: the limit a safe integer in [0, 2^32−1],
// the price a decimal below 2^64; absent, the defaults.
func budget(limitV jsonv.Value, hasLimit bool, price *big.Int) (uint32, uint64, bool) {
	limit := int64(DefaultChannelComputeUnits)
	if hasLimit {
		var ok bool
		if limit, ok = jsonv.AsSafeInt(limitV); !ok || limit < 0 || limit > 0xffffffff {
			return 0, 0, false
		}
	}
	p := uint64(DefaultMicroLamports)
	if price != nil {
		if price.Sign() < 0 || price.Cmp(two64) >= 0 {
			return 0, 0, false
		}
		p = price.Uint64()
	}
	return uint32(limit), p, true
}

// batchUnsigned is the built opening.
type batchUnsigned struct {
	required, accepted *jsonv.Object
	network            string
	payer              Key
	authorizer         string
	channel            Key
	config             *jsonv.Object
	deposit, amount    string
	message, voucher   []byte
	validUntil         int64 // Unix seconds: now + OpeningPayableSeconds
}

// payableU64: an amount below 2^64 and a positive safe-integer timeout.
func payableU64(o *jsonv.Object) (uint64, bool) {
	s, _ := o.GetString("amount")
	amount, ok := U64(s)
	tv, _ := o.Get("maxTimeoutSeconds")
	timeout, okT := jsonv.AsSafeInt(tv)
	return amount, ok && okT && timeout > 0
}

// Build checks the choice and builds the opening: the open transaction's
// message, whose one memo must be the option's extra.memo and equal
// Carrier(h) (svm/carrier-mismatch), and the first voucher, for the
// option's amount.
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
	var revived [3]*big.Int
	for i, k := range []string{"deposit", "salt", "openSlot"} {
		n, err := x402.ReviveDecimal(c, k)
		if err != nil {
			return nil, err
		}
		revived[i] = n
	}
	deposit, salt, openSlot := revived[0], revived[1], revived[2]
	var price *big.Int
	if c.Has("computeUnitPrice") {
		n, err := x402.ReviveDecimal(c, "computeUnitPrice")
		if err != nil {
			return nil, err
		}
		price = n
	}
	if err := x402.Chosen(required, accepted, p.serves); err != nil {
		return nil, err
	}
	amount, ok := payableU64(accepted)
	nv, _ := c.Get("now")
	now, okNow := jsonv.AsSafeInt(nv)
	if !ok || !okNow || now < 0 || now > maxSafeInt-OpeningPayableSeconds {
		return nil, rails.Refuse(x402.CodeOptionMalformed)
	}
	extra, _ := accepted.GetObject("extra")
	memo, _ := extra.GetString("memo")
	if memo != Carrier(h) {
		return nil, rails.Refuse(CodeCarrierMismatch)
	}
	malformed := rails.Refuse(CodeInputMalformed)
	tpText, _ := c.GetString("tokenProgram")
	if optTP, _ := extra.GetString("tokenProgram"); tpText != optTP || deposit.Sign() <= 0 || deposit.Cmp(two64) >= 0 {
		return nil, malformed
	}
	keys := map[string]Key{}
	for _, f := range []struct {
		o *jsonv.Object
		k string
	}{{c, "payer"}, {extra, "feePayer"}, {accepted, "asset"}, {c, "payerAuthorizer"}} {
		s, _ := f.o.GetString(f.k)
		k, ok := ParseKey(s)
		if !ok {
			return nil, malformed
		}
		keys[f.k] = k
	}
	if salt.Cmp(two64) >= 0 || openSlot.Cmp(two64) >= 0 {
		return nil, malformed
	}
	channel, _, err := ChannelAddress(keys["payer"], keys["feePayer"], keys["asset"], keys["payerAuthorizer"], salt.Uint64(), openSlot.Uint64())
	if err != nil {
		return nil, rails.Refuse(CodePDANotFound)
	}
	if openSlot.Uint64() > maxSafeInt {
		return nil, malformed
	}
	tokenProgram, _ := ParseKey(tpText)
	payTo, okPT := ParseKey(mustString(accepted, "payTo"))
	bhText, _ := c.GetString("recentBlockhash")
	blockhash, okBH := ParseKey(bhText)
	lv, hasLimit := c.Get("computeUnitLimit")
	limit, microLamports, okB := budget(lv, hasLimit, price)
	if !okPT || !okBH || !okB {
		return nil, malformed
	}
	dv, _ := extra.Get("withdrawDelay")
	delay, _ := jsonv.AsSafeInt(dv)
	tx := channelTx{feePayer: keys["feePayer"], payer: keys["payer"], mint: keys["asset"], tokenProgram: tokenProgram,
		blockhash: blockhash, memo: &memo, limit: limit, price: microLamports}
	open, err := tx.openIx(channel, keys["payerAuthorizer"], OpenData(salt.Uint64(), deposit.Uint64(), uint32(delay), openSlot.Uint64(), payTo))
	if err != nil {
		return nil, err
	}
	authorizer, _ := c.GetString("payerAuthorizer")
	payer, _ := c.GetString("payer")
	config := jsonv.Obj("payer", payer, "payerAuthorizer", authorizer, "receiver", mustString(accepted, "payTo"))
	if ra, ok := extra.GetString("receiverAuthorizer"); ok {
		config.Set("receiverAuthorizer", ra)
	}
	config.Set("token", mustString(accepted, "asset"))
	config.Set("withdrawDelay", jsonv.Clone(dv))
	config.Set("salt", salt.String())
	config.Set("openSlot", jsonv.Number(openSlot.Uint64())) // at most 2^53−1: checked above
	network, _ := accepted.GetString("network")
	return &batchUnsigned{
		required: required, accepted: accepted, network: network, payer: keys["payer"], authorizer: authorizer,
		channel: channel, config: config, deposit: deposit.String(), amount: strconv.FormatUint(amount, 10),
		message: tx.message(open), voucher: VoucherMessage(channel, amount, 0), validUntil: now + OpeningPayableSeconds,
	}, nil
}

func mustString(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }

func hex0x(b []byte) string { return "0x" + hex.EncodeToString(b) }

// messageRequest is a solana-message request: a Solana message names no
// network, so the request does, for the spend policy.
func messageRequest(msg []byte, network string) rails.Request {
	return jsonv.Obj("kind", "solana-message", "message", hex0x(msg), "network", network)
}

// voucherRequest is an ed25519-raw request for the voucher signer, with the
// network for the spend policy.
func voucherRequest(msg []byte, signer, network string) rails.Request {
	return jsonv.Obj("kind", "ed25519-raw", "message", hex0x(msg), "signer", signer, "network", network)
}

// Request is one batch: the open transaction's message for the payer (with
// validUntil, the Unix time OpeningPayableSeconds after the build, for the
// spend policy), then the first voucher for the payer's authorizer.
func (Batch) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*batchUnsigned)
	open := messageRequest(b.message, b.network)
	open.Set("validUntil", jsonv.Number(b.validUntil))
	return jsonv.Obj("kind", rails.KindBatch, "requests", []jsonv.Value{open, voucherRequest(b.voucher, b.authorizer, b.network)}), nil
}

// Base58Signature reads a signer's answer to a Solana request: base58 of
// at most 90 characters decoding to 64 bytes.
func Base58Signature(v jsonv.Value) ([]byte, bool) {
	s, ok := v.(string)
	if !ok || len(s) > maxSignatureBase58 {
		return nil, false
	}
	b, ok := DecodeBase58(s)
	return b, ok && len(b) == 64
}

// batchSignatures reads a batch answer: exactly n Base58Signatures.
func batchSignatures(answer jsonv.Value, n int) ([][]byte, bool) {
	list, ok := jsonv.AsArray(answer)
	if !ok || len(list) != n {
		return nil, false
	}
	out := make([][]byte, n)
	for i, v := range list {
		if out[i], ok = Base58Signature(v); !ok {
			return nil, false
		}
	}
	return out, true
}

// signedWire puts the payer's signature into its slot of msg's wire: the
// payer not a signer is svm/input-malformed, a wire that does not decode
// svm/tx-malformed.
func signedWire(msg []byte, payer Key, sig []byte) (string, error) {
	wire, ok := SignedWire(msg, payer, sig)
	if !ok {
		return "", rails.Refuse(CodeInputMalformed)
	}
	if _, ok, _ := DecodeTx(wire); !ok {
		return "", rails.Refuse(CodeTxMalformed)
	}
	return base64.StdEncoding.EncodeToString(wire), nil
}

// Complete joins the payer's signature of the open transaction and the
// authorizer's voucher signature into the deposit payment, then appends
// the payment identifier. The fee payer's slot stays zero: the seller
// co-signs before it sends.
func (Batch) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*batchUnsigned)
	sigs, ok := batchSignatures(answer, 2)
	if !ok {
		return rails.Completion{}, rails.Refuse(CodeInputMalformed)
	}
	wire, err := signedWire(b.message, b.payer, sigs[0])
	if err != nil {
		return rails.Completion{}, err
	}
	payload := jsonv.Obj(
		"type", "deposit",
		"channelConfig", b.config.Clone(),
		"voucher", jsonv.Obj("channelId", b.channel.String(), "maxClaimableAmount", b.amount, "expiresAt", 0,
			"signature", Base58(sigs[1])),
		"deposit", jsonv.Obj("amount", b.deposit, "transaction", wire),
	)
	payment := x402.Payment(b.required, b.accepted, payload)
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// ChannelConfig is a Solana channel's configuration as a payment carries
// it.
type ChannelConfig struct {
	Payer, PayerAuthorizer, Receiver, Token Key
	ReceiverAuthorizer                      *Key
	WithdrawDelay                           int64
	Salt, OpenSlot                          uint64
}

// ChannelConfigOf reads a channelConfig: payer, payerAuthorizer, receiver
// and token keys, receiverAuthorizer a key when present, a safe-integer
// withdrawDelay, salt a decimal string below 2^64 and openSlot a safe
// integer ≥ 0.
func ChannelConfigOf(v jsonv.Value) (ChannelConfig, bool) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return ChannelConfig{}, false
	}
	var c ChannelConfig
	for _, f := range []struct {
		k   string
		dst *Key
	}{{"payer", &c.Payer}, {"payerAuthorizer", &c.PayerAuthorizer}, {"receiver", &c.Receiver}, {"token", &c.Token}} {
		s, _ := o.GetString(f.k)
		if *f.dst, ok = ParseKey(s); !ok {
			return ChannelConfig{}, false
		}
	}
	if v, has := o.Get("receiverAuthorizer"); has {
		s, _ := v.(string)
		k, ok := ParseKey(s)
		if !ok {
			return ChannelConfig{}, false
		}
		c.ReceiverAuthorizer = &k
	}
	dv, _ := o.Get("withdrawDelay")
	if c.WithdrawDelay, ok = jsonv.AsSafeInt(dv); !ok {
		return ChannelConfig{}, false
	}
	salt, _ := o.GetString("salt")
	if c.Salt, ok = U64(salt); !ok {
		return ChannelConfig{}, false
	}
	sv, _ := o.Get("openSlot")
	slot, ok := jsonv.AsSafeInt(sv)
	if !ok || slot < 0 {
		return ChannelConfig{}, false
	}
	c.OpenSlot = uint64(slot)
	return c, true
}

// Address is the channel the configuration names when the seller's fee
// payer is payee.
func (c ChannelConfig) Address(payee Key) (Key, error) {
	k, _, err := ChannelAddress(c.Payer, payee, c.Token, c.PayerAuthorizer, c.Salt, c.OpenSlot)
	if err != nil {
		return Key{}, rails.Refuse(CodePDANotFound)
	}
	return k, nil
}

// ChannelIx is a transaction's one payment-channels instruction.
type ChannelIx struct {
	Kind    string // "open", "top_up" or "request_close"
	Channel Key
	Data    []byte
}

// channelShapes are the instructions a channel payment may carry, by
// discriminator: kind, account count and the channel account's position.
var channelShapes = map[byte]struct {
	kind          string
	accounts, pos int
}{1: {"open", 14, 5}, 3: {"top_up", 6, 1}, 5: {"request_close", 2, 1}}

// ChannelInstruction reads tx's one top-level payment-channels
// instruction: none is svm/no-channel-instruction; several, an unknown
// discriminator, the wrong account count or a channel account outside the
// static keys svm/channel-instruction.
func ChannelInstruction(tx *Tx) (ChannelIx, error) {
	var found *Instruction
	for i := range tx.Instructions {
		if k, ok := tx.ProgramOf(tx.Instructions[i]); ok && k == ChannelProgram {
			if found != nil {
				return ChannelIx{}, rails.Refuse(CodeChannelIx)
			}
			found = &tx.Instructions[i]
		}
	}
	if found == nil {
		return ChannelIx{}, rails.Refuse(CodeNoChannelIx)
	}
	if len(found.Data) == 0 {
		return ChannelIx{}, rails.Refuse(CodeChannelIx)
	}
	shape, ok := channelShapes[found.Data[0]]
	if !ok || len(found.Accounts) != shape.accounts || int(found.Accounts[shape.pos]) >= len(tx.Keys) {
		return ChannelIx{}, rails.Refuse(CodeChannelIx)
	}
	return ChannelIx{Kind: shape.kind, Channel: tx.Keys[found.Accounts[shape.pos]], Data: found.Data}, nil
}

// txOf is a payment's transaction: deposit.transaction, or
// payload.transaction when deposit is not an object. nil, nil when there
// is none.
func txOf(payload *jsonv.Object) (*Tx, error) {
	var v jsonv.Value
	var has bool
	if d, ok := payload.GetObject("deposit"); ok {
		v, has = d.Get("transaction")
	} else {
		v, has = payload.Get("transaction")
	}
	if !has {
		return nil, nil
	}
	return WireOf(v)
}

// channelOf reads the channel a payment names: the configuration's address
// (payee the option's fee payer), which the voucher, when there is one,
// and the transaction's channel instruction, when there is one, must name
// (svm/channel-id-mismatch).
func (p Batch) channelOf(signed jsonv.Value) (accepted, payload *jsonv.Object, c ChannelConfig, channel Key, tx *Tx, err error) {
	accepted, payload, err = x402.Presented(signed, p.serves)
	if err != nil {
		return
	}
	c, channel, _, tx, err = channelIn(accepted, payload, nil)
	return
}

// channelIn is channelOf's reading of a payment's option and payload; tx,
// when not nil, is the payload's transaction already decoded (Bound's), so
// that it is not decoded twice. It also returns the channel in base58.
func channelIn(accepted, payload *jsonv.Object, decoded *Tx) (c ChannelConfig, channel Key, text string, tx *Tx, err error) {
	cv, _ := payload.Get("channelConfig")
	c, ok := ChannelConfigOf(cv)
	if !ok {
		err = rails.Refuse(x402.CodePayloadMalformed)
		return
	}
	extra, _ := accepted.GetObject("extra")
	feePayer, _ := ParseKey(mustString(extra, "feePayer")) // serves checked it
	if channel, err = c.Address(feePayer); err != nil {
		return
	}
	text = channel.String()
	mismatch := rails.Refuse(CodeChannelIDMismatch)
	if v, has := payload.Get("voucher"); has {
		voucher, _ := jsonv.AsObject(v)
		if id, _ := voucher.GetString("channelId"); id != text {
			err = mismatch
			return
		}
	}
	if tx = decoded; tx == nil {
		if tx, err = txOf(payload); err != nil || tx == nil {
			return
		}
	}
	ix, err := ChannelInstruction(tx)
	if err != nil {
		return
	}
	if ix.Channel != channel {
		err = mismatch
	}
	return
}

// Bound reads H back out of an opening: the transaction's one memo (as
// x402/exact/solana reads it: spelled canonically, equal to the option's
// extra.memo), once its channel instruction is open and names the channel
// the configuration derives. No signature is verified.
func (p Batch) Bound(presented jsonv.Value) (string, error) {
	accepted, payload, err := x402.Presented(presented, p.serves)
	if err != nil {
		return "", err
	}
	if t, _ := payload.Get("type"); t != "deposit" {
		return "", rails.Refuse(x402.CodeNotAnOpening)
	}
	tx, err := txOf(payload)
	if err != nil {
		return "", err
	}
	if tx == nil {
		return "", rails.Refuse(x402.CodePayloadMalformed)
	}
	h, err := boundOf(accepted, tx)
	if err != nil {
		return "", err
	}
	ix, err := ChannelInstruction(tx)
	if err != nil {
		return "", err
	}
	if ix.Kind != "open" {
		return "", rails.Refuse(x402.CodeNotAnOpening)
	}
	if _, _, _, _, err := channelIn(accepted, payload, tx); err != nil {
		return "", err
	}
	return h, nil
}

// ChannelKind: a deposit whose channel instruction is open opens, one
// whose instruction is top_up is within; a voucher is within; a refund
// (request_close) closes.
func (p Batch) ChannelKind(signed jsonv.Value) (rails.ChannelKind, error) {
	_, payload, err := x402.Presented(signed, p.serves)
	if err != nil {
		return "", err
	}
	switch t, _ := payload.Get("type"); t {
	case "voucher":
		return rails.ChannelWithin, nil
	case "refund":
		return rails.ChannelClose, nil
	case "deposit":
		tx, err := txOf(payload)
		if err != nil || tx == nil {
			return "", rails.Refuse(x402.CodePayloadMalformed)
		}
		ix, err := ChannelInstruction(tx)
		if err != nil {
			return "", err
		}
		switch ix.Kind {
		case "open":
			return rails.ChannelOpen, nil
		case "top_up":
			return rails.ChannelWithin, nil
		}
	}
	return "", rails.Refuse(x402.CodeChannelKindUnknown)
}

// ChannelRef is the option's network and the channel address, in base58.
func (p Batch) ChannelRef(signed jsonv.Value) (rails.ChannelRef, error) {
	accepted, payload, err := x402.Presented(signed, p.serves)
	if err != nil {
		return rails.ChannelRef{}, err
	}
	_, _, text, _, err := channelIn(accepted, payload, nil)
	if err != nil {
		return rails.ChannelRef{}, err
	}
	network, _ := accepted.GetString("network")
	return rails.ChannelRef{Network: network, Channel: text}, nil
}

// BoundWithin refuses: a voucher signs no commitment to H, only the
// channel, whose opening carried it.
func (Batch) BoundWithin(jsonv.Value) (string, error) {
	return "", rails.Refuse(CodeNotBoundWithin)
}

// CheckWithinInputs refuses, before anything is built, the buyer inputs a
// close's request_close would take when they are given and malformed:
// recentBlockhash not a key, computeUnitLimit not an integer in
// [0, 2^32−1], computeUnitPrice not a decimal below 2^64
// (x402/input-malformed). A voucher takes no inputs.
func (Batch) CheckWithinInputs(action rails.WithinAction, inputs *jsonv.Object) error {
	if action == rails.WithinVoucher {
		return nil
	}
	bad := rails.Refuse(CodeWithinInputInvalid)
	if v, has := inputs.Get("recentBlockhash"); has && !IsKey(v) {
		return bad
	}
	if v, has := inputs.Get("computeUnitLimit"); has {
		if n, ok := jsonv.AsSafeInt(v); !ok || n < 0 || n > 0xffffffff {
			return bad
		}
	}
	if v, has := inputs.Get("computeUnitPrice"); has {
		if s, ok := v.(string); !ok {
			return bad
		} else if _, ok := U64(s); !ok {
			return bad
		}
	}
	return nil
}

// batchWithin is a voucher or a close on a held channel.
type batchWithin struct {
	required, accepted *jsonv.Object
	config             *jsonv.Object // exactly as the opening sent it
	payer              Key
	channel            Key
	maxClaimable       string
	close              bool
	request            rails.Request
	message            []byte
}

func (w *batchWithin) Requests() []rails.Request { return []rails.Request{w.request.Clone()} }

// Complete takes the one signature and returns the payment: a voucher
// {type: voucher, channelConfig, voucher}, or the close {type: refund,
// channelConfig, transaction} (no amount, no voucher), with a fresh payment
// identifier where the document advertises one.
func (w *batchWithin) Complete(answers []string) (jsonv.Value, error) {
	if len(answers) != 1 {
		return nil, rails.Refuse(CodeInputMalformed)
	}
	sig, ok := Base58Signature(answers[0])
	if !ok {
		return nil, rails.Refuse(CodeInputMalformed)
	}
	payload := jsonv.Obj("type", "voucher", "channelConfig", w.config.Clone())
	if w.close {
		wire, err := signedWire(w.message, w.payer, sig)
		if err != nil {
			return nil, err
		}
		payload.Set("type", "refund")
		payload.Set("transaction", wire)
	} else {
		payload.Set("voucher", jsonv.Obj("channelId", w.channel.String(), "maxClaimableAmount", w.maxClaimable,
			"expiresAt", 0, "signature", Base58(sig)))
	}
	payment := x402.Payment(w.required, w.accepted, payload)
	if err := x402.AppendPaymentIdentifier(payment, w.required, rails.NewRef()); err != nil {
		return nil, err
	}
	return payment, nil
}

// BuildWithin builds, on the held opening's channel, a voucher for
// w.Cumulative (below 2^64, svm/input-malformed), or the close: a
// request_close transaction for the payer with the compute budget from
// w.Inputs (or the defaults), the option's extra.recentBlockhash or the
// buyer's (none is svm/input-malformed) and the option's extra.memo when it
// has one, which must then carry h (svm/carrier-mismatch). A partial refund
// is not built on Solana (svm/input-malformed). The channel comes from the
// opening's configuration and the option's fee payer, never from anything
// else in the new document.
func (p Batch) BuildWithin(w rails.Within, h atr.Hash) (rails.InChannel, error) {
	if w.Required == nil || w.Accepted == nil {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	if err := x402.Chosen(w.Required, w.Accepted, p.serves); err != nil {
		return nil, err
	}
	payload, _ := w.Opening.GetObject("payload")
	cv, _ := payload.GetObject("channelConfig")
	c, ok := ChannelConfigOf(cv)
	if !ok {
		return nil, rails.Refuse(x402.CodePayloadMalformed)
	}
	extra, _ := w.Accepted.GetObject("extra")
	feePayer, _ := ParseKey(mustString(extra, "feePayer"))
	channel, err := c.Address(feePayer)
	if err != nil {
		return nil, err
	}
	network, _ := w.Accepted.GetString("network")
	b := &batchWithin{required: w.Required, accepted: w.Accepted, config: cv, payer: c.Payer, channel: channel}
	malformed := rails.Refuse(CodeInputMalformed)
	switch w.Action {
	case rails.WithinVoucher:
		if w.Cumulative == nil || w.Cumulative.Sign() < 0 || w.Cumulative.Cmp(two64) >= 0 {
			return nil, malformed
		}
		b.maxClaimable = w.Cumulative.String()
		b.request = voucherRequest(VoucherMessage(channel, w.Cumulative.Uint64(), 0), c.PayerAuthorizer.String(), network)
		return b, nil
	case rails.WithinClose:
	default:
		return nil, malformed
	}
	var memo *string
	if m, has := extra.Get("memo"); has {
		s, _ := m.(string)
		if s != Carrier(h) {
			return nil, rails.Refuse(CodeCarrierMismatch)
		}
		memo = &s
	}
	bh, offered := extra.Get("recentBlockhash")
	if !offered {
		bh, _ = w.Inputs.Get("recentBlockhash")
	}
	blockhash, ok := ParseKey(mustStringV(bh))
	if !ok {
		return nil, malformed
	}
	var price *big.Int
	if v, has := w.Inputs.Get("computeUnitPrice"); has {
		s, _ := v.(string)
		if !rails.IsDecimal(s) {
			return nil, malformed
		}
		price, _ = new(big.Int).SetString(s, 10)
	}
	lv, hasLimit := w.Inputs.Get("computeUnitLimit")
	limit, microLamports, ok := budget(lv, hasLimit, price)
	if !ok {
		return nil, malformed
	}
	tokenProgram, _ := ParseKey(mustString(extra, "tokenProgram"))
	tx := channelTx{feePayer: feePayer, payer: c.Payer, mint: c.Token, tokenProgram: tokenProgram, blockhash: blockhash,
		memo: memo, limit: limit, price: microLamports}
	b.close = true
	b.message = tx.message(requestCloseIx(c.Payer, channel))
	b.request = messageRequest(b.message, network)
	return b, nil
}

func mustStringV(v jsonv.Value) string { s, _ := v.(string); return s }
