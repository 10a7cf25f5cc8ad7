package hedera

// x402/exact/hedera/transfer-executor: H goes nowhere the payer signs or the
// network records. The payer authorizes one of the seller's executors to
// move amount to payTo; the executor's own transaction carries no memo of
// the buyer's, and its child record only the transfer. H is in the
// challenge's extensions.legalContext, echoed in the payment: no public
// proof, so the agreement exchange runs first (docs/hedera.md).

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/x402"
)

// Executor is the x402/exact/hedera/transfer-executor pairing.
type Executor struct{}

// ExecutorID is the pairing id.
const ExecutorID = "x402/exact/hedera/transfer-executor"

// KindExecutor is the signing request of an executor authorization:
// {kind, network, executors, asset, payTo, amount, validBefore}. A signer
// answers {payer, executor (one of executors), authorization (0x hex)}.
const KindExecutor = "hedera-executor"

// What an authorization is, is the executor contract's to define; x402
// passes it through unread. termsgate's signer writes, and its test
// executor checks, the Ed25519 form below (docs/hedera.md): validBefore as 8
// bytes big-endian, then the payer account key's Ed25519 signature (64
// bytes) over ExecutorMessage. The message names the transfer the
// facilitator constructs, so the authorization moves that transfer only.
// (A contract on Hedera can verify an account key's Ed25519 signature
// through the account service's isAuthorizedRaw, HIP-632; this form is the
// test executor's, not a deployed contract's.)
const (
	// ExecutorAuthorizationLen is the Ed25519 form's length in bytes.
	ExecutorAuthorizationLen = 8 + ed25519.SignatureSize
	// ExecutorDomain begins every ExecutorMessage.
	ExecutorDomain = "x402-hedera-transfer-executor/ed25519/v1"
)

// ExecutorMessage is what the payer signs: ExecutorDomain, network,
// executor, payer, asset, payTo, amount and validBefore in decimal, each on
// its own line. Every field but validBefore is an entity id, a network name
// or a decimal, none of which holds a newline, so the lines cannot shift.
func ExecutorMessage(network, executor, payer, asset, payTo, amount string, validBefore int64) []byte {
	return []byte(strings.Join([]string{ExecutorDomain, network, executor, payer, asset, payTo, amount,
		strconv.FormatInt(validBefore, 10)}, "\n"))
}

// ExecutorAuthorization writes the Ed25519 form: validBefore and sig, as
// 0x hex.
func ExecutorAuthorization(validBefore int64, sig []byte) string {
	b := make([]byte, 8, ExecutorAuthorizationLen)
	binary.BigEndian.PutUint64(b, uint64(validBefore))
	return "0x" + hex.EncodeToString(append(b, sig...))
}

// ReadExecutorAuthorization reads the Ed25519 form from 0x hex: ok false
// for anything but 0x and exactly ExecutorAuthorizationLen bytes whose
// validBefore is at most 2^53-1.
func ReadExecutorAuthorization(s string) (validBefore int64, sig []byte, ok bool) {
	if len(s) != 2+2*ExecutorAuthorizationLen || s[:2] != "0x" {
		return 0, nil, false
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		return 0, nil, false
	}
	v := binary.BigEndian.Uint64(b[:8])
	if v > 1<<53-1 {
		return 0, nil, false
	}
	return int64(v), b[8:], true
}

// VerifyExecutorAuthorization is the executor's check of the Ed25519
// form for the transfer the facilitator constructs (from payer, asset, to
// payTo, amount) through executor on network, at now (Unix seconds): the
// form reads, now is before its validBefore, and the signature verifies
// under the payer account's key pub. It answers why not, or "".
func VerifyExecutorAuthorization(pub ed25519.PublicKey, auth, network, executor, payer, asset, payTo, amount string, now int64) string {
	before, sig, ok := ReadExecutorAuthorization(auth)
	switch {
	case !ok:
		return "the authorization is not the executor's form"
	case len(pub) != ed25519.PublicKeySize:
		return "no key for the payer"
	case now >= before:
		return "the authorization expired"
	case !ed25519.Verify(pub, ExecutorMessage(network, executor, payer, asset, payTo, amount, before), sig):
		return "the signature is not the payer's over this transfer"
	}
	return ""
}

// Codes of the executor pairing.
const (
	CodeExecutorNotOffered = "hedera/executor-not-offered"
	CodeExecutorMalformed  = "hedera/executor-malformed"
	CodeNoLegalContext     = "hedera/no-legal-context"
	// MaxExecutors bounds the executors an option lists.
	MaxExecutors = 16
	// MaxAuthorization bounds an authorization's bytes.
	MaxAuthorization = 4096
)

