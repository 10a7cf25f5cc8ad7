package tempo

import (
	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Push is mpp/charge/tempo/push, the push charge (docs/protocol.md,
// "Tempo"): the buyer's signer signs and broadcasts the same transferWithMemo
// as Memo, so value has moved by the time the gate reads its answer (a
// rails.Mover: every later decline keeps what was signed).
//
// Where H goes: as Memo, the attribution memo of the challenge whose id is
// H; but the credential carries only the transaction hash, so H is read back
// from the landed receipt the signer reports: the one TransferWithMemo log
// of the currency whose memo topic is the echoed challenge's memo. The
// credential is sent without that receipt (a rails.Sender).
type Push struct{}

// PushID is the pairing id.
const PushID = mpp.PairingTempoPush

func (Push) ID() string { return PushID }

func (Push) Pattern() rails.Pattern {
	return rails.Pattern{Name: "opaque-challenge", PublicProof: true}
}

func (Push) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

func (Push) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	return chooseCharge(read, account, inputs, now, PushID)
}

func (Push) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	return buildCharge(choice, h, PushID, true)
}

func (Push) Request(u rails.Unsigned) (rails.Request, error) {
	return u.(*chargeUnsigned).request.Clone(), nil
}

// Summarize states what signing the request grants: the same
// transferWithMemo as Memo's, which the signer broadcasts itself.
func (Push) Summarize(req rails.Request) (rails.Grant, error) { return summarizeMemoCall(req) }

// Moves: the signer broadcasts a request marked broadcast.
func (Push) Moves(first rails.Request) bool {
	b, _ := first.Get("broadcast")
	return b == true
}

// Complete takes {hash, landed?}: the broadcast transaction's hash and,
// where the signer gives it, {transaction, blockNumber (decimal), logs}, the
// currency's logs of the landed receipt.
func (Push) Complete(u rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	b := u.(*chargeUnsigned)
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	a, ok := jsonv.AsObject(answer)
	if !ok {
		return rails.Completion{}, malformed
	}
	hash, ok := a.GetString("hash")
	if !ok || !mpp.IsWord32(hash) {
		return rails.Completion{}, malformed
	}
	cred := mpp.Credential(b.challenge, b.source, jsonv.Obj("type", "hash", "hash", hash))
	lv, has := a.Get("landed")
	if !has {
		return rails.Completion{Signed: cred}, nil
	}
	landed, ok := jsonv.AsObject(lv)
	if !ok {
		return rails.Completion{}, malformed
	}
	tx, okTx := landed.GetString("transaction")
	logs, okLogs := landed.Get("logs")
	_, isList := logs.([]jsonv.Value)
	block, okBlock := mpp.Uint256(mpp.String(landed, "blockNumber"))
	if !okTx || !okLogs || !isList || !okBlock {
		return rails.Completion{}, malformed
	}
	cred.Set("landed", jsonv.Obj("transaction", tx, "blockNumber", block.String(), "logs", jsonv.Clone(logs)))
	return rails.Completion{Signed: cred}, nil
}

// Sent strips landed: the seller reads the receipt itself.
func (Push) Sent(signed jsonv.Value) (sent, landed jsonv.Value) {
	o, ok := jsonv.AsObject(signed)
	if !ok || !o.Has("landed") {
		return signed, nil
	}
	l, _ := o.Get("landed")
	s := o.Clone()
	s.Delete("landed")
	return s, jsonv.Clone(l)
}

// Bound reads H back from landed: exactly one log that is an object with
// four topics, emitted by the currency, topic 0 TransferWithMemo and topic 3
// the echoed challenge's attribution memo.
func (Push) Bound(presented jsonv.Value) (string, error) {
	e, err := mpp.Echoed(presented, PushID)
	if err != nil {
		return "", err
	}
	if t, _ := e.Payload.GetString("type"); t != "hash" {
		return "", rails.Refuse(mpp.CodeCredentialType)
	}
	landed, ok := e.Credential.GetObject("landed")
	lv, _ := landed.Get("logs")
	logs, isList := lv.([]jsonv.Value)
	if !ok || !isList {
		return "", rails.Refuse(mpp.CodeCredentialMalformed)
	}
	currency := common.HexToAddress(mpp.String(e.Checked.Request, "currency"))
	realm, id := mpp.String(e.Challenge, "realm"), mpp.String(e.Challenge, "id")
	found := 0
	for _, v := range logs {
		l, ok := jsonv.AsObject(v)
		if !ok {
			continue
		}
		tv, _ := l.Get("topics")
		topics, ok := tv.([]jsonv.Value)
		if !ok || len(topics) != 4 {
			continue
		}
		addr, _ := l.Get("address")
		memo, isString := topics[3].(string)
		if !sameHex(addr, currency.Bytes()) || !sameHex(topics[0], TopicTransferWithMemo.Bytes()) || !isString {
			continue
		}
		if mpp.CheckAttribution(memo, realm, id) == nil {
			found++
		}
	}
	switch {
	case found == 0:
		return "", rails.Refuse(CodeMemoNotBound)
	case found > 1:
		return "", rails.Refuse(CodeAmbiguous)
	}
	return e.H.String(), nil
}
