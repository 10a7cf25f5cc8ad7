package tempo

import (
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
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

// CodeRequestUnreadable refuses to summarize a signing request that is not
// exactly one the Tempo pairings build.
const CodeRequestUnreadable = "tempo/request-unreadable"

// Summarize states what signing the request grants: the transferWithMemo's
// amount of the token the call goes to, to the calldata's recipient, on the
// request's chain, until validBefore (summarizeMemoCall).
func (Memo) Summarize(req rails.Request) (rails.Grant, error) { return summarizeMemoCall(req) }

// tempoCall is a tempo-call request as signer.Local builds the
// transaction from it: chainId and validBefore JSON integers, the call {to,
// data} with no value, broadcast a boolean, and no other member (a member
// a summary does not read could be one a signer does).
type tempoCall struct {
	chain  int64
	to     common.Address
	toText string // as written
	input  []byte
	before int64
}

var tempoCallMembers = []string{"kind", "chainId", "call", "validBefore", "broadcast"}

func readTempoCall(req rails.Request) (tempoCall, bool) {
	var c tempoCall
	if req == nil || req.Len() != len(tempoCallMembers) {
		return c, false
	}
	for _, k := range tempoCallMembers {
		if !req.Has(k) {
			return c, false
		}
	}
	if kind, _ := req.GetString("kind"); kind != KindTempoCall {
		return c, false
	}
	cv, _ := req.Get("chainId")
	chain, ok := jsonv.AsSafeInt(cv)
	if !ok || chain <= 0 {
		return c, false
	}
	vb, _ := req.Get("validBefore")
	before, ok := jsonv.AsSafeInt(vb)
	if !ok || before < 0 {
		return c, false
	}
	if b, _ := req.Get("broadcast"); b != true && b != false {
		return c, false
	}
	call, ok := req.GetObject("call")
	if !ok || call.Len() != 2 {
		return c, false
	}
	to, _ := call.GetString("to")
	data, _ := call.GetString("data")
	input, okData := mpp.HexBytes(data, 4, MaxWireBytes)
	if !mpp.IsAddress(to) || !okData {
		return c, false
	}
	return tempoCall{chain: chain, to: common.HexToAddress(to), toText: to, input: input, before: before}, true
}

// until is a Tempo transaction's deadline: valid_before 0 is none at all.
func until(before int64) time.Time {
	if before == 0 || before > evm.MaxUnix {
		return time.Unix(evm.MaxUnix, 0)
	}
	return time.Unix(before, 0)
}

// summarizeMemoCall reads a tempo-call whose one call is a TIP-20
// transferWithMemo(to, amount, memo) (as MemoOf reads one: 100 bytes, the
// selector, a clean address word): the token is the call's to, the payee
// and the amount are the calldata's first two words. A tempo-call names no
// sender (the signing key does), so the Grant has no Payer. A tempo-calls
// request (a charge with splits: several payees) is not read: one Grant
// states one payee.
func summarizeMemoCall(req rails.Request) (rails.Grant, error) {
	c, ok := readTempoCall(req)
	if !ok {
		return rails.Grant{}, rails.Refuse(CodeRequestUnreadable)
	}
	if _, ok := MemoOf(DecodedCall{To: c.to.Bytes(), Input: c.input}, c.to); !ok {
		return rails.Grant{}, rails.Refuse(CodeRequestUnreadable)
	}
	network := eip155(c.chain)
	return rails.Grant{
		Network: network, Asset: c.toText, Decimals: rails.KnownDecimals(network, c.toText),
		Amount: new(big.Int).SetBytes(c.input[36:68]),
		Payee:  common.BytesToAddress(c.input[16:36]).Hex(),
		// A Tempo transaction has no lower bound unless valid_after is
		// set, and these requests set none.
		PayableFrom:  time.Unix(0, 0),
		PayableUntil: until(c.before),
	}, nil
}
