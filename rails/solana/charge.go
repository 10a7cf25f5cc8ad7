package solana

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Charge is mpp/charge/solana: an MPP charge challenge with method
// "solana", paid by a transaction the payer signs (the seller's fee payer,
// when it offers one, co-signs and sends it) moving amount of the request's
// mint (TransferChecked) or of SOL (System transfer). Where H goes: the
// request's externalId, lcp:sha256:0x<H>, which the payer signs as the one
// Memo instruction of the transaction whose data is an LCP string; other
// memos (split labels) are not read (docs/solana.md, "MPP charge"). The
// full H is also the challenge id and its opaque.
type Charge struct{}

// ChargeID is the pairing id.
const ChargeID = mpp.PairingSolanaCharge

// Refusal codes of the MPP charges on Solana.
const (
	CodeNoCarrier       = "svm/no-carrier"
	CodeReadFirst       = "svm/read-first"
	CodeBundleEmpty     = "svm/bundle-empty"
	CodeCarrierNotThisH = "mpp/carrier-not-challenge"
	maxBundle           = 8
	solDecimals         = 9
	currencySOL         = "sol"
	chargeWhereH        = "the request's externalId, signed as the transaction's one LCP Memo instruction: \"lcp:sha256:\" + H; H is also the challenge id"
)

var (
	_ rails.Pairing    = Charge{}
	_ rails.Summarizer = Charge{}
	_ rails.Inspector  = Charge{}
)

// chargeSpec is what differs between MPP's solana method and usdc's
// Solana profile.
type chargeSpec struct {
	id              string
	usdc            bool   // details under methodDetails.solana, network required
	occupied        string // the refusal of an issued externalId holding another value
	transactionOnly bool   // only type="transaction" credentials
}

var solanaCharge = chargeSpec{id: ChargeID, occupied: CodeCarrierOccupied}

// details is the checked challenge's Solana details object.
func (s chargeSpec) details(c *mpp.Checked) *jsonv.Object {
	if !s.usdc {
		return c.Details
	}
	if _, p, err := mpp.USDCProfile(c.Details); err == nil {
		return p
	}
	return &jsonv.Object{}
}

// network is the CAIP-2 network of a checked challenge.
func (s chargeSpec) network(c *mpp.Checked) (string, error) {
	return mpp.SolanaChargeNetwork(s.details(c), s.usdc)
}

func (Charge) ID() string { return ChargeID }

func (Charge) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

func (Charge) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// The buyer's optional inputs: the request's decimals, tokenProgram and
// recentBlockhash win where it names them.
var chargeInputs = []mpp.Input{
	{Name: "decimals", Kind: "number", Optional: true},
	{Name: "tokenProgram", Kind: "string", Optional: true},
	{Name: "recentBlockhash", Kind: "string", Optional: true},
	{Name: "computeUnitLimit", Kind: "number", Optional: true},
	{Name: "computeUnitPrice", Kind: "decimal", Optional: true},
}

func (s chargeSpec) choose(read rails.Read, account string, inputs *jsonv.Object, now int64) (jsonv.Value, error) {
	acct, _, ok := accountKey(account)
	if !ok {
		return nil, rails.Refuse(mpp.CodeNoPayableOption)
	}
	for _, v := range read.Options {
		// One check as placed (the opaque's LCP keys are the seller's
		// placement) names the pairings offered: OffersPlaced would check
		// the challenge a second time.
		checked, err := mpp.CheckChallenge(v, true)
		if err != nil || !checked.Offers(s.id) {
			continue
		}
		if n, err := s.network(checked); err != nil || n != acct.Network() {
			continue
		}
		choice := jsonv.Obj("challenge", checked.Challenge.Clone(), "payer", acct.Address, "now", now)
		d := s.details(checked)
		currency := mpp.String(checked.Request, "currency")
		for _, in := range chargeInputs {
			v, has := inputs.Get(in.Name)
			if !has {
				if _, named := d.Get(in.Name); !named && (in.Name == "recentBlockhash" || currency != currencySOL && (in.Name == "decimals" || in.Name == "tokenProgram")) {
					return nil, rails.Refuse(mpp.CodeInputMissing)
				}
				continue
			}
			if !chargeInputOK(in, v) {
				return nil, rails.Refuse(mpp.CodeInputMissing)
			}
			choice.Set(in.Name, jsonv.Clone(v))
		}
		return choice, nil
	}
	return nil, rails.Refuse(mpp.CodeNoPayableOption)
}

