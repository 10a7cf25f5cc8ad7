package evm

// Reading an mpp/charge/evm/permit2 settlement: the spender's
// permitWitnessTransferFrom leaves the currency's Transfer of each leg and
// no log of the witness or the nonce, so H is read, as the x402 Permit2
// pairings' is (status_input.go), from the settling call's input, which
// carries the Permit2 nonce: the challenge hash keccak256(id ‖ realm), whose
// id carries H.

import (
	"math/big"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// MPPPermit2Settlement is what a permit2 credential's settlement must show:
// the payer's Transfer of Amount of Currency to To (the first leg, the
// recipient's), by a call whose input carries Nonce.
type MPPPermit2Settlement struct {
	Payer, Currency, To string
	Amount              *big.Int
	Nonce               atr.Hash
}

// Settlement reads a credential that reads back (Bound) as what its
// settlement must show; mpp/source-required without a did:pkh source,
// mpp/credential-malformed when the first leg or the nonce does not read.
func (p MPPPermit2) Settlement(presented jsonv.Value) (MPPPermit2Settlement, error) {
	if _, err := p.Bound(presented); err != nil {
		return MPPPermit2Settlement{}, err
	}
	e, _ := mpp.Echoed(presented, MPPPermit2ID)
	from, ok := mpp.SourceAddress(mpp.String(e.Credential, "source"))
	if !ok {
		return MPPPermit2Settlement{}, rails.Refuse(mpp.CodeSourceRequired)
	}
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	permit, _ := e.Payload.GetObject("permit")
	nonce, okNonce := Permit2NonceHash(mpp.String(permit, "nonce"))
	dv, _ := e.Payload.Get("transferDetails")
	details, _ := jsonv.AsArray(dv)
	if !okNonce || len(details) == 0 {
		return MPPPermit2Settlement{}, malformed
	}
	first, _ := jsonv.AsObject(details[0])
	to := mpp.String(first, "to")
	value, okValue := mpp.Uint256(mpp.String(first, "requestedAmount"))
	if !IsAddress(to) || !okValue {
		return MPPPermit2Settlement{}, malformed
	}
	return MPPPermit2Settlement{Payer: from, Currency: mpp.String(e.Checked.Request, "currency"), To: to, Amount: value, Nonce: nonce}, nil
}

// NonceInInput reports whether tx's call input, read through r when r is a
// TxReader, carries nonce as a 32-byte word at any offset; checked is false
// when r cannot read transactions, err set when the read failed.
func NonceInInput(r Reader, tx string, nonce atr.Hash) (carried, checked bool, err error) {
	return nonceInInput(r, tx, nonce)
}
