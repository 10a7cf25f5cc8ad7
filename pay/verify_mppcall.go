package pay

// Settlement the buyer checks for MPP's EVM charges the payer sends itself
// (mpp/charge/evm/transaction and mpp/charge/evm/hash): the transaction is
// the payer's own, so the one read is it whatever the seller names. For
// transaction, its hash is keccak256 of the signed EIP-1559 transaction the
// credential carries (the seller broadcasts it); for hash, the credential
// names the hash the payer's signer broadcast. It must have landed and show
// the currency's Transfer from the payer to the recipient of the amount.
// Neither carries H on chain (rails/evm/mpp_transaction.go): the challenge
// id carries it, checked here, and the agreement the gate paid first proves
// it (docs/agreement.md). A Payment-Receipt naming another transaction is
// seller-named.

import (
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
)

// checkMPPCall reads an mpp/charge/evm/transaction or /hash settlement.
func (vf *Verifier) checkMPPCall(res *Result, r evm.Reader, v *Verification) {
	b, err := mpp.ChallengeBound(res.Signed)
	if err != nil || b.H != res.H {
		v.problem(ProblemUnreadablePaid)
		return
	}
	payload, _ := jsonv.AsObject(res.Signed)
	payload, _ = payload.GetObject("payload")
	var tx string
	if res.Pairing == evm.MPPTransactionID {
		s, _ := payload.GetString("signature")
		wire, ok := evm.HexBytes(s)
		if !ok {
			v.problem(ProblemUnreadablePaid)
			return
		}
		if _, err := evm.DecodeEIP1559(wire); err != nil {
			v.problem(ProblemUnreadablePaid)
			return
		}
		tx = crypto.Keccak256Hash(wire).Hex()
	} else {
		tx, _ = payload.GetString("hash")
	}
	if h, ok := evm.HexBytes(tx); !ok || len(h) != 32 {
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
	checkTransfer(receipt, res.Summary.Asset, res.Summary.Payer, res.Summary.Payee, res.Summary.Amount, false, v)
	vf.evmSettled(receipt, r, v, evm.WhyTransferNotFound)
}
