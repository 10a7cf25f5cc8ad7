package tempo

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// The Tempo pairings' Inspect: what a signed credential grants, read from
// what Bound accepted. Where the payment is a signed transaction (memo, a
// session's opening) its call is read back into the tempo-call request it
// answered and summarized as the spend policy summarized it before
// signing; the payer is the transaction's sender.

var (
	_ rails.Inspector = Memo{}
	_ rails.Inspector = Push{}
	_ rails.Inspector = Session{}
	_ rails.Inspector = Subscription{}
)

// callRequest is the tempo-call signing request one call of tx answers.
func callRequest(tx *DecodedTx, c DecodedCall) rails.Request {
	chain := int64(0)
	if tx.ChainID != nil && tx.ChainID.IsInt64() {
		chain = tx.ChainID.Int64()
	}
	before := int64(0)
	if tx.ValidBefore != nil && tx.ValidBefore.IsInt64() {
		before = tx.ValidBefore.Int64()
	}
	return jsonv.Obj("kind", KindTempoCall, "chainId", chain,
		"call", jsonv.Obj("to", common.BytesToAddress(c.To).Hex(), "data", hex0x(c.Input)),
		"validBefore", before, "broadcast", false)
}

// txGrant summarizes the call of tx that pick chooses, with the sender as
// payer (or, when the signature does not recover one, the credential's
// source account, said so in details); the transaction's calls and chain go
// into details.
func txGrant(tx *DecodedTx, cred *jsonv.Object, summarize func(rails.Request) (rails.Grant, error), pick func(DecodedCall) bool, details *jsonv.Object) (rails.Grant, error) {
	addTx(details, tx)
	for _, c := range tx.Calls {
		if !pick(c) {
			continue
		}
		g, err := summarize(callRequest(tx, c))
		if err != nil {
			return rails.Grant{}, err
		}
		if s, err := tx.Sender(); err == nil {
			g.Payer = s.Hex()
		} else if g.Payer = sourceAccount(cred); g.Payer != "" {
			details.Set("payerFrom", "the credential's source: the transaction's signature recovers no sender ("+err.Error()+")")
		}
		return g, nil
	}
	return rails.Grant{}, rails.Refuse(CodeRequestUnreadable)
}

// challengeDetails are the echoed challenge's expiry and id.
func challengeDetails(e *mpp.Bound) *jsonv.Object {
	d := jsonv.Obj("challengeId", mpp.String(e.Challenge, "id"))
	if x, ok := e.Challenge.GetString("expires"); ok {
		d.Set("challengeExpires", x)
	}
	return d
}

// requestGrant is what the echoed request names (network, currency,
// recipient, amount) and the payer its source DID names, for a payment
// whose own bytes do not say more.
func requestGrant(e *mpp.Bound) rails.Grant {
	network, _ := mpp.Network(e.Challenge)
	asset := mpp.String(e.Checked.Request, "currency")
	g := rails.Grant{Network: network, Asset: asset, Decimals: rails.KnownDecimals(network, asset),
		Payee: mpp.String(e.Checked.Request, "recipient"), Payer: sourceAccount(e.Credential)}
	if a, ok := mpp.Uint256(mpp.String(e.Checked.Request, "amount")); ok {
		g.Amount = a
	}
	return g
}

// sourceAccount is the address of a credential's did:pkh:eip155 source,
// "" when it has none.
func sourceAccount(cred *jsonv.Object) string {
	s, _ := cred.GetString("source")
	if !strings.HasPrefix(s, "did:pkh:eip155:") {
		return ""
	}
	a := s[strings.LastIndexByte(s, ':')+1:]
	if !mpp.IsAddress(a) {
		return ""
	}
	return a
}

