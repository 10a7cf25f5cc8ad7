package solana

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/x402"
)

// Exact is x402/exact/solana: a v0 transaction the payer signs and the
// seller's fee payer co-signs and sends, moving amount of the option's mint
// with TransferChecked. Where H goes: the transaction's one Memo
// instruction, whose data is lcp:sha256:0x<H> — the option's extra.memo,
// which the seller sets to exactly that. The memo is in the executed
// instruction data on chain, so the payment is a public proof.
type Exact struct{}

// ExactID is the pairing id.
const ExactID = "x402/exact/solana"

// Refusal codes of the Solana pairings.
const (
	CodeInputMalformed     = "svm/input-malformed"
	CodeCarrierMismatch    = "svm/carrier-mismatch"
	CodeCarrierNotCanon    = "svm/carrier-not-canonical"
	CodeMemoCount          = "svm/memo-count"
	CodeMemoNotUTF8        = "svm/memo-not-utf8"
	CodeMemoNotLCP         = "svm/memo-not-lcp"
	CodeTxMalformed        = "svm/tx-malformed"
	CodeTxTooLarge         = "svm/tx-too-large"
	CodeNonceNotStatic     = "svm/nonce-account-not-static"
	CodeNetworkMalformed   = "svm/network-malformed"
	DefaultComputeUnits    = 40_000 // SetComputeUnitLimit when the buyer names none
	DefaultMicroLamports   = 1      // SetComputeUnitPrice when the buyer names none
	maxMemoBytes           = 256
	lcpPrefix              = "lcp:sha256:"
	sysvarRecentBlockhashe = "SysvarRecentB1ockHashes11111111111111111111"
)

var (
	_ rails.Pairing    = Exact{}
	_ rails.Summarizer = Exact{}
	_ rails.Inspector  = Exact{}

	recentBlockhashesSysvar = MustKey(sysvarRecentBlockhashe)
)

func (Exact) ID() string { return ExactID }

func (Exact) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

// Carrier is the memo text that carries h: lcp:sha256:0x and 64 lowercase
// hex digits.
func Carrier(h atr.Hash) string { return lcpPrefix + h.String() }

// serves is the option filter: exact on a Solana network, a mint and payee
// key, extra.feePayer a key, extra.memo absent or at most 256 bytes.
func (Exact) serves(o *jsonv.Object) bool {
	if s, _ := o.GetString("scheme"); s != "exact" {
		return false
	}
	n, _ := o.GetString("network")
	asset, _ := o.Get("asset")
	payTo, _ := o.Get("payTo")
	if !IsNetwork(n) || !IsKey(asset) || !IsKey(payTo) {
		return false
	}
	extra, ok := o.GetObject("extra")
	if !ok {
		return false
	}
	if fp, _ := extra.Get("feePayer"); !IsKey(fp) {
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

func (p Exact) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, p.serves) }

// accountKey reads a solana CAIP-10 account's key.
func accountKey(account string) (rails.Account, Key, bool) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "solana" {
		return rails.Account{}, Key{}, false
	}
	k, ok := ParseKey(acct.Address)
	return acct, k, ok
}

