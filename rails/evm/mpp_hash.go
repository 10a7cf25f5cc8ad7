package evm

import (
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// MPPHash is mpp/charge/evm/hash (docs/mpp-evm.md, "transaction and
// hash"): the payer's signer broadcasts the token's transfer(recipient,
// amount) itself and the credential names the transaction by its hash.
//
// Where H goes: as mpp/charge/evm/transaction, only the challenge id and
// opaque carry H; the broadcast transaction carries nothing, so the payment
// is no public proof, the agreement exchange runs first, and Bound answers
// mpp/no-signed-place.
type MPPHash struct{}

// MPPHashID is the pairing id.
const MPPHashID = mpp.PairingEVMHash

func (MPPHash) ID() string { return MPPHashID }

func (MPPHash) Pattern() rails.Pattern {
	return rails.Pattern{Name: "opaque-challenge", PublicProof: false}
}

func (MPPHash) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

func (MPPHash) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	return chooseMPPCall(read, account, now, MPPHashID)
}

func (MPPHash) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	return buildMPPCall(choice, h, MPPHashID, true)
}

func (MPPHash) Request(u rails.Unsigned) (rails.Request, error) {
	return u.(*mppCallUnsigned).request.Clone(), nil
}

// Moves: the signer sends the transaction, so a decline after it answered
// keeps the payment as moved.
func (MPPHash) Moves(first rails.Request) bool {
	b, _ := first.Get("broadcast")
	return b == true
}

// Summarize is mpp/charge/evm/transaction's: the transfer the call makes.
func (MPPHash) Summarize(req rails.Request) (rails.Grant, error) { return summarizeMPPCall(req) }

// Complete takes {hash}: the broadcast transaction's hash, 0x and 64 hex
// digits (mpp/credential-malformed otherwise).
func (MPPHash) Complete(u rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	b := u.(*mppCallUnsigned)
	a, _ := jsonv.AsObject(answer)
	hash, ok := a.GetString("hash")
	if !ok || !mpp.IsWord32(hash) {
		return rails.Completion{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	return rails.Completion{Signed: mpp.Credential(b.challenge, b.source, jsonv.Obj("type", "hash", "hash", hash))}, nil
}

// Bound refuses mpp/no-signed-place once the echoed challenge reads.
func (MPPHash) Bound(presented jsonv.Value) (string, error) { return noSignedPlace(presented) }

// Reference is the challenge's network and asset (mppCallReference).
func (MPPHash) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	return mppCallReference(presented)
}

// Status: the reported transaction succeeded and the asset moved
// (transferPresent).
func (MPPHash) Status(ref *jsonv.Object, r Reader) Status { return transferPresent(ref, r) }
