package hedera

// mpp/charge/hedera: H sits in the signed TransactionBody's memo as MPP's
// attribution memo, "0x" and its 32 bytes in hex, whose last seven bytes
// commit to the challenge id, and the id is H. The body is a CryptoTransfer
// of the request's currency: the payer's debit of amount, the recipient's
// remainder and each split. The memo is in the public transaction record
// (docs/hedera.md).

import (
	"encoding/base64"
	"encoding/hex"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Charge is the mpp/charge/hedera pairing.
type Charge struct{}

// ChargeID is the pairing id.
const ChargeID = mpp.PairingHederaCharge

// Codes of the charge beyond the transaction's.
const (
	CodeReadFirst      = "hedera/read-first"
	CodeChainIDUnnamed = mpp.CodeHederaChainIDUnnamed
	MaxSplits          = 8
	MaxValidDuration   = 180
	credentialPull     = "transaction"
	credentialPush     = "hash"
)

var (
	_ rails.Pairing    = Charge{}
	_ rails.Summarizer = Charge{}
	_ rails.Inspector  = Charge{}
)

func (Charge) ID() string { return ChargeID }

func (Charge) Pattern() rails.Pattern {
	return rails.Pattern{Name: "opaque-challenge", PublicProof: true}
}

func (Charge) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// ChargeMemo is the attribution memo a charge's body carries: "0x" and the
// 32 bytes of mpp.AttributionMemo(realm, id) with no client id.
func ChargeMemo(realm, id string) string {
	m := mpp.AttributionMemo(realm, id, "", false)
	return "0x" + hex.EncodeToString(m[:])
}

// ChargeNetwork is the network of a charge's methodDetails: chainId 295
// mainnet, 296 testnet; with no chainId the default when one is given; any
// other chainId, or none and no default, is hedera/chain-id-unnamed.
func ChargeNetwork(details *jsonv.Object, defaultNetwork string) (string, error) {
	if _, has := details.Get("chainId"); !has && defaultNetwork != "" {
		if !IsNetwork(defaultNetwork) {
			return "", rails.Refuse(CodeChainIDUnnamed)
		}
		return defaultNetwork, nil
	}
	v, _ := details.Get("chainId")
	switch n, ok := jsonv.AsSafeInt(v); {
	case ok && n == 295:
		return "hedera:mainnet", nil
	case ok && n == 296:
		return "hedera:testnet", nil
	}
	return "", rails.Refuse(CodeChainIDUnnamed)
}

// chargeRows reads a request into the transfer's rows: currency an entity
// (HBAR is 0.0.0), recipient an entity, amount a positive decimal below
// 2^63, at most MaxSplits splits (payer, recipient and splits stay within
// the network's ten rows of a transfer list), each to an entity other than
// the recipient, positive, their sum below amount. Anything else is
// hedera/option-malformed.
func chargeRows(r *jsonv.Object, payer Entity) (asset string, rows []Transfer, err error) {
	malformed := rails.Refuse(CodeOptionMalformed)
	currency, _ := r.GetString("currency")
	recipient, okR := ParseEntity(mpp.String(r, "recipient"))
	amount, okA := amountOf(mpp.String(r, "amount"))
	if _, ok := ParseEntity(currency); !ok || !okR || !okA || recipient == payer {
		return "", nil, malformed
	}
	var splits []jsonv.Value
	if v, has := r.Get("splits"); has {
		s, ok := v.([]jsonv.Value)
		if !ok || len(s) > MaxSplits {
			return "", nil, malformed
		}
		splits = s
	}
	rows = make([]Transfer, 2, 2+len(splits))
	rest := amount
	seen := map[Entity]bool{recipient: true, payer: true}
	for _, v := range splits {
		o, ok := jsonv.AsObject(v)
		if !ok || o.Len() != 2 {
			return "", nil, malformed
		}
		to, okT := ParseEntity(mpp.String(o, "recipient"))
		n, okN := amountOf(mpp.String(o, "amount"))
		if !okT || !okN || seen[to] || n >= rest {
			return "", nil, malformed
		}
		seen[to] = true
		rest -= n
		rows = append(rows, Transfer{Account: to, Amount: n})
	}
	rows[0] = Transfer{Account: payer, Amount: -amount}
	rows[1] = Transfer{Account: recipient, Amount: rest}
	return currency, rows, nil
}

// CheckChargeRequest is chargeRows without a payer: the seller's check of
// its request.
func CheckChargeRequest(r *jsonv.Object) error {
	_, _, err := chargeRows(r, Entity{Shard: 1<<63 - 1})
	return err
}

// Choose takes the first challenge offering the pairing on the account's
// network, and the inputs node, maxFee, optionally validStart (now when
// absent) as x402/exact/hedera reads them, and credentialType: transaction
// (the default: the seller submits the signed transaction) or hash (the
// payer's wallet submits it and the credential names it); any other is
// hedera/option-malformed.
func (Charge) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, _, ok := accountOf(account)
	if !ok {
		return nil, rails.Refuse(mpp.CodeNoPayableOption)
	}
	var challenge *jsonv.Object
	for _, v := range read.Options {
		// One read of the challenge gives both what it offers and where.
		checked, err := mpp.CheckChallenge(v, true)
		if err != nil || !checked.Offers(ChargeID) {
			continue
		}
		if n, err := ChargeNetwork(checked.Details, ""); err == nil && n == acct.Network() {
			challenge, _ = jsonv.AsObject(v)
			break
		}
	}
	if challenge == nil {
		return nil, rails.Refuse(mpp.CodeNoPayableOption)
	}
	missing := rails.Refuse(mpp.CodeInputMissing)
	node, _ := inputs.GetString("node")
	fee, _ := inputs.GetString("maxFee")
	if _, ok := ParseEntity(node); !ok || !rails.IsDecimal(fee) {
		return nil, missing
	}
	vs := jsonv.Obj("seconds", strconv.FormatInt(now, 10), "nanos", 0)
	if v, has := inputs.Get("validStart"); has {
		o, ok := jsonv.AsObject(v)
		if !ok {
			return nil, missing
		}
		vs = o.Clone()
	}
	ct := credentialPull
	if v, has := inputs.Get("credentialType"); has {
		s, _ := v.(string)
		if s != credentialPull && s != credentialPush {
			return nil, rails.Refuse(CodeOptionMalformed)
		}
		ct = s
	}
	return jsonv.Obj("challenge", challenge.Clone(), "payer", acct.Address, "node", node, "maxFee", fee,
		"validStart", vs, "credentialType", ct), nil
}