// Choose takes the first served option on the account's network and the
// buyer's reads of the chain: the mint's decimals and token program, the
// recent blockhash (the option's extra.recentBlockhash wins when it names
// one), and optionally the compute budget. The choice records now (Unix
// seconds), from which the build states how long the signed transaction
// stays payable.
func (Exact) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, _, ok := accountKey(account)
	if !ok {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	accepted := x402.OptionOn(read.Options, acct.Network())
	if accepted == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	missing := rails.Refuse(x402.CodeInputMissing)
	choice := jsonv.Obj("required", read.Required, "accepted", accepted, "payer", acct.Address, "now", now)
	dv, _ := inputs.Get("decimals")
	if _, ok := jsonv.AsSafeInt(dv); !ok {
		return nil, missing
	}
	choice.Set("decimals", dv)
	if tp, _ := inputs.GetString("tokenProgram"); tp == "" {
		return nil, missing
	} else {
		choice.Set("tokenProgram", tp)
	}
	extra, _ := accepted.GetObject("extra")
	offered, _ := extra.GetString("recentBlockhash")
	if offered == "" {
		bh, _ := inputs.GetString("recentBlockhash")
		if bh == "" {
			return nil, missing
		}
		choice.Set("recentBlockhash", bh)
	}
	if v, has := inputs.Get("computeUnitLimit"); has {
		if _, ok := jsonv.AsSafeInt(v); !ok {
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
	if offered != "" {
		choice.Set("recentBlockhash", offered)
	}
	return choice, nil
}

// exactUnsigned is the built message and what completes it.
type exactUnsigned struct {
	required, accepted *jsonv.Object
	payer              Key
	network            string
	message            []byte
	validUntil         int64 // Unix seconds: the choice's now + BlockhashPayableSeconds
}

// Build checks the choice and compiles the message: the compute budget,
// TransferChecked of amount from the payer's token account to the payee's,
// and one Memo v3 instruction whose data is extra.memo, which must be
// Carrier(h) (svm/carrier-mismatch). The choice's now must be a safe
// integer from 0 (x402/choice-malformed): the signed transaction stays
// payable until BlockhashPayableSeconds after it.
func (p Exact) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	required, ok1 := c.GetObject("required")
	accepted, ok2 := c.GetObject("accepted")
	if !ok1 || !ok2 {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	priceBig := big.NewInt(DefaultMicroLamports)
	if v, has := c.Get("computeUnitPrice"); has {
		s, ok := v.(string)
		if !ok || !rails.IsDecimal(s) {
			return nil, rails.Refuse(x402.CodeChoiceMalformed)
		}
		priceBig, _ = new(big.Int).SetString(s, 10)
	}
	nv, _ := c.Get("now")
	now, ok := jsonv.AsSafeInt(nv)
	until, okUntil := payableUntil(now)
	if !ok || !okUntil {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	if err := x402.Chosen(required, accepted, p.serves); err != nil {
		return nil, err
	}
	amountText, _ := accepted.GetString("amount")
	amount, ok := U64(amountText)
	if !ok {
		return nil, rails.Refuse(x402.CodeOptionMalformed)
	}
	extra, _ := accepted.GetObject("extra")
	if memo, _ := extra.GetString("memo"); memo != Carrier(h) {
		return nil, rails.Refuse(CodeCarrierMismatch)
	}
	malformed := rails.Refuse(CodeInputMalformed)
	tpText, _ := c.GetString("tokenProgram")
	tokenProgram, ok := ParseKey(tpText)
	if !ok || tokenProgram != TokenProgram && tokenProgram != Token2022Program {
		return nil, malformed
	}
	var feePayer, payer, mint, payTo, blockhash Key
	for _, f := range []struct {
		o   *jsonv.Object
		k   string
		dst *Key
	}{{extra, "feePayer", &feePayer}, {c, "payer", &payer}, {accepted, "asset", &mint}, {accepted, "payTo", &payTo}, {c, "recentBlockhash", &blockhash}} {
		s, _ := f.o.GetString(f.k)
		if *f.dst, ok = ParseKey(s); !ok {
			return nil, malformed
		}
	}
	dv, _ := c.Get("decimals")
	decimals, ok := jsonv.AsSafeInt(dv)
	if !ok || decimals > 255 {
		return nil, malformed
	}
	limit := int64(DefaultComputeUnits)
	if v, has := c.Get("computeUnitLimit"); has {
		if limit, ok = jsonv.AsSafeInt(v); !ok || limit > 0xffffffff {
			return nil, malformed
		}
	}
	if priceBig.Cmp(two64) >= 0 {
		return nil, malformed
	}
	price := priceBig.Uint64()
	source, err1 := AssociatedTokenAccount(payer, tokenProgram, mint)
	destination, err2 := AssociatedTokenAccount(payTo, tokenProgram, mint)
	if err1 != nil || err2 != nil {
		return nil, malformed
	}
	transfer := binary.LittleEndian.AppendUint64([]byte{12}, amount)
	transfer = append(transfer, byte(decimals))
	ixs := append(ComputeBudgetIxs(uint32(limit), price),
		Ix{Program: tokenProgram, Data: transfer, Accounts: []AccountMeta{
			{Key: source, Writable: true}, {Key: mint}, {Key: destination, Writable: true}, {Key: payer, Signer: true},
		}},
		Ix{Program: MemoV3, Data: []byte(Carrier(h))},
	)
	network, _ := accepted.GetString("network")
	return &exactUnsigned{required: required, accepted: accepted, payer: payer, network: network, message: CompileV0(feePayer, blockhash, ixs),
		validUntil: until}, nil
}

// Request is {kind: "solana-message", message: 0x hex of the message,
// network, validUntil}: a Solana message names neither its network nor
// how long it stays payable, so the request does, for the spend policy.
func (Exact) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*exactUnsigned)
	return jsonv.Obj("kind", "solana-message", "message", "0x"+hex.EncodeToString(b.message), "network", b.network,
		"validUntil", jsonv.Number(b.validUntil)), nil
}

// Signature64 reads a signer's Ed25519 signature: 64 bytes as 0x hex, or as
// base58 of at most 90 characters.
func Signature64(v jsonv.Value) ([]byte, bool) {
	s, ok := v.(string)
	if !ok {
		return nil, false
	}
	var b []byte
	if strings.HasPrefix(s, "0x") {
		if len(s) != 130 {
			return nil, false
		}
		b, ok = hexBytes(s[2:])
	} else {
		if len(s) > 90 {
			return nil, false
		}
		b, ok = DecodeBase58(s)
	}
	return b, ok && len(b) == 64
}

func hexBytes(s string) ([]byte, bool) {
	b, err := hex.DecodeString(s)
	return b, err == nil
}

// Complete puts the payer's signature in its slot of the wire (zeros in
// the fee payer's, which the seller fills) and appends the payment
// identifier.
func (Exact) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*exactUnsigned)
	sig, ok := Signature64(answer)
	if !ok {
		return rails.Completion{}, rails.Refuse(x402.CodeSignatureMalformed)
	}
	wire, ok := SignedWire(b.message, b.payer, sig)
	if !ok {
		return rails.Completion{}, rails.Refuse(CodeInputMalformed)
	}
	payment := x402.Payment(b.required, b.accepted, jsonv.Obj("transaction", base64.StdEncoding.EncodeToString(wire)))
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// WireOf reads a payment's base64 transaction: a non-empty string
// (svm/tx-malformed) of at most 1648 characters (svm/tx-too-large),
// padded standard base64 (svm/tx-malformed), at most 1232 bytes
// (svm/tx-too-large), decoding as a transaction (svm/tx-malformed).
func WireOf(v jsonv.Value) (*Tx, error) {
	s, ok := v.(string)
	if !ok || s == "" {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	if len(s) > (MaxWire+2)/3*4+4 {
		return nil, rails.Refuse(CodeTxTooLarge)
	}
	if len(s)%4 != 0 {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' && i >= len(s)-2) {
			return nil, rails.Refuse(CodeTxMalformed)
		}
	}
	wire, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	tx, ok, tooLarge := DecodeTx(wire)
	if tooLarge {
		return nil, rails.Refuse(CodeTxTooLarge)
	}
	if !ok {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	return tx, nil
}

// MemoCarrier reads the one top-level Memo (v3 or v4) instruction of tx:
// none or several is svm/memo-count, data that is not UTF-8
// svm/memo-not-utf8, a text that is not lcp:sha256:0x and 64 hex digits
// svm/memo-not-lcp. It returns the text and H ("0x" and 64 hex digits) in
// lowercase.
func MemoCarrier(tx *Tx) (memo string, h string, err error) {
	var data []byte
	n := 0
	for _, ix := range tx.Instructions {
		if k, ok := tx.ProgramOf(ix); ok && (k == MemoV3 || k == MemoV4) {
			data = ix.Data
			n++
		}
	}
	if n != 1 {
		return "", "", rails.Refuse(CodeMemoCount)
	}
	if !utf8.Valid(data) {
		return "", "", rails.Refuse(CodeMemoNotUTF8)
	}
	memo = string(data)
	rest, ok := strings.CutPrefix(memo, lcpPrefix)
	if !ok || !rails.IsHex(rest, 64) {
		return "", "", rails.Refuse(CodeMemoNotLCP)
	}
	return memo, strings.ToLower(rest), nil
}

// advanceNonce is the first instruction's durable-nonce shape: System's
// AdvanceNonceAccount (data 04000000), naming its nonce account and the
// RecentBlockhashes sysvar. fromTable is set when either is indexed beyond
// the static keys (a lookup table could then change which account it is);
// durable when both are static, the nonce account writable and the third
// account a signer.
func advanceNonce(tx *Tx) (isAdvance, fromTable, durable bool, nonce Key) {
	if len(tx.Instructions) == 0 {
		return
	}
	ix := tx.Instructions[0]
	if k, ok := tx.ProgramOf(ix); !ok || k != SystemProgram || len(ix.Data) < 4 || string(ix.Data[:4]) != "\x04\x00\x00\x00" {
		return
	}
	isAdvance = true
	for i := 0; i < 2 && i < len(ix.Accounts); i++ {
		if int(ix.Accounts[i]) >= len(tx.Keys) {
			return isAdvance, true, false, Key{}
		}
	}
	if len(ix.Accounts) < 3 || int(ix.Accounts[2]) >= len(tx.Keys) {
		return
	}
	n, s, a := int(ix.Accounts[0]), int(ix.Accounts[1]), int(ix.Accounts[2])
	writable := n < tx.Required-tx.ReadonlySigned || n >= tx.Required && n < len(tx.Keys)-tx.ReadonlyUnsigned
	durable = writable && tx.Keys[s] == recentBlockhashesSysvar && a < tx.Required
	return isAdvance, false, durable, tx.Keys[n]
}

// presentedTx reads a payment's option and transaction.
func (p Exact) presentedTx(presented jsonv.Value) (*jsonv.Object, *Tx, error) {
	o, ok := jsonv.AsObject(presented)
	if !ok {
		return nil, nil, rails.Refuse(x402.CodeNotV2)
	}
	if v, _ := o.Get("x402Version"); v != jsonv.Number(2) {
		return nil, nil, rails.Refuse(x402.CodeNotV2)
	}
	accepted, ok := o.GetObject("accepted")
	if !ok || !p.serves(accepted) {
		return nil, nil, rails.Refuse(x402.CodeOptionNotThisPairing)
	}
	payload, ok := o.GetObject("payload")
	if !ok {
		return nil, nil, rails.Refuse(x402.CodePayloadMalformed)
	}
	v, _ := payload.Get("transaction")
	tx, err := WireOf(v)
	if err != nil {
		return nil, nil, err
	}
	return accepted, tx, nil
}

// boundOf is H from tx's one memo, which must be spelled exactly as the
// carrier (svm/carrier-not-canonical) and be the option's extra.memo
// (svm/carrier-mismatch).
func boundOf(accepted *jsonv.Object, tx *Tx) (string, error) {
	if isAdvance, fromTable, _, _ := advanceNonce(tx); isAdvance && fromTable {
		return "", rails.Refuse(CodeNonceNotStatic)
	}
	memo, h, err := MemoCarrier(tx)
	if err != nil {
		return "", err
	}
	if memo != lcpPrefix+h {
		return "", rails.Refuse(CodeCarrierNotCanon)
	}
	extra, _ := accepted.GetObject("extra")
	if m, _ := extra.GetString("memo"); m != memo {
		return "", rails.Refuse(CodeCarrierMismatch)
	}
	return h, nil
}

// Bound reads H back: the transaction's one memo. No signature is
// verified; the chain verifies every signer's over the message it runs.
func (p Exact) Bound(presented jsonv.Value) (string, error) {
	accepted, tx, err := p.presentedTx(presented)
	if err != nil {
		return "", err
	}
	return boundOf(accepted, tx)
}

// Reference is what a seller records to find the payment on chain later:
// {network, transaction (the fee payer's signature, once signed), digest
// (SHA-256 of the message), feePayer, blockhash ("" for a durable-nonce
// transaction, which never expires), nonce {account, value} for one}.
func (p Exact) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	accepted, tx, err := p.presentedTx(presented)
	if err != nil {
		return nil, err
	}
	if _, err := boundOf(accepted, tx); err != nil {
		return nil, err
	}
	network, _ := accepted.GetString("network")
	return ReferenceOf(network, tx), nil
}

