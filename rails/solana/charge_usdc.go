package solana

import (
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// ChargeUSDC is mpp/charge/usdc/solana: MPP's usdc method with
// methodDetails.type "solana", its details under methodDetails.solana
// (network required), paid as mpp/charge/solana is. Where H goes: the
// request's externalId, lcp:sha256:0x<H>, signed as the one Memo
// instruction of the transaction whose data is an LCP string. Only
// type="transaction" credentials are taken: the usdc draft's Solana profile
// is pull mode (docs/solana.md, "MPP charge").
type ChargeUSDC struct{}

// ChargeUSDCID is the pairing id.
const ChargeUSDCID = mpp.PairingUSDCSolana

// CodeUSDCCarrierOccupied is an issued usdc request whose externalId holds
// something else than the carrier.
const CodeUSDCCarrierOccupied = "mpp/carrier-occupied"

var usdcCharge = chargeSpec{id: ChargeUSDCID, usdc: true, occupied: CodeUSDCCarrierOccupied, transactionOnly: true}

var (
	_ rails.Pairing    = ChargeUSDC{}
	_ rails.Summarizer = ChargeUSDC{}
	_ rails.Inspector  = ChargeUSDC{}
)

func (ChargeUSDC) ID() string { return ChargeUSDCID }

func (ChargeUSDC) Pattern() rails.Pattern {
	return rails.Pattern{Name: "native-field", PublicProof: true}
}

func (ChargeUSDC) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// Choose is Charge's over the profile's details.
func (ChargeUSDC) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	return usdcCharge.choose(read, account, inputs, now)
}

// Build is Charge's over the profile's details.
func (ChargeUSDC) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	return usdcCharge.build(choice, h)
}

func (ChargeUSDC) Request(u rails.Unsigned) (rails.Request, error) { return chargeRequest(u) }

func (ChargeUSDC) Complete(u rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	return chargeComplete(u, answer)
}

// Bound is Charge's, taking type="transaction" credentials only
// (mpp/credential-type).
func (ChargeUSDC) Bound(presented jsonv.Value) (string, error) {
	b, err := usdcCharge.binding(presented)
	if err != nil {
		return "", err
	}
	return b.h, nil
}

// Reference is Charge's on the profile's network.
func (ChargeUSDC) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	return usdcCharge.reference(presented)
}

func (ChargeUSDC) Summarize(req rails.Request) (rails.Grant, error) { return summarizeCharge(req) }

func (ChargeUSDC) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	return usdcCharge.inspect(payment)
}

// PlaceUSDCChallenge is PlaceChargeChallenge for a usdc challenge
// (mpp/carrier-occupied).
func PlaceUSDCChallenge(challenge *jsonv.Object, h atr.Hash) (*jsonv.Object, error) {
	return placeExternalID(challenge, h, CodeUSDCCarrierOccupied)
}
