package pay

// Settlement the buyer checks on an eip155 chain, for the x402 pairings
// whose settling transaction only the seller knows (its facilitator sends
// it): the transaction the seller's PAYMENT-RESPONSE names is read by its
// receipt (eth_getTransactionReceipt) and must show, from the payment's own
// token contract, this payment and no other:
//
//   - x402/exact/eip155/eip3009: the token's AuthorizationUsed(authorizer,
//     nonce) log with the payer as authorizer and the signed nonce (H, or the
//     random nonce of an unbound payment), and its Transfer(payer, payee,
//     amount) log.
//   - x402/exact/eip155/permit2 and x402/upto/eip155/permit2: the token's
//     Transfer from the payer to the payee (exactly the amount, or for upto
//     at most the authorized maximum), then the rail's Status
//     (rails/evm): the settling call's input carries the Permit2 nonce H,
//     and for upto Permit2 holds that nonce used at the receipt's block.
//   - mpp/charge/evm/authorization and mpp/charge/usdc/evm: as EIP-3009,
//     the receipt the Payment-Receipt's reference names, the nonce being
//     the signed one, which the pairing derives from the echoed challenge
//     whose id carries H.
//
// A receipt the node does not have, a reverted one, an answer that is not a
// receipt, or a failed read is not-landed, with the rail's status.

import (
	"math/big"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
)

// ProblemNoTransaction: the seller's answer names no transaction, and the
// pairing's settling transaction cannot be known otherwise (the seller's
// facilitator sends it): nothing was read.
const ProblemNoTransaction = "no-transaction"

// WhyNotNamed is the status reason of ProblemNoTransaction.
const WhyNotNamed = "not-named"

// evmStatusOf is a failed receipt read as a status.
func evmStatusOf(f evm.ReadFailure) evm.Status {
	switch f {
	case evm.ReadNoReceipt:
		return evm.Status{State: evm.StatePending, Why: evm.WhyNotFound}
	case evm.ReadReverted:
		return evm.Status{State: evm.StateFailed, Why: evm.WhyReverted}
	}
	return evm.Status{State: evm.StatePending, Why: evm.WhyUnreadable}
}

// evmReceipt reads the receipt of the transaction the seller names; nil
// (with v's problems set) when there is none to check.
func evmReceipt(res *Result, r evm.Reader, v *Verification) *evm.Receipt {
	tx := sellerNamed(res)
	if tx == "" {
		v.Status = jsonv.Obj("state", evm.StatePending, "why", WhyNotNamed)
		v.problem(ProblemNoTransaction)
		return nil
	}
	v.Transaction = tx
	if res.Settlement.Network != "" && res.Settlement.Network != v.Network {
		v.problem(ProblemSellerNamed)
	}
	receipt, f := evm.ReadReceipt(v.Network, tx, r)
	if f != evm.ReadOK {
		v.Status = evmStatusOf(f).JSON()
		v.problem(ProblemNotLanded)
		return nil
	}
	return receipt
}

// problemOnce adds p unless it is already reported.
func (v *Verification) problemOnce(p string) {
	for _, q := range v.Problems {
		if q == p {
			return
		}
	}
	v.problem(p)
}

// checkTransfer looks among the receipt's Transfer logs from asset for the
// payment's: from payer to payee of amount (upto: of at most amount, not
// zero). Found, it records what moved; else it reports the first part that
// no transfer matches: the payer (no transfer from it), the payee (none from
// it to the payee) or the amount.
func checkTransfer(receipt *evm.Receipt, asset, payer, payee string, amount *big.Int, upto bool, v *Verification) bool {
	fromPayer, toPayee := false, false
	for _, l := range receipt.Logs {
		p, ok := evm.TransferPartsOf(l, asset, evm.TopicTransfer.Hex())
		if !ok || !evm.SameAddress(p.From, payer) {
			continue
		}
		fromPayer = true
		if !evm.SameAddress(p.To, payee) {
			continue
		}
		toPayee = true
		if amount == nil {
			continue
		}
		if p.Value.Cmp(amount) == 0 || upto && p.Value.Sign() > 0 && p.Value.Cmp(amount) < 0 {
			v.Moved = p.Value
			return true
		}
	}
	switch {
	case !fromPayer:
		v.problemOnce(ProblemPayer)
	case !toPayee:
		v.problemOnce(ProblemPayee)
	default:
		v.problemOnce(ProblemAmount)
	}
	return false
}

