package tron

// x402/exact/tron/lcp-trc20-memo: H goes in the transaction's memo,
// raw_data.data, as the 77 bytes of its LCP string "lcp:sha256:0x…"; the
// payer signs the transaction id, SHA-256 of raw_data, so the memo is signed
// with the TRC-20 transfer it rides on, and is on chain in the transaction.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

// Exact is the x402/exact/tron/lcp-trc20-memo pairing.
type Exact struct{}

// ExactID is the pairing id.
const ExactID = "x402/exact/tron/lcp-trc20-memo"

// AssetTransferMethod is the option's extra.assetTransferMethod.
const AssetTransferMethod = "lcp-trc20-memo"

// Bounds of an option and a build.
const (
	MaxTimeoutSeconds = 86_340         // a Tron transaction expires at most 24 h after its reference block
	MaxFeeLimit       = 15_000_000_000 // sun: java-tron's largest fee limit
)

var uint256Limit = new(big.Int).Lsh(big.NewInt(1), 256)

func (Exact) ID() string { return ExactID }

func (Exact) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

// CheckOption says whether the pairing serves option o, and if not, why:
// x402/option-not-this-pairing for an option that is not exact on a tron:
// network with extra.assetTransferMethod lcp-trc20-memo (and a paymentFlow,
// if any, of authorization or upfront); tron/network-malformed for a
// network whose reference is not the decimal chain id; tron/address-malformed
// for an asset or payTo that is not base58 of 25 bytes beginning 0x41;
// tron/option-malformed for an amount that is no uint256 or a
// maxTimeoutSeconds outside 1 to 86,340.
func CheckOption(o *jsonv.Object) string {
	notThis := x402.CodeOptionNotThisPairing
	if s, _ := o.GetString("scheme"); s != "exact" {
		return notThis
	}
	network, _ := o.GetString("network")
	if !strings.HasPrefix(network, "tron:") {
		return notThis
	}
	extra, ok := o.GetObject("extra")
	if m, _ := extra.GetString("assetTransferMethod"); !ok || m != AssetTransferMethod {
		return notThis
	}
	if f, has := extra.Get("paymentFlow"); has && f != "authorization" && f != "upfront" {
		return notThis
	}
	if !IsNetwork(network) {
		return CodeNetworkMalformed
	}
	asset, _ := o.GetString("asset")
	payTo, _ := o.GetString("payTo")
	if _, ok := shape(asset); !ok {
		return CodeAddressMalformed
	}
	if _, ok := shape(payTo); !ok {
		return CodeAddressMalformed
	}
	if !amountOK(mpp.String(o, "amount")) {
		return CodeOptionMalformed
	}
	mt, _ := o.Get("maxTimeoutSeconds")
	if t, ok := jsonv.AsSafeInt(mt); !ok || t < 1 || t > MaxTimeoutSeconds {
		return CodeOptionMalformed
	}
	return ""
}

// IsNetwork reports whether n is tron: and a decimal chain id (no leading
// zeros, at most 16 digits, a safe integer): tron:728126428 is mainnet,
// tron:3448148188 Nile, tron:2494104990 Shasta.
func IsNetwork(n string) bool {
	ref, ok := strings.CutPrefix(n, "tron:")
	if !ok || ref == "" || len(ref) > 16 || len(ref) > 1 && ref[0] == '0' || !rails.IsDecimal(ref) {
		return false
	}
	v, err := strconv.ParseUint(ref, 10, 64)
	return err == nil && v <= 1<<53-1
}

func amountOf(o *jsonv.Object) (*big.Int, bool) {
	s, _ := o.GetString("amount")
	if !rails.IsDecimal(s) || len(s) > 1 && s[0] == '0' {
		return nil, false
	}
	v, _ := new(big.Int).SetString(s, 10)
	return v, v.Cmp(uint256Limit) < 0
}

// uint256Max is 2^256-1 in decimal, the largest amount.
const uint256Max = "115792089237316195423570985008687907853269984665640564039457584007913129639935"

// amountOK is amountOf's verdict without big.Int, which CheckOption asks
// on every read of an option: a decimal without leading zeros of at most
// 77 digits is below 10^77 < 2^256, and one of 78 is compared digit by
// digit with 2^256-1 (TestAmountOKAsAmountOf).
func amountOK(s string) bool {
	if !rails.IsDecimal(s) || len(s) > 1 && s[0] == '0' {
		return false
	}
	return len(s) < len(uint256Max) || len(s) == len(uint256Max) && s <= uint256Max
}

func serves(o *jsonv.Object) bool { return CheckOption(o) == "" }

func (Exact) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, serves) }

