package xrpl

// mpp/session/xrpl: H sits in the opening PaymentChannelCreate's one memo,
// whose MemoData is the UTF-8 of H's LCP string "lcp:sha256:0x…"
// (SessionMemo); the challenge's id and opaque carry H too. The opening is
// signed and validated with its memo, a public proof of H; the claims
// signed inside the channel carry no H of their own and are bound through
// the channel the opening created (docs/xrpl.md).

import (
	"encoding/hex"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Session is the mpp/session/xrpl pairing.
type Session struct{}

// SessionID is the pairing id.
const SessionID = mpp.PairingXRPLSession

// Refusal codes of the session's channel members.
const (
	CodeSessionAction        = mpp.CodeSessionAction
	CodeNotBoundWithin       = "mpp/not-bound-within"
	CodeWithinActionNotBuilt = "mpp/within-action-not-built"
)

// MaxMemos is the most memos an opening may carry.
const MaxMemos = 8

var (
	_ rails.Channel       = Session{}
	_ rails.WithinBuilder = Session{}
	_ rails.ChannelNamer  = Session{}
)

func (Session) ID() string { return SessionID }

func (Session) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

func (Session) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// Choose takes the first challenge offering the pairing on the account's
// network, and the inputs deposit (decimal) and xrpl {publicKey (0x hex of
// at least one byte), settleDelay, fee (decimal), sequence,
// lastLedgerSequence, cancelAfter? (uint)}.
func (Session) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	challenge, from, err := chooseMPP(read, account, SessionID)
	if err != nil {
		return nil, err
	}
	missing := rails.Refuse(mpp.CodeInputMissing)
	deposit, _ := inputs.GetString("deposit")
	x, ok := inputs.GetObject("xrpl")
	if !rails.IsDecimal(deposit) || !ok {
		return nil, missing
	}
	pk, _ := x.GetString("publicKey")
	if !strings.HasPrefix(pk, "0x") || len(pk) < 4 || len(pk)%2 != 0 || !isHexDigits(pk[2:]) {
		return nil, missing
	}
	terms := jsonv.Obj("publicKey", pk[2:])
	for _, k := range []string{"settleDelay", "fee", "sequence", "lastLedgerSequence", "cancelAfter"} {
		v, has := x.Get(k)
		switch {
		case !has && k == "cancelAfter":
			continue
		case !has:
			return nil, missing
		case k == "fee":
			if s, ok := v.(string); !ok || !rails.IsDecimal(s) {
				return nil, missing
			}
		case !uintInput(v):
			return nil, missing
		}
		terms.Set(k, jsonv.Clone(v))
	}
	choice := jsonv.Obj("challenge", challenge, "from", from, "now", now, "deposit", deposit, "xrpl", terms)
	if !validUntil(inputs, choice) {
		return nil, missing
	}
	return choice, nil
}

type sessionUnsigned struct {
	until     int64
	network   string
	challenge *jsonv.Object
	source    string
	amount    string
	txJSON    *jsonv.Object
	claim     []byte
	channel   [32]byte
	drops     uint64
	publicKey []byte
}

var two64 = new(big.Int).Lsh(big.NewInt(1), 64)

