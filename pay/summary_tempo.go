package pay

import (
	"math/big"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
)

// tempoCallMembers are the members of a tempo-call request, all required
// and nothing else: a member the summary does not read could be one a
// signer does read.
var tempoCallMembers = []string{"kind", "chainId", "call", "validBefore", "broadcast"}

// summarizeTempoMemo reads a tempo-call request whose call is a
// transferWithMemo(to, amount, memo) of a TIP-20 token: the token is the
// call's to, the payee and the amount are the calldata's first two words,
// the network is eip155 and the request's chainId, the deadline its
// validBefore. It reads them as signer.Local builds the transaction (chainId
// and validBefore JSON integers, the call {to, data} with no value), so the
// summary states what that transaction does; the calldata is checked as
// tempo.MemoOf reads a transferWithMemo (100 bytes, the selector, a clean
// address word).
//
// A tempo-calls request (a charge with splits: several payees) is not read:
// one Summary states one payee. Nor is any other call (a channel open, an
// approval): their effect is not a transfer of Amount to Payee.
func summarizeTempoMemo(p gate.PaymentSummary) (Summary, error) {
	bad := refuse(DetailRequestUnreadable)
	r := p.Request
	if r.Len() != len(tempoCallMembers) {
		return Summary{}, bad
	}
	for _, k := range tempoCallMembers {
		if !r.Has(k) {
			return Summary{}, bad
		}
	}
	cv, _ := r.Get("chainId")
	chain, ok := jsonv.AsSafeInt(cv)
	if !ok || chain <= 0 {
		return Summary{}, bad
	}
	vb, _ := r.Get("validBefore")
	before, ok := jsonv.AsSafeInt(vb)
	if !ok || before < 0 {
		return Summary{}, bad
	}
	if b, _ := r.Get("broadcast"); b != true && b != false {
		return Summary{}, bad
	}
	call, ok := r.GetObject("call")
	if !ok || call.Len() != 2 {
		return Summary{}, bad
	}
	token, _ := call.GetString("to")
	data, _ := call.GetString("data")
	input, okData := mpp.HexBytes(data, 100, 100)
	if !mpp.IsAddress(token) || !okData {
		return Summary{}, bad
	}
	tokenAddr := common.HexToAddress(token)
	if _, ok := tempo.MemoOf(tempo.DecodedCall{To: tokenAddr.Bytes(), Input: input}, tokenAddr); !ok {
		return Summary{}, bad
	}
	s := Summary{
		Pairing: p.Pairing, H: p.H,
		Network: "eip155:" + strconv.FormatInt(chain, 10), Asset: token,
		Amount: new(big.Int).SetBytes(input[36:68]),
		Payer:  chosenFrom(p), Payee: common.BytesToAddress(input[16:36]).Hex(),
		// A Tempo transaction has no lower bound unless valid_after is set,
		// and these requests set none.
		PayableFrom:  time.Unix(0, 0),
		PayableUntil: time.Unix(before, 0),
	}
	if before == 0 || before > maxUnix {
		s.PayableUntil = time.Unix(maxUnix, 0) // valid_before 0 is no deadline at all
	}
	return s, nil
}

// chosenFrom is the payer's address the pairing chose for: the account's,
// written into the choice by mpp.Choice. A tempo-call names no sender (the
// signing key is), so the summary takes it from there, and leaves it empty
// when the choice does not have it.
func chosenFrom(p gate.PaymentSummary) string {
	c, _ := jsonv.AsObject(p.Chosen.Choice)
	from, _ := c.GetString("from")
	if !mpp.IsAddress(from) {
		return ""
	}
	return from
}