type chargeUnsigned struct {
	challenge  *jsonv.Object
	network    string
	body       []byte
	id         TxID
	push       bool
	validUntil int64
}

// Build checks the choice (the challenge as placed, offering the pairing,
// its id naming h; the request's rows, hedera/option-malformed) and writes
// the body: the payer's transaction id at the valid start, the node, the
// maximum fee, ValidDuration, the memo ChargeMemo(realm, id) and the rows.
func (Charge) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	challenge, ok := c.GetObject("challenge")
	if !ok {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	checked, err := mpp.CheckChosen(challenge, ChargeID, h)
	if err != nil {
		return nil, err
	}
	network, err := ChargeNetwork(checked.Details, "")
	if err != nil {
		return nil, err
	}
	malformed := rails.Refuse(CodeOptionMalformed)
	str := func(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }
	payer, okP := ParseEntity(str(c, "payer"))
	node, okN := ParseEntity(str(c, "node"))
	maxFee, errF := strconv.ParseUint(str(c, "maxFee"), 10, 64)
	vs, _ := c.GetObject("validStart")
	secs, errS := strconv.ParseInt(str(vs, "seconds"), 10, 64)
	nv, _ := vs.Get("nanos")
	nanos, okNs := jsonv.AsSafeInt(nv)
	ct := str(c, "credentialType")
	if !okP || !okN || errF != nil || errS != nil || secs < 0 || !okNs || nanos < 0 || nanos > 999_999_999 ||
		secs > 1<<53-1-ValidDuration || (ct != credentialPull && ct != credentialPush) {
		return nil, malformed
	}
	asset, rows, err := chargeRows(checked.Request, payer)
	if err != nil {
		return nil, err
	}
	id := TxID{Account: payer, Seconds: secs, Nanos: int32(nanos)}
	spec := BodySpec{ID: id, Node: node, MaxFee: maxFee, Memo: ChargeMemo(str(challenge, "realm"), str(challenge, "id")),
		Asset: asset, Rows: rows}
	return &chargeUnsigned{challenge: challenge.Clone(), network: network, body: WriteBody(spec), id: id,
		push: ct == credentialPush, validUntil: secs + ValidDuration}, nil
}