var (
	_ rails.Pairing    = Executor{}
	_ rails.Summarizer = Executor{}
	_ rails.Mover      = Executor{}
	_ rails.Inspector  = Executor{}
)

func (Executor) ID() string { return ExecutorID }

func (Executor) Pattern() rails.Pattern {
	return rails.Pattern{Name: "http-advisory", PublicProof: false}
}

// CheckExecutorOption is the option check: exact on a hedera: network with
// extra.assetTransferMethod "transferExecutor"; network, asset, payTo and
// amount as x402/exact/hedera reads them, maxTimeoutSeconds positive, and
// extra.executors a list of 1 to MaxExecutors entity ids (a quote without
// executors cannot be paid). ok false, with no error, for an option of
// another pairing.
func CheckExecutorOption(o *jsonv.Object) (ok bool, err error) {
	if s, _ := o.GetString("scheme"); s != "exact" {
		return false, nil
	}
	n, _ := o.GetString("network")
	extra, _ := o.GetObject("extra")
	if m, _ := extra.GetString("assetTransferMethod"); len(n) < 7 || n[:7] != "hedera:" || m != "transferExecutor" {
		return false, nil
	}
	asset, _ := o.GetString("asset")
	payTo, _ := o.GetString("payTo")
	amount, _ := o.GetString("amount")
	tv, _ := o.Get("maxTimeoutSeconds")
	timeout, okT := jsonv.AsSafeInt(tv)
	_, okA := ParseEntity(asset)
	_, okP := ParseEntity(payTo)
	_, okM := amountOf(amount)
	if _, okE := executorsOf(extra); !IsNetwork(n) || !okA || !okP || !okM || !okT || timeout <= 0 || !okE {
		return false, rails.Refuse(CodeOptionMalformed)
	}
	return true, nil
}

func executorsOf(extra *jsonv.Object) ([]string, bool) {
	v, _ := extra.Get("executors")
	list, ok := jsonv.AsArray(v)
	if !ok || len(list) == 0 || len(list) > MaxExecutors {
		return nil, false
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, _ := e.(string)
		if _, ok := ParseEntity(s); !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// PairingOf names the Hedera pairing an x402 option is for: this one, or
// x402/exact/hedera, or the option's refusal.
func PairingOf(o *jsonv.Object) (string, error) {
	if ok, err := CheckExecutorOption(o); ok || err != nil {
		return ExecutorID, err
	}
	if ok, err := CheckOption(o); ok || err != nil {
		return ExactID, err
	}
	return "", rails.Refuse(x402.CodeOptionNotThisPairing)
}

func executorServes(o *jsonv.Object) bool {
	ok, _ := CheckExecutorOption(o)
	return ok
}

func (Executor) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, executorServes) }

// Choose takes the first served option on the account's network; it needs
// no inputs, and the authorization is valid until now plus the option's
// maxTimeoutSeconds.
func (Executor) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, _, ok := accountOf(account)
	if !ok {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	accepted := x402.OptionOn(read.Options, acct.Network())
	if accepted == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	return jsonv.Obj("required", read.Required, "accepted", accepted, "payer", acct.Address, "now", jsonv.Number(now)), nil
}

type executorUnsigned struct {
	required, accepted *jsonv.Object
	payer              string
	request            *jsonv.Object
	executors          []string
}

// Build checks the choice and writes the request.
func (Executor) Build(choice jsonv.Value, _ []byte, _ atr.Hash) (rails.Unsigned, error) {
	c, required, accepted, err := x402.ChosenOption(choice, executorServes)
	if err != nil {
		return nil, err
	}
	if ok, err := CheckExecutorOption(accepted); err != nil {
		return nil, err
	} else if !ok {
		return nil, rails.Refuse(x402.CodeOptionNotThisPairing)
	}
	payer, _ := c.GetString("payer")
	nv, _ := c.Get("now")
	now, okN := jsonv.AsSafeInt(nv)
	tv, _ := accepted.Get("maxTimeoutSeconds")
	timeout, _ := jsonv.AsSafeInt(tv)
	if _, ok := ParseEntity(payer); !ok || !okN || now < 0 || now > 1<<53-1-timeout {
		return nil, rails.Refuse(CodeOptionMalformed)
	}
	extra, _ := accepted.GetObject("extra")
	executors, _ := executorsOf(extra)
	list := make([]jsonv.Value, len(executors))
	for i, e := range executors {
		list[i] = e
	}
	str := func(k string) string { s, _ := accepted.GetString(k); return s }
	req := jsonv.Obj("kind", KindExecutor, "network", str("network"), "executors", list, "asset", str("asset"),
		"payTo", str("payTo"), "amount", str("amount"), "validBefore", jsonv.Number(now+timeout))
	return &executorUnsigned{required: required, accepted: accepted, payer: payer, request: req, executors: executors}, nil
}