// Build writes the channel's opening with H's memo, and the first claim
// (the challenge's amount) on the channel it creates.
func (Session) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	x, ok := c.GetObject("xrpl")
	if !ok {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	c, checked, err := chosenFor(c, h, SessionID)
	if err != nil {
		return nil, err
	}
	depositText, _ := c.GetString("deposit")
	if !rails.IsDecimal(depositText) {
		return nil, rails.Refuse(mpp.CodeChoiceMalformed)
	}
	deposit, _ := new(big.Int).SetString(depositText, 10)
	malformed := rails.Refuse(mpp.CodeInputMalformed)
	from, okF := c.GetString("from")
	pkText, _ := x.GetString("publicKey")
	pub, errPK := hex.DecodeString(pkText)
	fee, _ := x.GetString("fee")
	u32s := map[string]uint32{}
	for _, k := range []string{"settleDelay", "sequence", "lastLedgerSequence", "cancelAfter"} {
		v, has := x.Get(k)
		if !has && k == "cancelAfter" {
			continue
		}
		n, ok := u32(v)
		if !ok {
			return nil, malformed
		}
		u32s[k] = n
	}
	until, okU := validUntilOf(c)
	if !okF || !okU || deposit.Sign() <= 0 || deposit.Cmp(two64) >= 0 || errPK != nil || len(pub) == 0 || !isMPPFee(fee) {
		return nil, malformed
	}
	network, err := mpp.Network(checked.Challenge)
	if err != nil {
		return nil, err
	}
	recipient := mpp.String(checked.Request, "recipient")
	payer, err1 := ParseAddress(from)
	payee, err2 := ParseAddress(recipient)
	if err1 != nil || err2 != nil {
		return nil, rails.Refuse(CodeNotChannelCreate)
	}
	channel := ChannelID(payer, payee, u32s["sequence"])
	amount := mpp.String(checked.Request, "amount")
	drops, err := strconv.ParseUint(amount, 10, 64)
	if err != nil {
		return nil, rails.Refuse(CodeNotChannelCreate)
	}
	tx := jsonv.Obj("TransactionType", "PaymentChannelCreate", "Flags", 0, "Account", from,
		"Amount", depositText, "Destination", recipient, "SettleDelay", jsonv.Number(u32s["settleDelay"]),
		"PublicKey", strings.ToUpper(pkText))
	if ca, has := u32s["cancelAfter"]; has {
		tx.Set("CancelAfter", jsonv.Number(ca))
	}
	tx.Set("Memos", []jsonv.Value{jsonv.Obj("Memo", jsonv.Obj("MemoData", SessionMemo(h)))})
	tx.Set("Fee", fee)
	tx.Set("Sequence", jsonv.Number(u32s["sequence"]))
	tx.Set("LastLedgerSequence", jsonv.Number(u32s["lastLedgerSequence"]))
	id, _ := NetworkID(network)
	return &sessionUnsigned{
		until: until, network: network, challenge: checked.Challenge, source: "did:pkh:xrpl:" + strconv.FormatUint(uint64(id), 10) + ":" + from,
		amount: amount, txJSON: tx, claim: ClaimBytes(channel, drops), channel: channel, drops: drops, publicKey: pub,
	}, nil
}

// claimJSON is a claim in a signing request: the channel id (uppercase
// hex), drops as a decimal string (a u64 does not fit a JSON number's
// exact range) and the claim bytes as 0x hex.
func claimJSON(channel [32]byte, drops uint64, claim []byte) *jsonv.Object {
	return jsonv.Obj("channelId", upperHex(channel[:]), "drops", strconv.FormatUint(drops, 10), "bytes", "0x"+hex.EncodeToString(claim))
}

// Request is {kind: "xrpl-session-open", txJson, claim}: the wallet signs
// the opening and, with the channel key, the first claim, answering
// {signedBlob, claimSignature}.
func (Session) Request(un rails.Unsigned) (rails.Request, error) {
	u := un.(*sessionUnsigned)
	return withValidUntil(jsonv.Obj("kind", KindSessionOpen, "network", u.network, "txJson", u.txJSON.Clone(), "claim", claimJSON(u.channel, u.drops, u.claim)), u.until), nil
}

// Complete checks the signed opening is the built one and the claim
// signature verifies under the channel key, then builds the opening
// credential and reads it back as a seller would.
func (p Session) Complete(un rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	u := un.(*sessionUnsigned)
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	o, ok := jsonv.AsObject(answer)
	if !ok {
		return rails.Completion{}, malformed
	}
	blob, ok1 := signedDigits(member(o, "signedBlob"))
	sig, ok2 := signedDigits(member(o, "claimSignature"))
	if !ok1 || !ok2 {
		return rails.Completion{}, malformed
	}
	if _, err := checkSigned(blob, u.txJSON); err != nil {
		return rails.Completion{}, err
	}
	rawSig, _ := hex.DecodeString(sig)
	if !Verify(u.publicKey, u.claim, rawSig) {
		return rails.Completion{}, malformed
	}
	cred := jsonv.Obj("challenge", u.challenge.Clone(), "source", u.source,
		"payload", jsonv.Obj("action", "open", "transaction", blob, "amount", u.amount, "signature", sig))
	if _, err := p.Bound(cred); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: cred}, nil
}

func member(o *jsonv.Object, k string) jsonv.Value {
	v, _ := o.Get(k)
	return v
}