func chargeInputOK(in mpp.Input, v jsonv.Value) bool {
	switch in.Kind {
	case "number":
		n, ok := jsonv.AsSafeInt(v)
		return ok && n >= 0
	case "decimal":
		s, ok := v.(string)
		return ok && rails.IsDecimal(s)
	}
	s, ok := v.(string)
	return ok && s != ""
}

// Choose takes the first challenge offering the pairing on the account's
// network. The buyer gives what the request does not name: the mint's
// decimals and token program, the recent blockhash (mpp/input-missing
// without them), and optionally the compute budget.
func (Charge) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	return solanaCharge.choose(read, account, inputs, now)
}

// chargeUnsigned is the built message and what completes it.
type chargeUnsigned struct {
	challenge  *jsonv.Object
	payer      Key
	network    string
	message    []byte
	validUntil int64
}

// build, in the reference's order: the choice an object
// (svm/input-malformed); the challenge as placed, offering the pairing and
// naming h (the MPP codes); the request's externalId the carrier of h
// (svm/carrier-mismatch); no splits and no confidential transfer, a payer
// key, a blockhash, the compute budget in range, decimals and a token
// program for a mint (svm/input-malformed); the network declared
// (svm/network-undeclared). The message is the compute budget, the
// transfer and one Memo v3 instruction carrying the externalId.
func (s chargeSpec) build(choice jsonv.Value, h atr.Hash) (rails.Unsigned, error) {
	malformed := rails.Refuse(CodeInputMalformed)
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, malformed
	}
	challenge, ok := c.GetObject("challenge")
	if !ok {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	checked, err := mpp.CheckChosen(challenge, s.id, h)
	if err != nil {
		return nil, err
	}
	r, d := checked.Request, s.details(checked)
	memo := Carrier(h)
	if mpp.String(r, "externalId") != memo {
		return nil, rails.Refuse(CodeCarrierMismatch)
	}
	if conf, _ := d.Get("confidential"); d.Has("splits") || conf == true {
		return nil, malformed
	}
	payer, ok := keyAt(c, "payer")
	if !ok {
		return nil, malformed
	}
	feePayer := payer
	if fp, _ := d.Get("feePayer"); fp == true {
		if feePayer, ok = keyAt(d, "feePayerKey"); !ok {
			return nil, malformed
		}
	}
	from := c
	if d.Has("recentBlockhash") {
		from = d
	}
	blockhash, ok := keyAt(from, "recentBlockhash")
	if !ok {
		return nil, malformed
	}
	limit := int64(DefaultComputeUnits)
	if v, has := c.Get("computeUnitLimit"); has {
		if limit, ok = jsonv.AsSafeInt(v); !ok || limit < 0 || limit > 0xffffffff {
			return nil, malformed
		}
	}
	price := big.NewInt(DefaultMicroLamports)
	if v, has := c.Get("computeUnitPrice"); has {
		text, _ := v.(string)
		if price, ok = new(big.Int).SetString(text, 10); !ok || !rails.IsDecimal(text) || price.Cmp(two64) >= 0 {
			return nil, malformed
		}
	}
	nv, _ := c.Get("now")
	now, okNow := jsonv.AsSafeInt(nv)
	until, okUntil := payableUntil(now)
	if !okNow || !okUntil {
		return nil, malformed
	}
	if checked.Expires < until {
		until = checked.Expires // the credential answers a challenge that lapses then
	}
	network, err := s.network(checked)
	if err != nil {
		return nil, err
	}
	amount, _ := U64(mpp.String(r, "amount")) // the method check read it
	recipient, _ := keyAt(r, "recipient")
	ixs := ComputeBudgetIxs(uint32(limit), price.Uint64())
	if mpp.String(r, "currency") == currencySOL {
		ixs = append(ixs, Ix{Program: SystemProgram, Data: binary.LittleEndian.AppendUint64([]byte{2, 0, 0, 0}, amount),
			Accounts: []AccountMeta{{Key: payer, Signer: true, Writable: true}, {Key: recipient, Writable: true}}})
	} else {
		mint, _ := keyAt(r, "currency")
		dsrc, tsrc := c, c
		if d.Has("decimals") {
			dsrc = d
		}
		if d.Has("tokenProgram") {
			tsrc = d
		}
		dv, _ := dsrc.Get("decimals")
		decimals, okD := jsonv.AsSafeInt(dv)
		tokenProgram, okT := keyAt(tsrc, "tokenProgram")
		if !okD || decimals < 0 || decimals > 255 || !okT || tokenProgram != TokenProgram && tokenProgram != Token2022Program {
			return nil, malformed
		}
		source, err1 := AssociatedTokenAccount(payer, tokenProgram, mint)
		destination, err2 := AssociatedTokenAccount(recipient, tokenProgram, mint)
		if err1 != nil || err2 != nil {
			return nil, malformed
		}
		data := append(binary.LittleEndian.AppendUint64([]byte{12}, amount), byte(decimals))
		ixs = append(ixs, Ix{Program: tokenProgram, Data: data, Accounts: []AccountMeta{
			{Key: source, Writable: true}, {Key: mint}, {Key: destination, Writable: true}, {Key: payer, Signer: true},
		}})
	}
	ixs = append(ixs, Ix{Program: MemoV3, Data: []byte(memo)})
	return &chargeUnsigned{challenge: challenge, payer: payer, network: network, message: CompileV0(feePayer, blockhash, ixs),
		validUntil: until}, nil
}

