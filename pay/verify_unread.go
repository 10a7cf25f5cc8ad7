package pay

// The EVM-family pairings a Verifier has no settlement read for, each with
// why (docs/paying-client.md, "Checking settlement"): their Verification
// says so by ProblemNotRead and a status {state "unchecked", why}, never a
// bare no-reader and never settled.

import (
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/tempo"
)

// ProblemNotRead: the payment's pairing has no settlement read here, for
// the reason the status's why gives: nothing was checked.
const ProblemNotRead = "not-read"

// StateUnchecked is the status state of ProblemNotRead.
const StateUnchecked = "unchecked"

// Why a pairing's settlement is not read.
const (
	// WhyChannel: the payment is a voucher of a channel (x402 batch
	// settlement, MPP sessions): it moves nothing on chain until the seller
	// claims or closes, in a transaction covering many vouchers.
	WhyChannel = "channel-voucher"
	// WhyGateway: mpp/charge/usdc/gateway settles by Circle Gateway's
	// attestation of a burn intent, off chain, minted later by the seller.
	WhyGateway = "gateway-attestation"
	// WhyRecurring: mpp/subscription/tempo authorizes a key to charge every
	// period; each charge is the seller's later transaction.
	WhyRecurring = "recurring-authorization"
)

var unreadPairings = map[string]string{
	evm.BatchID:          WhyChannel,
	evm.MPPSessionID:     WhyChannel,
	tempo.SessionID:      WhyChannel,
	evm.MPPGatewayID:     WhyGateway,
	tempo.SubscriptionID: WhyRecurring,
}

// notRead reports a pairing with no settlement read, with why.
func notRead(res *Result, v *Verification) bool {
	why, ok := unreadPairings[res.Pairing]
	if !ok {
		return false
	}
	v.Status = jsonv.Obj("state", StateUnchecked, "why", why)
	v.problem(ProblemNotRead)
	return true
}