// opening reads a presented opening credential down to its transaction and
// the echoed H, in the reference's order of checks.
func (Session) opening(presented jsonv.Value) (*Tx, *mpp.Bound, error) {
	e, err := mpp.Echoed(presented, SessionID)
	if err != nil {
		return nil, nil, err
	}
	if mpp.String(e.Payload, "action") != "open" {
		return nil, nil, rails.Refuse(CodeSessionAction)
	}
	blob, _ := e.Payload.Get("transaction")
	if _, ok := blob.(string); !ok {
		return nil, nil, rails.Refuse(CodeBlobMalformed)
	}
	tx, err := DecodePresented(blob)
	if err != nil {
		return nil, nil, err
	}
	if tx.Type != "PaymentChannelCreate" {
		return nil, nil, rails.Refuse(CodeNotChannelCreate)
	}
	h, err := memoHash(tx.Fields)
	if err != nil {
		return nil, nil, err
	}
	if !h.Equal(e.H) {
		return nil, nil, rails.Refuse(CodeCarrierNotChallenge)
	}
	return tx, e, nil
}

// memoHash is the H of the one memo whose MemoData is UTF-8 text of an LCP
// string, among at most 8 memos.
func memoHash(fs Fields) (atr.Hash, error) {
	memos, _ := fs.Get(FieldMemos)
	if len(memos.Fields) > MaxMemos {
		return atr.Hash{}, rails.Refuse(CodeMemoCount)
	}
	var found []atr.Hash
	for _, m := range memos.Fields {
		data, ok := Fields(m.Fields).Get(FieldMemoData)
		if !ok || !utf8.Valid(data.Value) {
			continue
		}
		if h, ok := mpp.ParseLegalContext(string(data.Value)); ok {
			found = append(found, h)
		}
	}
	switch len(found) {
	case 0:
		return atr.Hash{}, rails.Refuse(CodeNoMemo)
	case 1:
		return found[0], nil
	}
	return atr.Hash{}, rails.Refuse(CodeMemoCount)
}

// Bound reads H back from an opening: its one LCP memo, which must name the
// echoed challenge's H. Destination, amounts, the channel and the claim
// signature are the seller's to check.
func (p Session) Bound(presented jsonv.Value) (string, error) {
	_, e, err := p.opening(presented)
	if err != nil {
		return "", err
	}
	return e.H.String(), nil
}

// payloadOf is a channel payment's payload.
func payloadOf(signed jsonv.Value) (*jsonv.Object, error) { return mpp.SessionPayload(signed) }

// ChannelKind: open, voucher (within), close.
func (Session) ChannelKind(signed jsonv.Value) (rails.ChannelKind, error) {
	return mpp.SessionChannelKind(signed)
}

// isChannelID is 64 hex digits.
func isChannelID(s string) bool { return len(s) == 64 && isHexDigits(s) }

