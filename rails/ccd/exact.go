package ccd

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"math/big"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

// Exact is the x402/exact/ccd pairing: the buyer's wallet builds and signs
// the V1 transaction the option's feePayer sponsors, with H in its one
// transfer's memo, and the seller's facilitator adds the sponsor's
// signature and sends it.
type Exact struct{}

// More refusal codes of the pairing.
const (
	CodeTransferMismatch = "ccd/transfer-mismatch" // the wallet's transaction does not pay what was asked
	CodeSignatureInvalid = "ccd/signature-invalid" // the sender's signature does not verify under the wallet's key
	CodeSignedNotBound   = "x402/signed-not-bound"
)

// KindTransaction is the signing request of a Concordium payment: {kind,
// network, sender, asset, amount, payTo, sponsor, memo, expiry}. The wallet
// reads the sender's next nonce (and a token's decimals) from its node,
// builds the V1 transaction sponsored by sponsor that moves amount of asset
// (CCD in microCCD, else a PLT token id in its smallest unit) from sender
// to payTo with memo (hex of the memo's bytes) and expiry (Unix seconds),
// signs it as the sender and answers {signedTransaction, publicKey}: x402's
// wire form and the Ed25519 key that signed it (hex).
const KindTransaction = "ccd-transaction"

// CCD is the native coin as options name it; it has 6 decimals (microCCD).
const CCD = "CCD"

func serves(o *jsonv.Object) bool { return CheckOption(o) }

func (Exact) ID() string { return ExactID }

func (Exact) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

func (Exact) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, serves) }

// Choose takes the first served option on the account's network. The
// wallet reads the nonce from its own node, so the pairing asks for no
// inputs; now fixes the expiry.
func (Exact) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "ccd" {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	if _, err := AccountBytes(acct.Address); err != nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	accepted := x402.OptionOn(read.Options, acct.Network())
	if accepted == nil {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	return jsonv.Obj("required", read.Required, "accepted", accepted, "payer", acct.Address, "now", now), nil
}

type exactUnsigned struct {
	required, accepted *jsonv.Object
	payer              string
	h                  atr.Hash
	expiry             int64
}

// Build fixes the expiry at now plus the option's maxTimeoutSeconds: the
// chain drops the transaction after it, so the signature is worth nothing
// later than the seller asked for.
func (Exact) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, required, accepted, err := x402.ChosenOption(choice, serves)
	if err != nil {
		return nil, err
	}
	payer := mpp.String(c, "payer")
	if _, ok := account(payer); !ok {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	nv, _ := c.Get("now")
	now, ok := jsonv.AsSafeInt(nv)
	tv, _ := accepted.Get("maxTimeoutSeconds")
	timeout, _ := jsonv.AsSafeInt(tv)
	if !ok || now <= 0 || now > 1<<40 || timeout > 1<<40 {
		return nil, rails.Refuse(x402.CodeChoiceMalformed)
	}
	return &exactUnsigned{required: required, accepted: accepted, payer: payer, h: h, expiry: now + timeout}, nil
}

func (Exact) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*exactUnsigned)
	extra, _ := b.accepted.GetObject("extra")
	return jsonv.Obj("kind", KindTransaction, "network", mpp.String(b.accepted, "network"), "sender", b.payer,
		"asset", mpp.String(b.accepted, "asset"), "amount", mpp.String(b.accepted, "amount"),
		"payTo", mpp.String(b.accepted, "payTo"), "sponsor", mpp.String(extra, "feePayer"),
		"memo", hex.EncodeToString(Memo(b.h)), "expiry", jsonv.Number(b.expiry)), nil
}