// ReferenceOf is Reference's object for a decoded transaction.
func ReferenceOf(network string, tx *Tx) *jsonv.Object {
	digest := sha256.Sum256(tx.Message)
	ref := jsonv.Obj("network", network)
	if len(tx.Signatures) > 0 && !allZero(tx.Signatures[0]) {
		ref.Set("transaction", Base58(tx.Signatures[0]))
	}
	ref.Set("digest", "0x"+hex.EncodeToString(digest[:]))
	ref.Set("feePayer", tx.Keys[0].String())
	_, _, durable, nonce := advanceNonce(tx)
	if durable {
		ref.Set("blockhash", "")
		ref.Set("nonce", jsonv.Obj("account", nonce.String(), "value", tx.Blockhash.String()))
	} else {
		ref.Set("blockhash", tx.Blockhash.String())
	}
	return ref
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// CodeCarrierOccupied is a seller's option whose extra.memo already holds
// something else than the carrier.
const CodeCarrierOccupied = "svm/carrier-occupied"

// PlaceCarrier is the seller's side: option with extra.memo set to
// Carrier(h), refused when extra.memo already holds something else.
func PlaceCarrier(option *jsonv.Object, h atr.Hash) (*jsonv.Object, error) {
	o := option.Clone()
	extra, ok := o.GetObject("extra")
	if !ok {
		extra = &jsonv.Object{}
		o.Set("extra", extra)
	}
	if m, has := extra.Get("memo"); has && m != Carrier(h) {
		return nil, rails.Refuse(CodeCarrierOccupied)
	}
	extra.Set("memo", Carrier(h))
	return o, nil
}