// Inspect for mpp/charge/tempo/memo: the signed transaction's bound
// transferWithMemo call (token, recipient, amount, validBefore) as Summarize
// reads it, from the transaction's sender.
func (p Memo) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	e, err := mpp.Echoed(payment, MemoID)
	if err != nil {
		return rails.Inspection{}, err
	}
	sig, _ := e.Payload.GetString("signature")
	wire, _ := mpp.HexBytes(sig, 0, MaxWireBytes)
	tx, err := DecodeTx(wire)
	if err != nil {
		return rails.Inspection{}, err
	}
	currency := common.HexToAddress(mpp.String(e.Checked.Request, "currency"))
	realm, id := mpp.String(e.Challenge, "realm"), mpp.String(e.Challenge, "id")
	details := challengeDetails(e)
	g, err := txGrant(tx, e.Credential, p.Summarize, func(c DecodedCall) bool {
		memo, ok := MemoOf(c, currency)
		return ok && mpp.CheckAttributionBytes(memo, realm, id) == nil
	}, details)
	if err != nil {
		return rails.Inspection{}, err
	}
	return rails.Inspection{Pairing: MemoID, Kind: "credential", Grant: g, H: h,
		WhereH:  "challenge.id and challenge.opaque.legalContext; the transaction's transferWithMemo memo binds the challenge (7 bytes of keccak256 of its id)",
		Details: details}, nil
}

// addTx writes a decoded transaction's calls, chain and validity.
func addTx(o *jsonv.Object, tx *DecodedTx) {
	calls := make([]jsonv.Value, 0, len(tx.Calls))
	for _, c := range tx.Calls {
		call := jsonv.Obj("to", hex0x(c.To))
		if len(c.Input) == 100 && hex0x(c.Input[:4]) == "0x95777d59" {
			call.Set("transferWithMemo", jsonv.Obj(
				"recipient", common.BytesToAddress(c.Input[4:36]).Hex(),
				"amount", new(big.Int).SetBytes(c.Input[36:68]).String(),
				"memo", hex0x(c.Input[68:100])))
		} else if len(c.Input) == 68 && hex0x(c.Input[:4]) == "0xa9059cbb" {
			call.Set("transfer", jsonv.Obj(
				"recipient", common.BytesToAddress(c.Input[4:36]).Hex(),
				"amount", new(big.Int).SetBytes(c.Input[36:68]).String()))
		} else {
			call.Set("input", hex0x(c.Input))
		}
		calls = append(calls, call)
	}
	o.Set("calls", calls)
	if tx.ChainID != nil {
		o.Set("chainId", tx.ChainID.String())
	}
	if tx.ValidBefore != nil {
		o.Set("validBefore", tx.ValidBefore.String())
	}
}

// Inspect for mpp/charge/tempo/push: the broadcast transaction's hash and
// its receipt's bound TransferWithMemo log (landed): the log's from, to and
// amount are what moved; the request's are stated where the log is not
// read.
func (p Push) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	e, err := mpp.Echoed(payment, PushID)
	if err != nil {
		return rails.Inspection{}, err
	}
	g := requestGrant(e)
	details := challengeDetails(e)
	if tx, ok := e.Payload.GetString("hash"); ok {
		details.Set("transaction", tx)
	}
	landed, _ := e.Credential.GetObject("landed")
	if b, ok := landed.Get("blockNumber"); ok {
		details.Set("blockNumber", jsonv.String(b))
	}
	if from, to, amount, ok := boundLog(e); ok {
		g.Payer, g.Payee, g.Amount = from, to, amount
	}
	return rails.Inspection{Pairing: PushID, Kind: "credential", Grant: g, H: h,
		WhereH:  "challenge.id and challenge.opaque.legalContext; topic 3 of the receipt's TransferWithMemo log binds the challenge",
		Details: details}, nil
}