// Complete takes the wallet's {signedTransaction, publicKey} and checks,
// before the payment leaves, what the wallet built: H in the memo
// (x402/signed-not-bound otherwise), the sender, sponsor, expiry and the
// one transfer the ones asked for (ccd/transfer-mismatch), and the
// sender's signature over the rebuilt bytes under publicKey
// (ccd/signature-invalid). The chain checks that key is the sender's.
func (Exact) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*exactUnsigned)
	a, ok := jsonv.AsObject(answer)
	if !ok {
		return rails.Completion{}, rails.Refuse(x402.CodePayloadMalformed)
	}
	txv, _ := a.Get("signedTransaction")
	payment := x402.Payment(b.required, b.accepted, jsonv.Obj("signedTransaction", jsonv.Clone(txv)))
	s, err := ReadSigned(payment)
	if err != nil {
		if r, ok := err.(*rails.Refusal); ok && (r.Code == CodeMemoNotLCP || r.Code == CodeMemoNotCBORText || r.Code == CodeNoMemo) {
			return rails.Completion{}, rails.Refuse(CodeSignedNotBound)
		}
		return rails.Completion{}, err
	}
	if s.H != b.h {
		return rails.Completion{}, rails.Refuse(CodeSignedNotBound)
	}
	tx, _ := jsonv.AsObject(txv)
	w, err := ReadWire(tx)
	if err != nil {
		return rails.Completion{}, err
	}
	if !pays(s, w, b.accepted, b.payer, b.expiry) {
		return rails.Completion{}, rails.Refuse(CodeTransferMismatch)
	}
	key, _ := hex.DecodeString(mpp.String(a, "publicKey"))
	if !w.Verifies(ed25519.PublicKey(key)) {
		return rails.Completion{}, rails.Refuse(CodeSignatureInvalid)
	}
	if err := x402.AppendPaymentIdentifier(payment, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: payment}, nil
}

// pays reports a signed transaction that moves the option's amount of its
// asset to its payTo, from payer, sponsored by its feePayer, expiring at
// expiry (any expiry when it is 0) and no later than the option allows.
func pays(s *Signed, w *Wire, accepted *jsonv.Object, payer string, expiry int64) bool {
	extra, _ := accepted.GetObject("extra")
	sponsor, ok1 := account(mpp.String(extra, "feePayer"))
	payTo, ok2 := account(mpp.String(accepted, "payTo"))
	from, ok3 := account(payer)
	amount, _ := u64Of(mpp.String(accepted, "amount"))
	asset := mpp.String(accepted, "asset")
	kindOK := asset == CCD && w.Tx.Payload[0] == typeTransferWithMemo ||
		asset != CCD && w.Tx.Payload[0] == typeTokenUpdate && tokenIDOf(w.Tx.Payload) == asset
	return kindOK && ok1 && ok2 && ok3 && w.Tx.Sponsor == sponsor && string(s.Receiver) == string(payTo[:]) &&
		string(s.Sender) == string(from[:]) && s.Amount == amount && (expiry == 0 || s.Expiry == expiry)
}

func tokenIDOf(p []byte) string {
	if len(p) < 2 || len(p) < 2+int(p[1]) {
		return ""
	}
	return string(p[2 : 2+int(p[1])])
}

// Bound reads H from the signed transaction's memo; no signature is
// verified (the sponsor and the chain do that).
func (Exact) Bound(presented jsonv.Value) (string, error) { return Bound(presented) }

var (
	_ rails.Summarizer = Exact{}
	_ rails.Inspector  = Exact{}
)

var errUnreadable = errors.New("ccd: the signing request is not one this pairing builds")

// Request is a ccd-transaction request as read.
type Request struct {
	Network, Asset         string
	Sender, PayTo, Sponsor string
	Amount                 uint64
	Memo                   []byte
	H                      atr.Hash
	Expiry                 int64
}