// checkEIP3009 reads an x402/exact/eip155/eip3009 settlement.
func (vf *Verifier) checkEIP3009(res *Result, r evm.Reader, v *Verification) {
	payment, _ := jsonv.AsObject(res.Signed)
	payload, _ := payment.GetObject("payload")
	auth, _ := payload.GetObject("authorization")
	nonce, _ := auth.GetString("nonce")
	want := res.H.String()
	if res.Unbound {
		want = res.Nonce
	}
	if !evm.SameBytes(nonce, want) {
		v.problem(ProblemUnreadablePaid)
		return
	}
	vf.checkAuthorizationUsed(res, want, r, v)
}

// checkMPPAuthorization reads an MPP EIP-3009 charge
// (mpp/charge/evm/authorization, mpp/charge/usdc/evm): the signed nonce is
// the pairing's hash of the echoed challenge, whose id carries H (the
// pairing's Bound checks both), and the token emits it in AuthorizationUsed;
// the receipt is the one the Payment-Receipt's reference names.
func (vf *Verifier) checkMPPAuthorization(res *Result, p interface {
	Bound(jsonv.Value) (string, error)
}, r evm.Reader, v *Verification) {
	cred, _ := jsonv.AsObject(res.Signed)
	payload, _ := cred.GetObject("payload")
	nonce, _ := payload.GetString("nonce")
	if h, err := p.Bound(res.Signed); err != nil || !evm.SameBytes(h, res.H.String()) || nonce == "" {
		v.problem(ProblemUnreadablePaid)
		return
	}
	vf.checkAuthorizationUsed(res, nonce, r, v)
}

// checkAuthorizationUsed reads the named receipt for the token's
// AuthorizationUsed(payer, want) and the Transfer of the payment.
func (vf *Verifier) checkAuthorizationUsed(res *Result, want string, r evm.Reader, v *Verification) {
	receipt := evmReceipt(res, r, v)
	if receipt == nil {
		return
	}
	asset, payer := res.Summary.Asset, res.Summary.Payer
	used, byPayer := false, false
	for _, l := range receipt.Logs {
		if !evm.SameAddress(l.Address, asset) || len(l.Topics) != 3 || !evm.SameBytes(l.Topic(0), evm.TopicAuthorizationUsed.Hex()) ||
			!evm.SameBytes(l.Topic(2), want) {
			continue
		}
		used = true
		if a, ok := evm.TopicAddress(l.Topic(1)); ok && evm.SameAddress(a, payer) {
			byPayer = true
		}
	}
	switch {
	case !used:
		v.problem(ProblemNoH)
	case !byPayer:
		v.problem(ProblemPayer)
	}
	checkTransfer(receipt, asset, payer, res.Summary.Payee, res.Summary.Amount, false, v)
	vf.evmSettled(receipt, r, v, evm.WhyAuthorizationNotUsed)
}

// evmSettled sets the status once the checks are done: settled at the
// finality reached when they all held, else failed with why.
func (vf *Verifier) evmSettled(receipt *evm.Receipt, r evm.Reader, v *Verification, why string) {
	if len(v.Problems) > 0 {
		v.Status = evm.Status{State: evm.StateFailed, Why: why}.JSON()
		return
	}
	v.Status = evm.SettledAt(receipt.BlockNumber, r).JSON()
	v.Settled = true
}

// permit2Status is what the Permit2 pairings' Status share.
type permit2Status interface {
	Reference(presented jsonv.Value) (*jsonv.Object, error)
	Status(ref *jsonv.Object, r evm.Reader) evm.Status
}

// checkPermit2 reads an x402 Permit2 settlement (exact or upto).
func (vf *Verifier) checkPermit2(res *Result, p permit2Status, upto bool, r evm.Reader, v *Verification) {
	ref, err := p.Reference(res.Signed)
	auth, _ := ref.GetObject("authorization")
	nonce, _ := auth.GetString("nonce")
	if err != nil || !evm.SameBytes(nonce, res.H.String()) {
		v.problem(ProblemUnreadablePaid)
		return
	}
	receipt := evmReceipt(res, r, v)
	if receipt == nil {
		return
	}
	if !checkTransfer(receipt, res.Summary.Asset, res.Summary.Payer, res.Summary.Payee, res.Summary.Amount, upto, v) {
		v.Status = evm.Status{State: evm.StateFailed, Why: evm.WhyTransferNotFound}.JSON()
		return
	}
	ref.Set("transaction", v.Transaction)
	st := p.Status(ref, r)
	v.Status = st.JSON()
	switch {
	case st.State == evm.StateSettled && len(v.Problems) == 0:
		v.Settled = true
	case st.Why == evm.WhyNonceNotInInput, st.Why == evm.WhyNonceNotUsed:
		v.problem(ProblemNoH)
	case st.State != evm.StateSettled:
		v.problem(ProblemNotLanded)
	}
}