// ChannelRef is the network the payment's challenge names and the channel:
// for an opening the one its transaction creates, for a claim its payload's
// channelId; uppercase hex.
func (p Session) ChannelRef(signed jsonv.Value) (rails.ChannelRef, error) {
	payload, err := payloadOf(signed)
	if err != nil {
		return rails.ChannelRef{}, err
	}
	cred, _ := jsonv.AsObject(signed)
	network, err := mpp.Network(member(cred, "challenge"))
	if err != nil {
		return rails.ChannelRef{}, err
	}
	if mpp.String(payload, "action") == "open" {
		tx, _, err := p.opening(signed)
		if err != nil {
			return rails.ChannelRef{}, err
		}
		ch, ok := ChannelOf(tx.Fields)
		if !ok {
			return rails.ChannelRef{}, rails.Refuse(CodeNotChannelCreate)
		}
		return rails.ChannelRef{Network: network, Channel: upperHex(ch[:])}, nil
	}
	id := mpp.String(payload, "channelId")
	if !isChannelID(id) {
		return rails.ChannelRef{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	return rails.ChannelRef{Network: network, Channel: strings.ToUpper(id)}, nil
}

// BoundWithin: a claim carries no H; it is bound through the channel the
// opening created.
func (Session) BoundWithin(jsonv.Value) (string, error) {
	return "", rails.Refuse(CodeNotBoundWithin)
}

// NamedChannel is the channel a session challenge names to resume (the
// request's channelId, else methodDetails.channelId; 64 hex, compared
// uppercase), named false when it names none or "".
func (Session) NamedChannel(challenge jsonv.Value) (rails.ChannelRef, bool, error) {
	c, ok := mpp.IsChallengeShape(challenge)
	if !ok {
		return rails.ChannelRef{}, false, rails.Refuse(mpp.CodeChallengeMalformed)
	}
	if mpp.String(c, "intent") != "session" || mpp.String(c, "method") != "xrpl" {
		return rails.ChannelRef{}, false, rails.Refuse(mpp.CodeNotThisPairing)
	}
	req, ok := mpp.DecodeObject(mpp.String(c, "request"))
	if !ok {
		return rails.ChannelRef{}, false, rails.Refuse(mpp.CodeRequestMalformed)
	}
	v, has := req.Get("channelId")
	if !has {
		d, _ := req.GetObject("methodDetails")
		v, has = d.Get("channelId")
	}
	if !has || v == "" {
		return rails.ChannelRef{}, false, nil
	}
	id, _ := v.(string)
	if !isChannelID(id) {
		return rails.ChannelRef{}, false, rails.Refuse(mpp.CodeRequestMalformed)
	}
	network, err := mpp.Network(c)
	if err != nil {
		return rails.ChannelRef{}, false, err
	}
	return rails.ChannelRef{Network: network, Channel: strings.ToUpper(id)}, true, nil
}

type claimUnsigned struct {
	challenge *jsonv.Object
	action    rails.WithinAction
	channel   [32]byte
	drops     uint64
	claim     []byte
	publicKey []byte
}

func (u *claimUnsigned) Requests() []rails.Request {
	r := jsonv.Obj("kind", KindClaim)
	for _, m := range claimJSON(u.channel, u.drops, u.claim).Members() {
		r.Set(m.Key, m.Value)
	}
	return []rails.Request{r}
}

// Complete takes the claim signature, which must verify under the channel's
// key, and returns {challenge, payload: {action, channelId, amount,
// signature}}.
func (u *claimUnsigned) Complete(answers []string) (jsonv.Value, error) {
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	if len(answers) != 1 {
		return nil, malformed
	}
	sig, ok := signedDigits(answers[0])
	if !ok {
		return nil, malformed
	}
	raw, _ := hex.DecodeString(sig)
	if !Verify(u.publicKey, u.claim, raw) {
		return nil, malformed
	}
	payload := jsonv.Obj("action", string(u.action), "channelId", upperHex(u.channel[:]),
		"amount", strconv.FormatUint(u.drops, 10), "signature", sig)
	return jsonv.Obj("challenge", u.challenge.Clone(), "payload", payload), nil
}

// BuildWithin builds the claim for the cumulative amount on the held
// opening's channel: the within challenge's shape and id
// (mpp/input-malformed), intent and method (mpp/not-this-pairing), the held
// opening read back and carrying h (its codes; mpp/id-not-ours), the
// cumulative amount a u64 (mpp/input-malformed), the action. The channel and
// its key come from the opening's transaction.
func (p Session) BuildWithin(w rails.Within, h atr.Hash) (rails.InChannel, error) {
	c, err := mpp.WithinChallenge(w.Challenge, "xrpl")
	if err != nil {
		return nil, err
	}
	if w.Opening == nil {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	tx, e, err := p.opening(w.Opening)
	if err != nil {
		return nil, err
	}
	if !e.H.Equal(h) {
		return nil, rails.Refuse(mpp.CodeIDNotOurs)
	}
	if w.Cumulative == nil || w.Cumulative.Sign() < 0 || w.Cumulative.Cmp(two64) >= 0 {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	switch w.Action {
	case rails.WithinVoucher, rails.WithinClose:
	case "topUp", "use", "bearer":
		return nil, rails.Refuse(CodeWithinActionNotBuilt)
	default:
		return nil, rails.Refuse(CodeSessionAction)
	}
	channel, ok := ChannelOf(tx.Fields)
	pub, okPK := tx.Fields.Get(FieldPublicKey)
	if !ok || !okPK {
		return nil, rails.Refuse(CodeNotChannelCreate)
	}
	drops := w.Cumulative.Uint64()
	return &claimUnsigned{challenge: c, action: w.Action, channel: channel, drops: drops,
		claim: ClaimBytes(channel, drops), publicKey: pub.Value}, nil
}