// Build makes the message the payer signs (docs/solana.md, "MPP charge").
func (Charge) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	return solanaCharge.build(choice, h)
}

// chargeRequest is {kind: "solana-message", message, network, validUntil},
// as x402/exact/solana's: the message names neither its network nor how
// long it stays payable.
func chargeRequest(u rails.Unsigned) (rails.Request, error) {
	b := u.(*chargeUnsigned)
	return jsonv.Obj("kind", "solana-message", "message", "0x"+hex.EncodeToString(b.message), "network", b.network,
		"validUntil", jsonv.Number(b.validUntil)), nil
}

func (Charge) Request(u rails.Unsigned) (rails.Request, error) { return chargeRequest(u) }

// chargeComplete answers the challenge with {challenge, payload: {type:
// "transaction", transaction}}: the payer's signature in its slot, zeros
// in the fee payer's, which the seller fills.
func chargeComplete(u rails.Unsigned, answer jsonv.Value) (rails.Completion, error) {
	b := u.(*chargeUnsigned)
	sig, ok := Signature64(answer)
	if !ok {
		return rails.Completion{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	wire, ok := SignedWire(b.message, b.payer, sig)
	if !ok {
		return rails.Completion{}, rails.Refuse(CodeInputMalformed)
	}
	return rails.Completion{Signed: jsonv.Obj("challenge", b.challenge.Clone(),
		"payload", jsonv.Obj("type", "transaction", "transaction", base64.StdEncoding.EncodeToString(wire)))}, nil
}

func (Charge) Complete(u rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	return chargeComplete(u, answer)
}

// presentedTx is the signed transaction a credential presents: its
// transaction, the last of a bundle (at most 8), or a fetched signature
// credential's. Under transactionOnly any other type is
// mpp/credential-type; a signature credential not yet fetched is
// svm/read-first; an empty bundle svm/bundle-empty.
func (s chargeSpec) presentedTx(payload *jsonv.Object) (*Tx, error) {
	typ, _ := payload.GetString("type")
	var v jsonv.Value
	switch {
	case typ == "transaction":
		v, _ = payload.Get("transaction")
	case s.transactionOnly:
		return nil, rails.Refuse(mpp.CodeCredentialType)
	case typ == "bundle":
		lv, _ := payload.Get("transactions")
		list, ok := jsonv.AsArray(lv)
		if !ok || len(list) > maxBundle {
			return nil, rails.Refuse(CodeTxMalformed)
		}
		if len(list) == 0 {
			return nil, rails.Refuse(CodeBundleEmpty)
		}
		v = list[len(list)-1]
	case typ == "signature":
		var has bool
		if v, has = payload.Get("transaction"); !has {
			return nil, rails.Refuse(CodeReadFirst)
		}
	default:
		return nil, rails.Refuse(mpp.CodeCredentialType)
	}
	return WireOf(v)
}

// LCPMemo is the one top-level Memo instruction (v3 or v4) of tx whose
// UTF-8 data parses as an LCP string (lcp:sha256:0x and 64 hex digits of
// either case); memos that do not are not read. None is svm/no-carrier,
// several svm/memo-count; the one found must be spelled exactly as the
// carrier, lowercase (svm/carrier-not-canonical).
func LCPMemo(tx *Tx) (memo, h string, err error) {
	n := 0
	for _, ix := range tx.Instructions {
		if k, ok := tx.ProgramOf(ix); !ok || k != MemoV3 && k != MemoV4 || !utf8.Valid(ix.Data) {
			continue
		}
		text := string(ix.Data)
		if rest, ok := strings.CutPrefix(text, lcpPrefix); ok && rails.IsHex(rest, 64) {
			memo, h = text, strings.ToLower(rest)
			n++
		}
	}
	switch {
	case n == 0:
		return "", "", rails.Refuse(CodeNoCarrier)
	case n > 1:
		return "", "", rails.Refuse(CodeMemoCount)
	case memo != lcpPrefix+h:
		return "", "", rails.Refuse(CodeCarrierNotCanon)
	}
	return memo, h, nil
}

// chargeBinding is what the read-back found.
type chargeBinding struct {
	echoed *mpp.Bound
	tx     *Tx
	h      string
}

// binding is the read-back: the shared MPP steps and the echoed challenge
// offering the pairing; the presented transaction; no durable-nonce
// account from a lookup table (svm/nonce-account-not-static); its one LCP
// memo, which must be the echoed request's externalId
// (svm/carrier-mismatch) and name the echoed id's H
// (mpp/carrier-not-challenge).
func (s chargeSpec) binding(presented jsonv.Value) (*chargeBinding, error) {
	e, err := mpp.Echoed(presented, s.id)
	if err != nil {
		return nil, err
	}
	tx, err := s.presentedTx(e.Payload)
	if err != nil {
		return nil, err
	}
	if isAdvance, fromTable, _, _ := advanceNonce(tx); isAdvance && fromTable {
		return nil, rails.Refuse(CodeNonceNotStatic)
	}
	memo, h, err := LCPMemo(tx)
	if err != nil {
		return nil, err
	}
	if memo != mpp.String(e.Checked.Request, "externalId") {
		return nil, rails.Refuse(CodeCarrierMismatch)
	}
	if h != e.H.String() {
		return nil, rails.Refuse(CodeCarrierNotThisH)
	}
	return &chargeBinding{echoed: e, tx: tx, h: h}, nil
}

// Bound reads H back: the echoed challenge's, once the signed LCP memo is
// the echoed request's externalId and names that H. No signature is
// verified; the chain verifies every signer's over the message it runs.
func (Charge) Bound(presented jsonv.Value) (string, error) {
	b, err := solanaCharge.binding(presented)
	if err != nil {
		return "", err
	}
	return b.h, nil
}

// reference is what a seller records to find the payment on chain:
// ReferenceOf the presented transaction on the request's network
// (svm/network-undeclared on localnet), its transaction the credential's
// signature for a signature credential.
func (s chargeSpec) reference(presented jsonv.Value) (*jsonv.Object, error) {
	b, err := s.binding(presented)
	if err != nil {
		return nil, err
	}
	network, err := s.network(b.echoed.Checked)
	if err != nil {
		return nil, err
	}
	ref := ReferenceOf(network, b.tx)
	if typ, _ := b.echoed.Payload.GetString("type"); typ == "signature" {
		if sig, ok := b.echoed.Payload.GetString("signature"); ok {
			ref.Set("transaction", sig)
		}
	}
	return ref, nil
}

// Reference is the presented payment's reference (ReferenceOf's members).
func (Charge) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	return solanaCharge.reference(presented)
}

// FetchPresented is the seller's read of a push credential (type
// "signature"): the landed transaction read at confirmed and added as
// payload.transaction, so that Bound reads it. Other credentials come back
// unchanged. A reader of another network is svm/wrong-reader, a failed read
// svm/unreadable, none found svm/not-found, a landed transaction that
// failed svm/err; a signature that is not 64 base58 bytes
// mpp/credential-malformed.
func (Charge) FetchPresented(credential jsonv.Value, r Reader) (jsonv.Value, error) {
	cred, ok := jsonv.AsObject(credential)
	payload, okP := cred.GetObject("payload")
	if !ok || !okP {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if typ, _ := payload.GetString("type"); typ != "signature" {
		return credential, nil
	}
	e, err := mpp.Echoed(credential, ChargeID)
	if err != nil {
		return nil, err
	}
	network, err := solanaCharge.network(e.Checked)
	if err != nil {
		return nil, err
	}
	if r == nil || r.Network() != network {
		return nil, rails.Refuse(CodeWrongReader)
	}
	sig, _ := payload.GetString("signature")
	if !isSignature(sig) {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	l, err := r.Transaction(sig, CommitmentConfirmed)
	switch {
	case err != nil:
		return nil, rails.Refuse(CodeUnreadable)
	case l == nil:
		return nil, rails.Refuse(CodeNotFound)
	case l.Err != nil:
		return nil, rails.Refuse(CodeErr)
	}
	out := cred.Clone()
	p := payload.Clone()
	p.Set("transaction", base64.StdEncoding.EncodeToString(l.Wire))
	out.Set("payload", p)
	return out, nil
}

// ChargeRecover is zero-party recovery of H from the landed transaction ref
// names ({network, transaction}), as Recover reads it, but from the one
// LCP memo among its memos (LCPMemo).
func ChargeRecover(ref *jsonv.Object, r Reader) (string, error) {
	network, _ := ref.GetString("network")
	signature, _ := ref.GetString("transaction")
	if r == nil || network == "" || network != r.Network() {
		return "", rails.Refuse(CodeWrongReader)
	}
	if !isSignature(signature) {
		return "", rails.Refuse(CodeUnreadable)
	}
	l, _, err := landedAt(r, signature)
	switch {
	case err != nil:
		return "", rails.Refuse(CodeUnreadable)
	case l == nil:
		return "", rails.Refuse(CodeNotFound)
	case l.Err != nil:
		return "", rails.Refuse(CodeErr)
	}
	tx, ok, _ := DecodeTx(l.Wire)
	if !ok {
		return "", rails.Refuse(CodeTxMalformed)
	}
	_, h, err := LCPMemo(tx)
	return h, err
}

// Summarize reads the solana-message request as x402/exact/solana's does,
// and also a SOL charge's one System transfer (summarizeCharge).
func (Charge) Summarize(req rails.Request) (rails.Grant, error) { return summarizeCharge(req) }

// summarizeCharge: a token charge is read by Exact.Summarize; a message
// with no token instruction must hold exactly one System transfer (data
// 02000000 ‖ lamports u64, accounts from and to) and no other System
// instruction, the grant then in lamports ("sol", 9 decimals).
func summarizeCharge(req rails.Request) (rails.Grant, error) {
	text, _ := req.GetString("message")
	raw, ok := hexBytes(strings.TrimPrefix(text, "0x"))
	if !ok || !strings.HasPrefix(text, "0x") {
		return rails.Grant{}, errUnreadable
	}
	m, ok := DecodeMessage(raw)
	if !ok || m.LookupTables != 0 {
		return rails.Grant{}, errUnreadable
	}
	system, tokens := 0, 0
	var lamports uint64
	var from, to Key
	for _, ix := range m.Instructions {
		p, ok := m.ProgramOf(ix)
		if !ok {
			return rails.Grant{}, errUnreadable
		}
		switch p {
		case SystemProgram:
			system++
			if len(ix.Data) != 12 || string(ix.Data[:4]) != "\x02\x00\x00\x00" || len(ix.Accounts) != 2 ||
				int(ix.Accounts[0]) >= len(m.Keys) || int(ix.Accounts[1]) >= len(m.Keys) {
				return rails.Grant{}, errUnreadable
			}
			lamports = binary.LittleEndian.Uint64(ix.Data[4:])
			from, to = m.Keys[ix.Accounts[0]], m.Keys[ix.Accounts[1]]
		case TokenProgram, Token2022Program:
			tokens++
		}
	}
	if system == 0 {
		return Exact{}.Summarize(req)
	}
	if system != 1 || tokens != 0 {
		return rails.Grant{}, errUnreadable
	}
	g, err := grantTimes(req)
	if err != nil {
		return rails.Grant{}, err
	}
	g.Asset, g.Decimals, g.Amount = currencySOL, solDecimals, new(big.Int).SetUint64(lamports)
	g.Payer, g.Payee = from.String(), to.String()
	return g, nil
}

// grantTimes is the network and validUntil of a solana-message request.
func grantTimes(req rails.Request) (rails.Grant, error) {
	network, _ := req.GetString("network")
	if !IsNetwork(network) {
		return rails.Grant{}, errUnreadable
	}
	g := rails.Grant{Network: network}
	if v, has := req.Get("validUntil"); has {
		u, ok := jsonv.AsSafeInt(v)
		if !ok || u <= 0 {
			return rails.Grant{}, errUnreadable
		}
		g.PayableUntil = time.Unix(u, 0).UTC()
	}
	return g, nil
}

// inspect reads a credential: the message through Summarize, as the spend
// policy read it, H and where it sits, the reference beside it.
func (s chargeSpec) inspect(payment jsonv.Value) (rails.Inspection, error) {
	b, err := s.binding(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	network, err := s.network(b.echoed.Checked)
	if err != nil {
		return rails.Inspection{}, err
	}
	req := jsonv.Obj("kind", "solana-message", "network", network, "message", "0x"+hex.EncodeToString(b.tx.Message),
		"validUntil", jsonv.Number(b.echoed.Checked.Expires))
	g, err := summarizeCharge(req)
	if err != nil {
		return rails.Inspection{}, err
	}
	return rails.Inspection{Pairing: s.id, Kind: "credential", Grant: g, H: b.h, WhereH: chargeWhereH,
		Details: reference(network, b.tx)}, nil
}

// Inspect implements rails.Inspector: the payable-until is the echoed
// challenge's expiry, past which the seller takes no credential for it.
func (Charge) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	return solanaCharge.inspect(payment)
}

// PlaceChargeChallenge is the seller's side: a copy of a Solana charge
// challenge as issued whose request's externalId is Carrier(h), re-encoded
// as base64url of canonical JSON; an externalId holding something else is
// occupied (svm/carrier-occupied). mpp.Place then adds the id and opaque.
func PlaceChargeChallenge(challenge *jsonv.Object, h atr.Hash) (*jsonv.Object, error) {
	return placeExternalID(challenge, h, CodeCarrierOccupied)
}

func placeExternalID(challenge *jsonv.Object, h atr.Hash, occupied string) (*jsonv.Object, error) {
	request, ok := mpp.DecodeObject(mpp.String(challenge, "request"))
	if !ok {
		return nil, rails.Refuse(mpp.CodeRequestMalformed)
	}
	if x, has := request.Get("externalId"); has && x != Carrier(h) {
		return nil, rails.Refuse(occupied)
	}
	request.Set("externalId", Carrier(h))
	out := challenge.Clone()
	out.Set("request", mpp.EncodeObject(request))
	return out, nil
}

// ChargeCurrency is the request currency ("sol" or a mint) of the first
// challenge in doc that offers pairing (mpp/charge/solana or
// mpp/charge/usdc/solana) on account's network: what the buyer's chain
// reads are for. ok false when there is none.
func ChargeCurrency(pairing string, doc jsonv.Value, account string) (string, bool) {
	spec := solanaCharge
	if pairing == ChargeUSDCID {
		spec = usdcCharge
	} else if pairing != ChargeID {
		return "", false
	}
	read, err := mpp.Read(doc)
	acct, _, ok := accountKey(account)
	if err != nil || !ok {
		return "", false
	}
	for _, v := range read.Options {
		checked, err := mpp.CheckChallenge(v, true)
		if err != nil || !checked.Offers(spec.id) {
			continue
		}
		if n, err := spec.network(checked); err == nil && n == acct.Network() {
			return mpp.String(checked.Request, "currency"), true
		}
	}
	return "", false
}
