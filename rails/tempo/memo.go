package tempo

import (
	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Memo is mpp/charge/tempo/memo, the pull charge (docs/protocol.md,
// "Tempo"): the buyer signs a Tempo transaction and the seller broadcasts it.
//
// Where H goes: the challenge id is base64url(H) and its position; the
// signed transferWithMemo call carries MPP's attribution memo, whose last 7
// bytes are keccak256(id). The read-back finds that call in the signed
// transaction and checks the memo against the echoed realm and id.
type Memo struct{}

// MemoID is the pairing id.
const MemoID = mpp.PairingTempoMemo

func (Memo) ID() string { return MemoID }

func (Memo) Pattern() rails.Pattern {
	return rails.Pattern{Name: "opaque-challenge", PublicProof: true}
}

func (Memo) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

func (Memo) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	return chooseCharge(read, account, inputs, now, MemoID)
}

func (Memo) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	return buildCharge(choice, h, MemoID, false)
}

func (Memo) Request(u rails.Unsigned) (rails.Request, error) {
	return u.(*chargeUnsigned).request.Clone(), nil
}

// Complete takes the signed 0x76 transaction, "0x" hex of 1–65536 bytes.
func (Memo) Complete(u rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	b := u.(*chargeUnsigned)
	signed, ok := answer.(string)
	if _, okHex := mpp.HexBytes(signed, 1, MaxWireBytes); !ok || !okHex {
		return rails.Completion{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	payload := jsonv.Obj("type", "transaction", "signature", signed)
	return rails.Completion{Signed: mpp.Credential(b.challenge, b.source, payload)}, nil
}

// Bound reads H back: the one call to the challenge's currency that is a
// transferWithMemo whose memo is the echoed challenge's attribution memo.
func (Memo) Bound(presented jsonv.Value) (string, error) {
	e, err := mpp.Echoed(presented, MemoID)
	if err != nil {
		return "", err
	}
	if t, _ := e.Payload.GetString("type"); t != "transaction" {
		return "", rails.Refuse(mpp.CodeCredentialType)
	}
	sig, ok := e.Payload.GetString("signature")
	if !ok || !mpp.IsHex(sig) {
		return "", rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if (len(sig)-2)/2 > MaxWireBytes {
		return "", rails.Refuse(CodeTxTooLarge)
	}
	wire, _ := mpp.HexBytes(sig, 0, MaxWireBytes)
	tx, err := DecodeTx(wire)
	if err != nil {
		return "", err
	}
	currency := common.HexToAddress(mpp.String(e.Checked.Request, "currency"))
	realm, id := mpp.String(e.Challenge, "realm"), mpp.String(e.Challenge, "id")
	found := 0
	for _, c := range tx.Calls {
		if memo, ok := MemoOf(c, currency); ok && mpp.CheckAttributionBytes(memo, realm, id) == nil {
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