// Choose takes the first served option on the account's network and the
// inputs refBlock {number, id} (a recent block of the buyer's node: a
// decimal number and 0x and 64 hex digits) and feeLimit (sun, decimal, 1
// to 15,000,000,000). The choice records now, from which the transaction's
// timestamp and expiration are set.
func (Exact) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "tron" {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	if _, ok := ParseAddress(acct.Address); !ok {
		return nil, rails.Refuse(CodeAddressMalformed)
	}
	accepted := x402.OptionOn(read.Options, acct.Network())
	if accepted == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	rb, ok1 := inputs.GetObject("refBlock")
	fl, ok2 := inputs.GetString("feeLimit")
	num, ok3 := rb.GetString("number")
	id, ok4 := rb.GetString("id")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil, rails.Refuse(x402.CodeInputMissing)
	}
	c := jsonv.Obj("required", read.Required, "accepted", accepted, "payer", acct.Address,
		"refBlock", jsonv.Obj("number", num, "id", id), "now", now, "feeLimit", fl)
	if _, err := readChoice(c, accepted); err != nil {
		return nil, err
	}
	return c, nil
}

type choice struct {
	owner, asset, payTo Address
	refNumber           uint64
	refID               []byte
	nowMS, feeLimit     uint64
	amount              *big.Int
	timeout             int64
}

// readChoice checks a choice's own members, in the order the reference
// gates do: the payer's address, the fee limit, the reference block, the
// time.
func readChoice(c, accepted *jsonv.Object) (*choice, error) {
	out := &choice{}
	var ok bool
	if out.owner, ok = ParseAddress(mpp.String(c, "payer")); !ok {
		return nil, rails.Refuse(CodeAddressMalformed)
	}
	if out.asset, ok = ParseAddress(mpp.String(accepted, "asset")); !ok {
		return nil, rails.Refuse(CodeAddressMalformed)
	}
	if out.payTo, ok = ParseAddress(mpp.String(accepted, "payTo")); !ok {
		return nil, rails.Refuse(CodeAddressMalformed)
	}
	fl, err := strconv.ParseUint(mpp.String(c, "feeLimit"), 10, 64)
	if err != nil || !rails.IsDecimal(mpp.String(c, "feeLimit")) || fl < 1 || fl > MaxFeeLimit {
		return nil, rails.Refuse(CodeFeeLimit)
	}
	out.feeLimit = fl
	malformed := rails.Refuse(CodeTxMalformed)
	rb, _ := c.GetObject("refBlock")
	numText := mpp.String(rb, "number")
	n, err := strconv.ParseUint(numText, 10, 64)
	if err != nil || !rails.IsDecimal(numText) || n >= 1<<63 {
		return nil, malformed
	}
	out.refNumber = n
	id := mpp.String(rb, "id")
	if len(id) != 66 || !strings.HasPrefix(id, "0x") {
		return nil, malformed
	}
	if out.refID, err = hex.DecodeString(id[2:]); err != nil {
		return nil, malformed
	}
	nv, _ := c.Get("now")
	now, ok := jsonv.AsSafeInt(nv)
	if !ok || now < 1 {
		return nil, malformed
	}
	out.nowMS = uint64(now) * 1000
	out.amount, _ = amountOf(accepted)
	mt, _ := accepted.Get("maxTimeoutSeconds")
	out.timeout, _ = jsonv.AsSafeInt(mt)
	if out.nowMS+uint64(out.timeout)*1000 >= 1<<63 {
		return nil, malformed
	}
	return out, nil
}

type exactUnsigned struct {
	required, accepted *jsonv.Object
	network            string
	rawBytes           []byte
	txid               [32]byte
	owner              Address
}

// Build writes the TRC-20 transfer of amount to payTo, with H's LCP string
// as the memo, referencing the chosen block, stamped now and expiring
// maxTimeoutSeconds later.
func (Exact) Build(ch jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, required, accepted, err := x402.ChosenOption(ch, serves)
	if err != nil {
		return nil, err
	}
	v, err := readChoice(c, accepted)
	if err != nil {
		return nil, err
	}
	var num [8]byte
	binary.BigEndian.PutUint64(num[:], v.refNumber)
	call := make([]byte, callDataLen)
	copy(call, transferSelector)
	copy(call[16:36], v.payTo[1:])
	v.amount.FillBytes(call[36:68])
	raw := Raw{RefBlockBytes: num[6:8], RefBlockHash: v.refID[8:16], Expiration: v.nowMS + uint64(v.timeout)*1000,
		Data: []byte(mpp.LegalContextValue(h)), Owner: v.owner[:], ContractAddress: v.asset[:], CallData: call,
		Timestamp: v.nowMS, FeeLimit: v.feeLimit}
	rawBytes := raw.Encode()
	return &exactUnsigned{required: required, accepted: accepted, network: mpp.String(accepted, "network"),
		rawBytes: rawBytes, txid: TxID(rawBytes), owner: v.owner}, nil
}

// KindTxID is the signing request of one Tron transaction: {kind, network,
// txid, rawData}, txid 0x hex of the 32-byte id the key signs and rawData
// 0x hex of the raw bytes it is the SHA-256 of (so that a signer can state
// what it signs). The answer is the 65-byte secp256k1 signature r‖s‖v in 0x
// hex, v 0 or 1 (27 or 28 accepted).
const KindTxID = "tron-txid"

