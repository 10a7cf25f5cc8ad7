package pay

// Settlement the buyer checks for mpp/charge/evm/permit2: the spender
// (the seller) sends Permit2's permitWitnessTransferFrom, so the receipt
// read is the one the Payment-Receipt names. It must show the currency's
// Transfer from the payer to the recipient of the first leg's amount (a
// settlement paying the splits alone is not the payment), and the call's
// input (eth_getTransactionByHash) must carry the Permit2 nonce, the
// challenge hash whose id carries H; a reader that cannot read the call
// cannot show H, which is no-h (rails/evm/settlement_mpp_permit2.go).

import (
	"github.com/termsgate/termsgate/rails/evm"
)

func (vf *Verifier) checkMPPPermit2(res *Result, r evm.Reader, v *Verification) {
	h, err := evm.MPPPermit2{}.Bound(res.Signed)
	s, errS := evm.MPPPermit2{}.Settlement(res.Signed)
	if err != nil || errS != nil || !evm.SameBytes(h, res.H.String()) {
		v.problem(ProblemUnreadablePaid)
		return
	}
	receipt := evmReceipt(res, r, v)
	if receipt == nil {
		return
	}
	if !evm.SameAddress(s.Payer, res.Summary.Payer) {
		v.problem(ProblemPayer)
	}
	if !checkTransfer(receipt, s.Currency, s.Payer, s.To, s.Amount, false, v) {
		v.Status = evm.Status{State: evm.StateFailed, Why: evm.WhyTransferNotFound}.JSON()
		return
	}
	carried, checked, err := evm.NonceInInput(r, v.Transaction, s.Nonce)
	switch {
	case err != nil:
		v.Status = evm.Status{State: evm.StatePending, Why: evm.WhyUnreadable}.JSON()
		v.problem(ProblemNotLanded)
		return
	case !checked || !carried:
		v.problem(ProblemNoH)
	}
	vf.evmSettled(receipt, r, v, evm.WhyNonceNotInInput)
}