func (Executor) Request(u rails.Unsigned) (rails.Request, error) {
	return u.(*executorUnsigned).request.Clone(), nil
}

// Moves: an authorization lets the executor move the value at once.
func (Executor) Moves(first rails.Request) bool {
	k, _ := first.GetString("kind")
	return k == KindExecutor
}

// Complete checks the answer {payer (the account's), executor (one the
// option offers: hedera/executor-not-offered), authorization (0x and hex
// of at most MaxAuthorization bytes)}, anything else
// hedera/executor-malformed, and writes it as the payload.
func (Executor) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*executorUnsigned)
	o, ok := jsonv.AsObject(answer)
	malformed := rails.Refuse(CodeExecutorMalformed)
	if !ok || o.Len() != 3 {
		return rails.Completion{}, malformed
	}
	payer, _ := o.GetString("payer")
	executor, _ := o.GetString("executor")
	auth, _ := o.GetString("authorization")
	_, okE := ParseEntity(executor)
	if _, ok := ParseEntity(payer); !ok || payer != b.payer || !okE || !isAuthorization(auth) {
		return rails.Completion{}, malformed
	}
	offered := false
	for _, e := range b.executors {
		offered = offered || e == executor
	}
	if !offered {
		return rails.Completion{}, rails.Refuse(CodeExecutorNotOffered)
	}
	payment := x402.Payment(b.required, b.accepted, jsonv.Obj("payer", payer, "executor", executor, "authorization", auth))
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

func isAuthorization(s string) bool {
	if len(s) < 4 || len(s) > 2+2*MaxAuthorization || s[:2] != "0x" || len(s)%2 != 0 {
		return false
	}
	_, err := hex.DecodeString(s[2:])
	return err == nil
}

func (Executor) presented(p jsonv.Value) (*jsonv.Object, *jsonv.Object, error) {
	accepted, payload, err := x402.Presented(p, executorServes)
	if err != nil {
		return nil, nil, err
	}
	payer, _ := payload.GetString("payer")
	executor, _ := payload.GetString("executor")
	auth, _ := payload.GetString("authorization")
	_, okP := ParseEntity(payer)
	_, okE := ParseEntity(executor)
	if !okP || !okE || !isAuthorization(auth) {
		return nil, nil, rails.Refuse(CodeExecutorMalformed)
	}
	extra, _ := accepted.GetObject("extra")
	executors, _ := executorsOf(extra)
	for _, e := range executors {
		if e == executor {
			return accepted, payload, nil
		}
	}
	return nil, nil, rails.Refuse(CodeExecutorNotOffered)
}

// Bound is the candidate H: the echoed extensions.legalContext's value
// (hedera/no-legal-context without one), once the payload reads.
func (p Executor) Bound(presented jsonv.Value) (string, error) {
	if _, _, err := p.presented(presented); err != nil {
		return "", err
	}
	o, _ := jsonv.AsObject(presented)
	if ext, _ := o.GetObject("extensions"); !ext.Has("legalContext") {
		return "", rails.Refuse(CodeNoLegalContext)
	}
	return x402.EchoedLegalContext(o)
}

// IDDigest is the transfer's identity the seller looks for in the
// executor's child record: SHA-256 of "payer,payTo,amount".
func IDDigest(payer, payTo, amount string) string {
	d := sha256.Sum256([]byte(payer + "," + payTo + "," + amount))
	return "0x" + hex.EncodeToString(d[:])
}

// Reference is {network, asset, idDigest}; the seller adds the executor's
// transaction id (Mirror form) as transaction once the executor submits.
func (p Executor) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	accepted, payload, err := p.presented(presented)
	if err != nil {
		return nil, err
	}
	str := func(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }
	return jsonv.Obj("network", str(accepted, "network"), "asset", str(accepted, "asset"),
		"idDigest", IDDigest(str(payload, "payer"), str(accepted, "payTo"), str(accepted, "amount"))), nil
}