func (Exact) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*exactUnsigned)
	return jsonv.Obj("kind", KindTxID, "network", b.network, "txid", hex0x(b.txid[:]), "rawData", hex0x(b.rawBytes)), nil
}

// hex0x is 0x and b in lowercase hex, written in one allocation (hex.Encode
// a chunk at a time into a stack buffer: WriteByte per digit costs more).
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

// Complete checks the signature is 65 bytes with v 0, 1, 27 or 28 and
// recovers to the payer, and writes the signed transaction in lowercase
// hex.
func (Exact) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*exactUnsigned)
	s, _ := jsonv.AsString(answer)
	sig, ok := mpp.HexBytes(s, SignatureLen, SignatureLen)
	if !ok || !validV(sig[64]) {
		return rails.Completion{}, rails.Refuse(CodeSignatureMalformed)
	}
	if signer, ok := Recover(b.txid, sig); !ok || signer != b.owner {
		return rails.Completion{}, rails.Refuse(CodeSignatureInvalid)
	}
	payment := x402.Payment(b.required, b.accepted, jsonv.Obj("transaction", hex.EncodeToString(EncodeTransaction(b.rawBytes, sig))))
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

func validV(v byte) bool { return v == 0 || v == 1 || v == 27 || v == 28 }

// Recover is the address whose key made sig (r‖s‖v) over txid.
func Recover(txid [32]byte, sig []byte) (Address, bool) {
	if len(sig) != SignatureLen || !validV(sig[64]) {
		return Address{}, false
	}
	var s [SignatureLen]byte
	copy(s[:], sig)
	if s[64] >= 27 {
		s[64] -= 27
	}
	// Ecrecover is SigToPub without making an ecdsa.PublicKey of the key
	// only to write it out again: the 65 bytes are what AddressOf hashes.
	pub, err := crypto.Ecrecover(txid[:], s[:])
	if err != nil || len(pub) != 65 {
		return Address{}, false
	}
	return AddressOf(pub), true
}

// AddressOf is the address of an uncompressed secp256k1 public key (65
// bytes, 0x04 first): 0x41 and the last 20 bytes of keccak256 of the key.
func AddressOf(pub []byte) Address {
	var a Address
	a[0] = 0x41
	copy(a[1:], crypto.Keccak256(pub[1:])[12:])
	return a
}

// Carried is what a presented payment carries.
type Carried struct {
	Tx   *Tx
	H    atr.Hash
	TxID [32]byte
}

// Carrier reads a decoded transaction's memo: its one contract must call
// transfer (tron/not-transfer), its memo be the LCP string
// (tron/memo-not-lcp).
func Carrier(tx *Tx) (*Carried, error) {
	if _, _, ok := Transfer(tx.Raw.CallData); !ok {
		return nil, rails.Refuse(CodeNotTransfer)
	}
	h, ok := mpp.ParseLegalContext(string(tx.Raw.Data))
	if !ok || string(tx.Raw.Data) != mpp.LegalContextValue(h) {
		return nil, rails.Refuse(CodeMemoNotLCP)
	}
	return &Carried{Tx: tx, H: h, TxID: sha256.Sum256(tx.RawBytes)}, nil
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
	if !ok || !serves(accepted) {
		return nil, nil, rails.Refuse(x402.CodeOptionNotThisPairing)
	}
	payload, ok := o.GetObject("payload")
	if !ok {
		return nil, nil, rails.Refuse(x402.CodePayloadMalformed)
	}
	text, ok := payload.GetString("transaction")
	if !ok {
		return nil, nil, rails.Refuse(x402.CodePayloadMalformed)
	}
	tx, err := DecodeTx(text)
	if err != nil {
		return nil, nil, err
	}
	c, err := Carrier(tx)
	if err != nil {
		return nil, nil, err
	}
	return c, accepted, nil
}

// Bound reads H from the signed transaction's memo. The signature is not
// verified here: the facilitator and the network do that.
func (Exact) Bound(presented jsonv.Value) (string, error) {
	c, _, err := carried(presented)
	if err != nil {
		return "", err
	}
	return c.H.String(), nil
}

// Reference is what a seller records to find a claimed payment.
type Reference struct {
	Network    string
	TxID       string // 0x and 64 lowercase hex digits
	Asset      string // 0x and the token contract's 21 bytes
	Expiration uint64 // milliseconds
}

// PaymentReference reads a presented payment's reference.
func PaymentReference(presented jsonv.Value) (Reference, error) {
	c, accepted, err := carried(presented)
	if err != nil {
		return Reference{}, err
	}
	return Reference{Network: mpp.String(accepted, "network"), TxID: "0x" + hex.EncodeToString(c.TxID[:]),
		Asset: "0x" + hex.EncodeToString(c.Tx.Raw.ContractAddress), Expiration: c.Tx.Raw.Expiration}, nil
}