// ReadRequest reads a ccd-transaction request: every member present and of
// its form, the memo H's.
func ReadRequest(req rails.Request) (Request, error) {
	if k, _ := req.GetString("kind"); k != KindTransaction {
		return Request{}, errUnreadable
	}
	r := Request{Network: mpp.String(req, "network"), Asset: mpp.String(req, "asset"), Sender: mpp.String(req, "sender"),
		PayTo: mpp.String(req, "payTo"), Sponsor: mpp.String(req, "sponsor")}
	for _, a := range []string{r.Sender, r.PayTo, r.Sponsor} {
		if _, err := AccountBytes(a); err != nil {
			return Request{}, errUnreadable
		}
	}
	var ok bool
	if r.Amount, ok = u64Of(mpp.String(req, "amount")); !ok || !IsNetwork(r.Network) || !isToken(r.Asset) || len(r.Asset) > 255 {
		return Request{}, errUnreadable
	}
	memo, err := hex.DecodeString(mpp.String(req, "memo"))
	if err != nil {
		return Request{}, errUnreadable
	}
	if r.H, err = MemoCarrier(memo); err != nil {
		return Request{}, errUnreadable
	}
	r.Memo = memo
	ev, _ := req.Get("expiry")
	if r.Expiry, ok = jsonv.AsSafeInt(ev); !ok || r.Expiry <= 0 {
		return Request{}, errUnreadable
	}
	return r, nil
}

// Decimals is 6 for CCD; a PLT's decimals are the token's, read from the
// node, so a summary states -1 for it.
func Decimals(asset string) int {
	if asset == CCD {
		return 6
	}
	return -1
}

// Summarize: amount of asset from sender to payTo on the request's
// network, payable until the expiry. The energy is the sponsor's to pay,
// not the payer's, and is not in the grant.
func (Exact) Summarize(req rails.Request) (rails.Grant, error) {
	r, err := ReadRequest(req)
	if err != nil {
		return rails.Grant{}, err
	}
	return rails.Grant{Network: r.Network, Asset: r.Asset, Decimals: Decimals(r.Asset), Amount: new(big.Int).SetUint64(r.Amount),
		Payer: r.Sender, Payee: r.PayTo, PayableUntil: time.Unix(r.Expiry, 0).UTC()}, nil
}

// txDetails are what a signed transaction's wire form says beyond its grant.
func txDetails(w *Wire) *jsonv.Object {
	d := jsonv.Obj("nonce", strconv.FormatUint(w.Tx.Nonce, 10), "sponsor", Address(w.Tx.Sponsor[:]),
		"energy", strconv.FormatUint(w.Tx.Energy(), 10), "executionEnergy", strconv.FormatUint(w.Tx.ExecEnergy, 10),
		"senderSignatures", jsonv.Number(len(w.Signatures)))
	if w.Tx.Payload[0] == typeTokenUpdate {
		d.Set("payload", "tokenUpdate")
		d.Set("tokenId", tokenIDOf(w.Tx.Payload))
	} else {
		d.Set("payload", "transferWithMemo")
	}
	d2 := w.Tx.SignDigest()
	d.Set("signDigest", "0x"+hex.EncodeToString(d2[:]))
	return d
}

// Inspect reads an x402/exact/ccd payment as Bound does and states its
// grant through Summarize over the request it answers (the option, the
// transaction's sender, expiry and memo); the details say what the
// transaction itself holds, and whether it pays the option.
func (p Exact) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	s, w, err := Carried(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	o, _ := jsonv.AsObject(payment)
	accepted, _ := o.GetObject("accepted")
	extra, _ := accepted.GetObject("extra")
	req := jsonv.Obj("kind", KindTransaction, "network", s.Network, "sender", Address(s.Sender), "asset", s.Asset,
		"amount", mpp.String(accepted, "amount"), "payTo", mpp.String(accepted, "payTo"), "sponsor", mpp.String(extra, "feePayer"),
		"memo", hex.EncodeToString(Memo(s.H)), "expiry", jsonv.Number(s.Expiry))
	g, err := p.Summarize(req)
	if err != nil {
		return rails.Inspection{}, err
	}
	d := txDetails(w)
	d.Set("paysOption", Pays(s, w, accepted))
	where := "payload.signedTransaction.payload.memo: the transferWithMemo's memo, one CBOR text string of lcp:sha256:0x…"
	if w.Tx.Payload[0] == typeTokenUpdate {
		where = "payload.signedTransaction.payload.operations: the one transfer's memo, tag 24 around one CBOR text string of lcp:sha256:0x…"
	}
	return rails.Inspection{Pairing: ExactID, Kind: "payment", Grant: g, H: s.H.String(), WhereH: where, Details: d}, nil
}
