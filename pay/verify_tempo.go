package pay

// Settlement the buyer checks for mpp/charge/tempo/push and /memo: for push
// the payer's signer broadcast the Tempo transaction and the credential
// names its hash; for memo the credential carries the signed transaction,
// which the seller broadcasts, and its hash is keccak256 of it. The one read
// is it, whatever the Payment-Receipt names (another is
// seller-named). Tempo answers eip155 JSON-RPC, so the reader is an
// evm.Reader for the chain (rails/tempo/settlement.go). It must have landed
// and hold the currency's TransferWithMemo whose memo (topic 3) is the
// challenge's attribution (realm and id, the id carrying H), else no-h,
// from the payer to the recipient of the amount.

import (
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
)

func (vf *Verifier) checkTempoCharge(res *Result, r evm.Reader, v *Verification) {
	b, err := mpp.ChallengeBound(res.Signed)
	if err != nil || b.H != res.H {
		v.problem(ProblemUnreadablePaid)
		return
	}
	cred, _ := jsonv.AsObject(res.Signed)
	payload, _ := cred.GetObject("payload")
	tx, _ := payload.GetString("hash")
	if res.Pairing == tempo.MemoID {
		// The seller broadcasts the signed transaction: its hash is
		// keccak256 of the bytes signed (rails/tempo/tx.go).
		s, _ := payload.GetString("signature")
		wire, ok := evm.HexBytes(s)
		if _, err := tempo.DecodeTx(wire); !ok || err != nil {
			v.problem(ProblemUnreadablePaid)
			return
		}
		tx = crypto.Keccak256Hash(wire).Hex()
	}
	if !mpp.IsWord32(tx) {
		v.problem(ProblemUnreadablePaid)
		return
	}
	v.Transaction = tx
	if named := sellerNamed(res); named != "" && !evm.SameBytes(named, tx) {
		v.problem(ProblemSellerNamed)
	}
	receipt, f := evm.ReadReceipt(v.Network, tx, r)
	if f != evm.ReadOK {
		v.Status = evmStatusOf(f).JSON()
		v.problem(ProblemNotLanded)
		return
	}
	realm, id := mpp.String(b.Challenge, "realm"), mpp.String(b.Challenge, "id")
	topic := tempo.TopicTransferWithMemo.Hex()
	attributed, matched := false, false
	fromPayer, toPayee := false, false
	for _, l := range receipt.Logs {
		p, ok := evm.TransferPartsOf(l, res.Summary.Asset, topic)
		if !ok || mpp.CheckAttribution(l.Topic(3), realm, id) != nil {
			continue
		}
		attributed = true
		if !evm.SameAddress(p.From, res.Summary.Payer) {
			continue
		}
		fromPayer = true
		if !evm.SameAddress(p.To, res.Summary.Payee) {
			continue
		}
		toPayee = true
		if res.Summary.Amount != nil && p.Value.Cmp(res.Summary.Amount) == 0 {
			v.Moved, matched = p.Value, true
			break
		}
	}
	switch {
	case matched:
	case !attributed:
		v.problem(ProblemNoH)
	case !fromPayer:
		v.problem(ProblemPayer)
	case !toPayee:
		v.problem(ProblemPayee)
	default:
		v.problem(ProblemAmount)
	}
	vf.evmSettled(receipt, r, v, evm.WhyBindingLogNotFound)
}