// Request is {kind: "hedera-body", bodyBytes (hex, as MPP's Hedera method
// writes it), broadcast: true for a push, network, validUntil}: network and
// validUntil are termsgate's, for the spend policy and the signer.
func (Charge) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*chargeUnsigned)
	req := jsonv.Obj("kind", KindBody, "bodyBytes", hex.EncodeToString(b.body))
	if b.push {
		req.Set("broadcast", true)
	}
	req.Set("network", b.network)
	req.Set("validUntil", jsonv.Number(b.validUntil))
	return req, nil
}

// Complete: a pull's answer is the signature pair, written with the body
// bytes as built as payload {type: "transaction", transaction (base64)}.
// The signature is not verified here: only the signature is taken from
// the signer, so whatever it signed, the transaction sent is the body
// built, and a bad signature fails at the node, moving nothing. A
// push's answer is the submitted transaction's id, which must be the
// body's, written as payload {type: "hash", transactionId}.
func (Charge) Complete(u rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	b := u.(*chargeUnsigned)
	var payload *jsonv.Object
	if b.push {
		o, _ := jsonv.AsObject(answer)
		s, _ := o.GetString("transactionId")
		if id, ok := ParseTxID(s); !ok || id != b.id {
			return rails.Completion{}, rails.Refuse(mpp.CodeCredentialMalformed)
		}
		payload = jsonv.Obj("type", credentialPush, "transactionId", s)
	} else {
		sig, ok := SigOf(answer)
		if !ok {
			return rails.Completion{}, rails.Refuse(mpp.CodeCredentialMalformed)
		}
		payload = jsonv.Obj("type", credentialPull,
			"transaction", base64.StdEncoding.EncodeToString(WriteTransaction(b.body, sig)))
	}
	return rails.Completion{Signed: jsonv.Obj("challenge", b.challenge.Clone(), "payload", payload)}, nil
}

// ParseTxID reads a transaction id's text form, account@seconds.nanos
// (nine digits of nanos).
func ParseTxID(s string) (TxID, bool) {
	acct, at, ok := strings.Cut(s, "@")
	secs, nanos, ok2 := strings.Cut(at, ".")
	e, okE := ParseEntity(acct)
	if !ok || !ok2 || !okE || len(nanos) != 9 || !rails.IsDecimal(secs) || !rails.IsDecimal(nanos) || len(secs) > 15 {
		return TxID{}, false
	}
	n, err1 := strconv.ParseInt(secs, 10, 64)
	ns, err2 := strconv.ParseInt(nanos, 10, 32)
	if err1 != nil || err2 != nil {
		return TxID{}, false
	}
	return TxID{Account: e, Seconds: n, Nanos: int32(ns)}, true
}

// chargePresented is a presented credential read: the echoed challenge
// (placed, offering the pairing), its H, and a pull's signed body or a
// push's transaction id.
type chargePresented struct {
	e    *mpp.Bound
	body *Body
	id   TxID
	push bool
}

func readCharge(presented jsonv.Value) (*chargePresented, error) {
	e, err := mpp.Echoed(presented, ChargeID)
	if err != nil {
		return nil, err
	}
	switch typ, _ := e.Payload.GetString("type"); typ {
	case credentialPull:
		tv, _ := e.Payload.Get("transaction")
		s, err := WireOf(tv)
		if err != nil {
			return nil, err
		}
		return &chargePresented{e: e, body: s.Bodies[0], id: s.Bodies[0].ID}, nil
	case credentialPush:
		s, _ := e.Payload.GetString("transactionId")
		id, ok := ParseTxID(s)
		if !ok {
			return nil, rails.Refuse(mpp.CodeCredentialMalformed)
		}
		return &chargePresented{e: e, id: id, push: true}, nil
	}
	return nil, rails.Refuse(mpp.CodeCredentialType)
}

