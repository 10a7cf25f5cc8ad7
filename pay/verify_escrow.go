package pay

// Settlement the buyer checks for x402's auth-capture pairings
// (x402/auth-capture/eip155/eip3009 and /permit2): the operator sends the
// escrow's authorize (or charge), so the transaction read is the one the
// seller names. It must show, from the escrow the option names, the
// PaymentAuthorized (PaymentCharged) log whose topic 1 is the hash of this
// payment's info with the payer set, whose salt is H or its commitment, of
// the maximum signed; and, from the token, the Transfer of that amount from
// the payer into the escrow (the EIP-3009 collector, or for Permit2 the
// operator's token store). rails/evm/settlement_escrow.go reads both.

import (
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
)

// checkAuthCapture reads an auth-capture settlement; settlement is the
// pairing's read of what the payment commits to.
func (vf *Verifier) checkAuthCapture(res *Result, settlement func(jsonv.Value) (evm.AuthCaptureSettlement, error), r evm.Reader, v *Verification) {
	s, err := settlement(res.Signed)
	if err != nil || s.H != res.H {
		v.problem(ProblemUnreadablePaid)
		return
	}
	receipt := evmReceipt(res, r, v)
	if receipt == nil {
		return
	}
	var found *evm.EscrowEvent
	var other *evm.EscrowEvent
	for _, l := range receipt.Logs {
		e, ok := evm.EscrowEventOf(l, s.Escrow, s.Topic)
		if !ok {
			continue
		}
		if evm.SameBytes(e.PaymentHash, s.PaymentHash.String()) {
			found = &e
			break
		}
		if other == nil {
			other = &e
		}
	}
	if found == nil {
		// Another payment authorized: say which part differs, the payer,
		// the receiver, the amount, else the salt (H).
		switch {
		case other == nil:
			v.problem(ProblemNoH)
		case !evm.SameAddress(other.Info.Payer, s.Info.Payer):
			v.problem(ProblemPayer)
		case !evm.SameAddress(other.Info.Receiver, s.Info.Receiver):
			v.problem(ProblemPayee)
		case !evm.SameAddress(other.Info.Token, s.Info.Token) || other.Info.MaxAmount.Cmp(s.Info.MaxAmount) != 0:
			v.problem(ProblemAmount)
		default:
			v.problem(ProblemNoH)
		}
		v.Status = evm.Status{State: evm.StateFailed, Why: evm.WhyBindingLogNotFound}.JSON()
		return
	}
	// The hash fixes the payer, receiver, token and maximum; the summary
	// the buyer approved must be that payment.
	if !evm.SameAddress(s.Info.Payer, res.Summary.Payer) {
		v.problem(ProblemPayer)
	}
	if !evm.SameAddress(s.Info.Receiver, res.Summary.Payee) {
		v.problem(ProblemPayee)
	}
	if res.Summary.Amount == nil || found.Amount.Cmp(res.Summary.Amount) != 0 || !evm.SameAddress(s.Info.Token, res.Summary.Asset) {
		v.problem(ProblemAmount)
	}
	if len(v.Problems) > 0 {
		v.Status = evm.Status{State: evm.StateFailed, Why: evm.WhyBindingLogNotFound}.JSON()
		return
	}
	if !checkTransfer(receipt, s.Info.Token, s.Info.Payer, s.Into, found.Amount, false, v) {
		v.Status = evm.Status{State: evm.StateFailed, Why: evm.WhyTransferNotFound}.JSON()
		return
	}
	vf.evmSettled(receipt, r, v, evm.WhyTransferNotFound)
}
