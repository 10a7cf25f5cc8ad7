package pay

// Settlement the buyer checks for x402's ERC-7710 pairings
// (x402/exact/eip155/erc7710-salt and erc7710): the delegate redeems the
// payer's delegation, so the transaction read is the one the seller names.
// It must show the token's Transfer from the delegator (the payer) to the
// payee of exactly the amount. At the salt level it must also show MetaMask's
// DelegationManager's RedeemedDelegation of a delegation by the payer whose
// salt (data word 5) is H, else no-h. The unsigned level's settlement carries
// no H by design (rails/evm/erc7710.go): H is proven by the agreement the
// gate paid first (docs/agreement.md), and settled means landed, payer,
// payee and amount held.

import (
	"encoding/hex"

	"github.com/termsgate/termsgate/rails/evm"
)

// checkERC7710 reads an ERC-7710 settlement; salt is the salt level.
func (vf *Verifier) checkERC7710(res *Result, salt bool, r evm.Reader, v *Verification) {
	var h string
	var err error
	if salt {
		h, err = evm.ExactERC7710Salt{}.Bound(res.Signed)
	} else {
		h, err = evm.ExactERC7710{}.Bound(res.Signed)
	}
	if err != nil || !evm.SameBytes(h, res.H.String()) {
		v.problem(ProblemUnreadablePaid)
		return
	}
	receipt := evmReceipt(res, r, v)
	if receipt == nil {
		return
	}
	why := evm.WhyTransferNotFound
	if salt && !redeemedLeaf(receipt, res.Summary.Payer, h) {
		v.problem(ProblemNoH)
		why = evm.WhyBindingLogNotFound
	}
	checkTransfer(receipt, res.Summary.Asset, res.Summary.Payer, res.Summary.Payee, res.Summary.Amount, false, v)
	vf.evmSettled(receipt, r, v, why)
}

// redeemedLeaf reports whether the DelegationManager emitted a
// RedeemedDelegation of a delegation whose delegator (data word 2) is payer
// and whose salt (data word 5) is h; a log from any other contract does not
// count.
func redeemedLeaf(receipt *evm.Receipt, payer, h string) bool {
	for _, l := range receipt.Logs {
		if !evm.SameAddress(l.Address, evm.DelegationManager) || !evm.SameBytes(l.Topic(0), evm.TopicRedeemedDelegation) {
			continue
		}
		delegator, okD := l.DataWord(2)
		salt, okS := l.DataWord(5)
		if okD && okS && evm.SameAddress(hexOf(delegator[12:]), payer) && evm.SameBytes(hexOf(salt), h) {
			return true
		}
	}
	return false
}

func hexOf(b []byte) string { return "0x" + hex.EncodeToString(b) }