// ExecutorStatus reads ref ({network, asset, idDigest, transaction}) once:
// the executor's own entry (nonce 0, not scheduled) with SUCCESS and a
// child entry (nonce above 0) with SUCCESS whose HBAR transfers are one
// debit and one equal credit whose "debited,credited,amount" digest is
// idDigest is settled at the executor's consensus; no such child is failed
// not-this-instrument; the executor's other result failed result:<it>;
// nothing found pending not-found; a failed read pending unreadable. Only
// HBAR is read: a token's transfer is pending unreadable.
func ExecutorStatus(ref *jsonv.Object, r Reader) Status {
	network, _ := ref.GetString("network")
	id, _ := ref.GetString("transaction")
	asset, _ := ref.GetString("asset")
	want, _ := ref.GetString("idDigest")
	if r == nil || r.Network() != network || id == "" || asset != HBAR {
		return Status{State: StatePending, Why: "unreadable"}
	}
	entries, found, err := r.Transactions(id)
	switch {
	case err != nil:
		return Status{State: StatePending, Why: "unreadable"}
	case !found:
		return Status{State: StatePending, Why: "not-found"}
	}
	var parent *Entry
	for i := range entries {
		if entries[i].Nonce == 0 && !entries[i].Scheduled {
			parent = &entries[i]
			break
		}
	}
	if parent == nil {
		return Status{State: StatePending, Why: "not-found"}
	}
	if parent.Result != "SUCCESS" {
		return Status{State: StateFailed, Why: "result:" + parent.Result}
	}
	for _, e := range entries {
		if e.Nonce <= 0 || e.Result != "SUCCESS" || len(e.Transfers) != 2 {
			continue
		}
		d, c := e.Transfers[0], e.Transfers[1]
		if d.Amount > 0 {
			d, c = c, d
		}
		if d.Amount < 0 && c.Amount == -d.Amount &&
			IDDigest(d.Account.String(), c.Account.String(), strconv.FormatInt(c.Amount, 10)) == want {
			return Status{State: StateSettled, Consensus: parent.Consensus}
		}
	}
	return Status{State: StateFailed, Why: "not-this-instrument"}
}

// Summarize reads a hedera-executor request: amount of asset to payTo on
// network, valid before validBefore. The request names no payer: the
// signer's account is the payer.
func (Executor) Summarize(req rails.Request) (rails.Grant, error) {
	if k, _ := req.GetString("kind"); k != KindExecutor {
		return rails.Grant{}, errUnreadable
	}
	str := func(k string) string { s, _ := req.GetString(k); return s }
	network, asset, payTo := str("network"), str("asset"), str("payTo")
	amount, okM := amountOf(str("amount"))
	vb, _ := req.Get("validBefore")
	before, okB := jsonv.AsSafeInt(vb)
	_, okA := ParseEntity(asset)
	_, okP := ParseEntity(payTo)
	if !IsNetwork(network) || !okM || !okB || !okA || !okP {
		return rails.Grant{}, errUnreadable
	}
	decimals := -1
	if asset == HBAR {
		decimals = 8
	}
	return rails.Grant{Network: network, Asset: asset, Decimals: decimals, Amount: big.NewInt(amount), Payee: payTo,
		PayableUntil: time.Unix(before, 0).UTC()}, nil
}

// Inspect reads a payment's option and payload: the grant is amount of
// asset from the payload's payer to payTo, H the echoed legal context.
func (p Executor) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	accepted, payload, _ := p.presented(payment)
	str := func(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }
	amount, _ := amountOf(str(accepted, "amount"))
	asset := str(accepted, "asset")
	decimals := -1
	if asset == HBAR {
		decimals = 8
	}
	g := rails.Grant{Network: str(accepted, "network"), Asset: asset, Decimals: decimals, Amount: big.NewInt(amount),
		Payer: str(payload, "payer"), Payee: str(accepted, "payTo")}
	return rails.Inspection{Pairing: ExecutorID, Kind: "payment", Grant: g, H: h,
		WhereH: "extensions.legalContext.info.value: only echoed; nothing the payer signs or the network records carries H (no public proof: the agreement exchange runs first)",
		Details: jsonv.Obj("executor", str(payload, "executor"), "authorization", str(payload, "authorization"),
			"idDigest", IDDigest(str(payload, "payer"), str(accepted, "payTo"), str(accepted, "amount")))}, nil
}