// memo is the body's memo, or for a push the landed memo (landed.memo, as
// FetchPresented writes it): without it hedera/read-first.
func (c *chargePresented) memo(landed *jsonv.Object) (string, error) {
	if !c.push {
		return c.body.Memo, nil
	}
	m, ok := landed.GetString("memo")
	if !ok {
		return "", rails.Refuse(CodeReadFirst)
	}
	return m, nil
}

// Bound reads H back from a pull credential: the signed body's memo must be
// the echoed challenge's attribution memo (mpp/attribution-mismatch); a
// push is hedera/read-first (BoundLanded).
func (Charge) Bound(presented jsonv.Value) (string, error) { return BoundLanded(presented, nil) }

// BoundLanded is Bound with what FetchPresented read: a push credential's
// landed memo stands for the body's.
func BoundLanded(presented jsonv.Value, landed *jsonv.Object) (string, error) {
	c, err := readCharge(presented)
	if err != nil {
		return "", err
	}
	memo, err := c.memo(landed)
	if err != nil {
		return "", err
	}
	if err := mpp.CheckAttribution(memo, mpp.String(c.e.Challenge, "realm"), mpp.String(c.e.Challenge, "id")); err != nil {
		return "", err
	}
	return c.e.H.String(), nil
}

// ReferenceLanded is what a seller records to find the payment: {network
// (the landed one, else the challenge's), transactionId (Mirror form),
// expectMemo, validUntil}: the valid start plus the body's valid duration,
// or for a push, whose body the seller never saw, plus the network's
// longest (MaxValidDuration).
func ReferenceLanded(presented jsonv.Value, landed *jsonv.Object) (*jsonv.Object, error) {
	if _, err := BoundLanded(presented, landed); err != nil {
		return nil, err
	}
	c, _ := readCharge(presented)
	memo, _ := c.memo(landed)
	network, ok := landed.GetString("network")
	if !ok {
		n, err := ChargeNetwork(c.e.Checked.Details, "")
		if err != nil {
			return nil, err
		}
		network = n
	}
	until := c.id.Seconds + MaxValidDuration
	if !c.push {
		until = c.id.Seconds + c.body.ValidDuration
	}
	return jsonv.Obj("network", network, "transactionId", c.id.Mirror(), "expectMemo", memo,
		"validUntil", jsonv.Number(until)), nil
}

// FetchPresented is read before Bound and Reference: the network (the
// challenge's chainId, else defaultNetwork, else hedera/chain-id-unnamed),
// which r must read (hedera/wrong-reader), and for a push the memo of its
// landed SUCCESS entry (hedera/unreadable on a failed read or a memo that is
// not base64, hedera/not-found when the node holds no such entry). It
// answers {network, memo (push only)}; a pull reads nothing.
func FetchPresented(presented jsonv.Value, r Reader, defaultNetwork string) (*jsonv.Object, error) {
	c, err := readCharge(presented)
	if err != nil {
		return nil, err
	}
	network, err := ChargeNetwork(c.e.Checked.Details, defaultNetwork)
	if err != nil {
		return nil, err
	}
	if r == nil || r.Network() != network {
		return nil, rails.Refuse(CodeWrongReader)
	}
	out := jsonv.Obj("network", network)
	if !c.push {
		return out, nil
	}
	entries, found, err := r.Transactions(c.id.Mirror())
	switch {
	case err != nil:
		return nil, rails.Refuse(CodeUnreadable)
	case !found:
		return nil, rails.Refuse(CodeNotFound)
	}
	for _, e := range counted(entries) {
		if e.Result != "SUCCESS" {
			continue
		}
		memo, err := base64.StdEncoding.DecodeString(e.MemoBase64)
		if err != nil || len(memo) > MaxMemo {
			return nil, rails.Refuse(CodeUnreadable)
		}
		out.Set("memo", string(memo))
		return out, nil
	}
	return nil, rails.Refuse(CodeNotFound)
}