// boundLog reads the landed receipt's one TransferWithMemo log of the
// currency whose memo binds the challenge (as Bound found it): its from
// and to topics and its amount word.
func boundLog(e *mpp.Bound) (from, to string, amount *big.Int, ok bool) {
	landed, _ := e.Credential.GetObject("landed")
	lv, _ := landed.Get("logs")
	logs, _ := lv.([]jsonv.Value)
	currency := common.HexToAddress(mpp.String(e.Checked.Request, "currency"))
	realm, id := mpp.String(e.Challenge, "realm"), mpp.String(e.Challenge, "id")
	for _, v := range logs {
		l, _ := jsonv.AsObject(v)
		tv, _ := l.Get("topics")
		topics, _ := tv.([]jsonv.Value)
		if len(topics) != 4 {
			continue
		}
		addr, _ := l.Get("address")
		memo, isString := topics[3].(string)
		if !sameHex(addr, currency.Bytes()) || !sameHex(topics[0], TopicTransferWithMemo.Bytes()) || !isString ||
			mpp.CheckAttribution(memo, realm, id) != nil {
			continue
		}
		f, okF := wordOf(topics[1])
		t, okT := wordOf(topics[2])
		data, _ := l.GetString("data")
		d, okD := mpp.HexBytes(data, 32, 32)
		if !okF || !okT || !okD {
			return "", "", nil, false
		}
		return common.BytesToAddress(f[12:]).Hex(), common.BytesToAddress(t[12:]).Hex(), new(big.Int).SetBytes(d), true
	}
	return "", "", nil, false
}

func wordOf(v jsonv.Value) ([]byte, bool) {
	s, _ := v.(string)
	return mpp.HexBytes(s, 32, 32)
}

// Inspect for mpp/session/tempo: an opening's escrow open call (the
// deposit of its token for its payee, whose salt is H) as Summarize reads
// it, from the transaction's sender; a voucher's or close's channel and
// cumulative amount, of the echoed request's currency for its recipient.
func (p Session) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	e, err := mpp.Echoed(payment, SessionID)
	if err != nil {
		return rails.Inspection{}, err
	}
	details := challengeDetails(e)
	for _, k := range []string{"action", "channelId", "authorizedSigner", "cumulativeAmount"} {
		if v, ok := e.Payload.GetString(k); ok {
			details.Set(k, v)
		}
	}
	in := rails.Inspection{Pairing: SessionID, Kind: "channel-open", H: h,
		WhereH: "the escrow open call's salt, and the challenge's id and opaque.legalContext", Details: details}
	sig, isOpen := e.Payload.GetString("transaction")
	if !isOpen {
		in.Kind = "channel-within"
		if a := mpp.String(e.Payload, "action"); a == "close" {
			in.Kind = "channel-close"
		}
		in.Grant = requestGrant(e)
		in.Grant.Amount = nil
		if s := mpp.String(e.Payload, "cumulativeAmount"); rails.IsDecimal(s) {
			in.Grant.Amount, _ = new(big.Int).SetString(s, 10)
		}
		return in, nil
	}
	wire, ok := mpp.HexBytes(sig, 0, MaxWireBytes)
	if !ok {
		return rails.Inspection{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	tx, err := DecodeTx(wire)
	if err != nil {
		return rails.Inspection{}, err
	}
	in.Grant, err = txGrant(tx, e.Credential, p.Summarize, func(c DecodedCall) bool { _, ok := readOpen(c.Input); return ok }, details)
	return in, err
}

// Inspect for mpp/subscription/tempo: the key authorization the challenge
// asks for is rebuilt (as Build writes it, witness H) and must be the one
// signed (the same digest); its Summarize is the grant: the limit per
// period of the currency, to the recipient, until the expiry. The payer is
// the credential's source account, which signs the authorization.
func (p Subscription) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	e, err := mpp.Echoed(payment, SubscriptionID)
	if err != nil {
		return rails.Inspection{}, err
	}
	signed, _ := e.Payload.GetString("signature")
	k, err := DecodeKeyAuthorization(signed)
	if err != nil {
		return rails.Inspection{}, err
	}
	auth, _, err := subscriptionAuthorization(e.Checked.Request, e.Checked.Details, e.H)
	if err != nil {
		return rails.Inspection{}, err
	}
	digest, err := auth.Digest()
	if err != nil {
		return rails.Inspection{}, err
	}
	if digest != k.Digest {
		return rails.Inspection{}, rails.Refuse(CodeKeyAuthorizationMismatch)
	}
	g, err := p.Summarize(jsonv.Obj("kind", KindTempoKeyAuthorization, "authorization", auth.JSON(), "digest", hex0x(digest[:])))
	if err != nil {
		return rails.Inspection{}, err
	}
	g.Payer = sourceAccount(e.Credential)
	details := challengeDetails(e)
	for _, k := range []string{"periodUnit", "periodCount", "subscriptionExpires"} {
		if v, ok := e.Checked.Request.GetString(k); ok {
			details.Set(k, v)
		}
	}
	details.Set("accessKey", common.BytesToAddress(k.KeyID).Hex())
	details.Set("keyAuthorizationDigest", hex0x(k.Digest[:]))
	return rails.Inspection{Pairing: SubscriptionID, Kind: "credential", Grant: g, H: h,
		WhereH:  "the key authorization's witness, and the challenge's bare id and opaque.legalContext",
		Details: details}, nil
}

