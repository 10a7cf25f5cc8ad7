package x402

import (
	"math/big"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// What the x402 batch-settlement pairings share (docs/batch-settlement.md):
// the scheme, the withdraw delay a channel option must offer, the deposit
// the buyer commits, and the codes of the channel readings.

// SchemeBatch is the scheme of a batch-settlement option.
const SchemeBatch = "batch-settlement"

// Codes of the batch-settlement pairings.
const (
	CodeInputMissing         = "x402/input-missing"         // a buyer input absent or not of its kind
	CodeDepositAboveMaximum  = "x402/deposit-above-maximum" // the deposit is above the buyer's maxDeposit
	CodeNotAnOpening         = "x402/not-an-opening"        // a payment read as an opening that opens nothing
	CodeDepositAuthorization = "x402/deposit-authorization" // the deposit's authorization is not exactly one form
	CodeChannelIDMismatch    = "x402/channel-id-mismatch"   // the channel id does not follow from the configuration
	CodeChannelKindUnknown   = "x402/channel-kind-unknown"  // a payload type no channel payment has
)

// The withdraw delays, in seconds, a channel option may offer.
const (
	MinWithdrawDelay = 900
	MaxWithdrawDelay = 2_592_000
)

// WithdrawDelay reads a withdraw delay: an integer in [MinWithdrawDelay,
// MaxWithdrawDelay].
func WithdrawDelay(v jsonv.Value) (int64, bool) {
	n, ok := jsonv.AsSafeInt(v)
	return n, ok && n >= MinWithdrawDelay && n <= MaxWithdrawDelay
}

// decimal reads a JSON decimal string (1 to 78 digits) as an integer.
func decimal(v jsonv.Value) (*big.Int, bool) {
	s, ok := v.(string)
	if !ok || !rails.IsDecimal(s) {
		return nil, false
	}
	return new(big.Int).SetString(s, 10)
}

// Deposit is what the buyer commits to a channel: the option's
// extra.minDeposit when it names one (then the deposit input is ignored),
// else the buyer's deposit input; never above the buyer's maxDeposit input
// when given. A minDeposit that is no decimal is x402/option-malformed; a
// missing or malformed input x402/input-missing; a deposit above the maximum
// x402/deposit-above-maximum.
func Deposit(accepted, inputs *jsonv.Object) (*big.Int, error) {
	extra, _ := accepted.GetObject("extra")
	var deposit *big.Int
	var ok bool
	if min, has := extra.Get("minDeposit"); has {
		if deposit, ok = decimal(min); !ok {
			return nil, rails.Refuse(CodeOptionMalformed)
		}
	} else {
		v, _ := inputs.Get("deposit")
		if deposit, ok = decimal(v); !ok {
			return nil, rails.Refuse(CodeInputMissing)
		}
	}
	if v, has := inputs.Get("maxDeposit"); has {
		max, ok := decimal(v)
		if !ok {
			return nil, rails.Refuse(CodeInputMissing)
		}
		if deposit.Cmp(max) > 0 {
			return nil, rails.Refuse(CodeDepositAboveMaximum)
		}
	}
	return deposit, nil
}

// ReviveDecimal reads a choice member the choice wrote as a decimal string:
// x402/choice-malformed when it is not one.
func ReviveDecimal(choice *jsonv.Object, key string) (*big.Int, error) {
	v, _ := choice.Get(key)
	n, ok := decimal(v)
	if !ok {
		return nil, rails.Refuse(CodeChoiceMalformed)
	}
	return n, nil
}

// Chosen checks a choice's document and option as every x402 build does
// first: the document (x402/not-v2, x402/option-malformed), the option one
// of its accepts (x402/option-not-in-document) and one the pairing serves
// (x402/option-not-this-pairing).
func Chosen(required, accepted *jsonv.Object, serves func(*jsonv.Object) bool) error {
	_, accepts, err := Document(required)
	if err != nil {
		return err
	}
	if !OptionInDocument(accepted, accepts) {
		return rails.Refuse(CodeOptionNotInDocument)
	}
	if !serves(accepted) {
		return rails.Refuse(CodeOptionNotThisPairing)
	}
	return nil
}

// Presented reads the parts of a presented payment every batch reading
// starts with: x402Version 2 (x402/not-v2), an accepted option the pairing
// serves (x402/option-not-this-pairing) and a payload object
// (x402/payload-malformed).
func Presented(p jsonv.Value, serves func(*jsonv.Object) bool) (accepted, payload *jsonv.Object, err error) {
	o, ok := jsonv.AsObject(p)
	if !ok {
		return nil, nil, rails.Refuse(CodeNotV2)
	}
	if v, _ := o.Get("x402Version"); v != jsonv.Number(2) {
		return nil, nil, rails.Refuse(CodeNotV2)
	}
	accepted, ok = o.GetObject("accepted")
	if !ok || !serves(accepted) {
		return nil, nil, rails.Refuse(CodeOptionNotThisPairing)
	}
	payload, ok = o.GetObject("payload")
	if !ok {
		return nil, nil, rails.Refuse(CodePayloadMalformed)
	}
	return accepted, payload, nil
}

// LegalContext reads the legalContext extension of a document or a payment
// (its extensions member): the advertised hash in lowercase, the link and
// the agreement URL, with Read's codes.
func LegalContext(o *jsonv.Object) (h, link, agreement string, err error) { return legalContext(o) }

// Codes of a payment that echoes the document's legal context.
const (
	CodeNothingToSign = "x402/nothing-to-sign" // the build is itself the payment
)

// OptionOn is the first of a read's options on network, or nil: how every
// x402 pairing chooses for an account.
func OptionOn(options []jsonv.Value, network string) *jsonv.Object {
	for _, opt := range options {
		o, _ := jsonv.AsObject(opt)
		if n, _ := o.GetString("network"); n == network {
			return o
		}
	}
	return nil
}