// Summarize reads a charge's hedera-body request: a CryptoTransfer in HBAR
// or one token whose first row is the only debit and whose credits sum to
// it; the grant is the debit, from its account, to the first credit (the
// recipient; splits are paid out of the same amount), payable from the
// valid start for the body's valid duration.
func (Charge) Summarize(req rails.Request) (rails.Grant, error) {
	if k, _ := req.GetString("kind"); k != KindBody {
		return rails.Grant{}, errUnreadable
	}
	network, _ := req.GetString("network")
	text, _ := req.GetString("bodyBytes")
	if len(text) > 2*MaxTx || !IsNetwork(network) {
		return rails.Grant{}, errUnreadable
	}
	raw, err := hex.DecodeString(text)
	if err != nil {
		return rails.Grant{}, errUnreadable
	}
	body, ok := ReadBody(raw)
	if !ok {
		return rails.Grant{}, errUnreadable
	}
	return chargeGrant(body, network)
}

func chargeGrant(body *Body, network string) (rails.Grant, error) {
	if !body.IsTransfer {
		return rails.Grant{}, errUnreadable
	}
	rows, asset, decimals := body.HBAR, HBAR, 8
	if body.Token != nil {
		if len(body.HBAR) != 0 {
			return rails.Grant{}, errUnreadable
		}
		rows, asset, decimals = body.TokenRows, body.Token.String(), -1
		if body.HasDecimals {
			decimals = int(body.Decimals)
		}
	}
	if len(rows) < 2 || rows[0].Amount >= 0 {
		return rails.Grant{}, errUnreadable
	}
	sum := big.NewInt(rows[0].Amount)
	for _, r := range rows[1:] {
		if r.Amount <= 0 {
			return rails.Grant{}, errUnreadable
		}
		sum.Add(sum, big.NewInt(r.Amount))
	}
	if sum.Sign() != 0 {
		return rails.Grant{}, errUnreadable
	}
	start := time.Unix(body.ID.Seconds, int64(body.ID.Nanos)).UTC()
	return rails.Grant{Network: network, Asset: asset, Decimals: decimals, Amount: big.NewInt(-rows[0].Amount),
		Payer: rows[0].Account.String(), Payee: rows[1].Account.String(), PayableFrom: start,
		PayableUntil: time.Unix(body.ID.Seconds+body.ValidDuration, 0).UTC()}, nil
}

// Inspect reads a pull credential's signed body through Summarize's
// reading, with H, the transaction id and the splits beside it.
func (Charge) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := BoundLanded(payment, nil)
	if err != nil {
		return rails.Inspection{}, err
	}
	c, _ := readCharge(payment)
	network, err := ChargeNetwork(c.e.Checked.Details, "")
	if err != nil {
		return rails.Inspection{}, err
	}
	g, err := chargeGrant(c.body, network)
	if err != nil {
		return rails.Inspection{}, err
	}
	rows := c.body.HBAR
	if c.body.Token != nil {
		rows = c.body.TokenRows
	}
	var splits []jsonv.Value
	for _, r := range rows[2:] {
		splits = append(splits, jsonv.Obj("recipient", r.Account.String(), "amount", strconv.FormatInt(r.Amount, 10)))
	}
	if splits == nil {
		splits = []jsonv.Value{}
	}
	return rails.Inspection{Pairing: ChargeID, Kind: "credential", Grant: g, H: h,
		WhereH: "the signed TransactionBody's memo: MPP's attribution memo (0x + 32 bytes), its last seven bytes committing to the challenge id, which is H",
		Details: jsonv.Obj("transactionId", c.body.ID.Text(), "node", c.body.Node.String(),
			"maxFee", strconv.FormatUint(c.body.MaxFee, 10), "memo", c.body.Memo,
			"recipientAmount", strconv.FormatInt(rows[1].Amount, 10), "splits", splits)}, nil
}