// CodeKeyAuthorizationMismatch: the signed key authorization is not the
// one the echoed challenge asks for, so what it grants cannot be read from
// the challenge.
const CodeKeyAuthorizationMismatch = "tempo/key-authorization-mismatch"

// InspectTx states what a signed Tempo 0x76 transaction grants, on its own:
// its sender, chain, validity and its one transferWithMemo or transfer call
// (token, recipient, amount); all its calls are in the details. Without the
// challenge it answered, H cannot be named: the memo carries only 7 bytes
// of the challenge id's hash.
func InspectTx(wire []byte) (rails.Inspection, error) {
	return rails.Guard("tempo.InspectTx", "a Tempo transaction of "+strconv.Itoa(len(wire))+" bytes", func() (rails.Inspection, error) { return inspectTx(wire) })
}

// inspectTx is InspectTx unguarded.
func inspectTx(wire []byte) (rails.Inspection, error) {
	tx, err := DecodeTx(wire)
	if err != nil {
		return rails.Inspection{}, err
	}
	details := jsonv.Obj()
	addTx(details, tx)
	in := rails.Inspection{Kind: "tempo-transaction", Details: details, Grant: rails.Grant{Decimals: -1},
		WhereH: "not in the transaction alone: a transferWithMemo memo binds the MPP challenge (whose id is H) by 7 bytes of keccak256 of the id; an escrow open's salt is H itself"}
	if tx.ChainID != nil {
		in.Grant.Network = "eip155:" + tx.ChainID.String()
	}
	if s, err := tx.Sender(); err == nil {
		in.Grant.Payer = s.Hex()
	}
	if tx.ValidBefore != nil && tx.ValidBefore.Sign() > 0 && tx.ValidBefore.IsInt64() {
		in.Grant.PayableUntil = until(tx.ValidBefore.Int64())
	}
	moves := 0
	for _, c := range tx.Calls {
		if len(c.Input) == 100 && hex0x(c.Input[:4]) == "0x95777d59" || len(c.Input) == 68 && hex0x(c.Input[:4]) == "0xa9059cbb" {
			moves++
			token := common.BytesToAddress(c.To).Hex()
			in.Grant.Asset, in.Grant.Decimals = token, rails.KnownDecimals(in.Grant.Network, token)
			in.Grant.Payee = common.BytesToAddress(c.Input[4:36]).Hex()
			in.Grant.Amount = new(big.Int).SetBytes(c.Input[36:68])
		}
	}
	if moves != 1 {
		// Several transfers are no one grant: the calls say what each moves.
		in.Grant = rails.Grant{Network: in.Grant.Network, Payer: in.Grant.Payer, Decimals: -1, PayableUntil: in.Grant.PayableUntil}
	}
	return in, nil
}
