package rails

import (
	"math/big"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
)

// Channels (docs/protocol.md, "The pairing contract", "Channels"). A channel pairing's payment opens a
// channel (an escrow deposit, a session) that later payments spend from.
// The ATR is compared once, at the opening; the buyer keeps a hold (the
// bytes, the signed opening and the channel it names), and the gate signs a
// later voucher only for a held channel, re-deriving every channel value
// from the hold. These are the pairing's parts of that: reading what kind of
// channel payment a value is, which channel it names and the hash it commits
// to, and building the next payment in a held channel.

// ChannelKind is what a channel payment does.
type ChannelKind string

const (
	ChannelOpen   ChannelKind = "open"   // opens the channel (the payment the gate compared the ATR for)
	ChannelWithin ChannelKind = "within" // a later payment inside it (a voucher)
	ChannelClose  ChannelKind = "close"  // the final payment that closes it
)

// ChannelRef names a channel: the CAIP-2 network it lives on and its id,
// spelled the one way the pairing spells it (so that two refs compare as
// strings).
type ChannelRef struct {
	Network string
	Channel string
}

// Channel is implemented by pairings whose payment opens a channel. Each
// member reads a signed payment of the pairing (an opening, or a payment
// inside the channel) and refuses with a namespaced code what it cannot
// read.
type Channel interface {
	// ChannelKind is what the payment does.
	ChannelKind(signed jsonv.Value) (ChannelKind, error)
	// ChannelRef is the channel the payment names.
	ChannelRef(signed jsonv.Value) (ChannelRef, error)
	// BoundWithin reads H back out of a payment inside the channel ("0x" and
	// 64 lowercase hex). A pairing whose in-channel payments carry no H
	// refuses with a code ending in SuffixNotBoundWithin: their commitment
	// to H is the opening's, through the channel they name.
	BoundWithin(signed jsonv.Value) (string, error)
}

// ChannelNamer is implemented by MPP session pairings whose sellers issue
// later challenges naming the channel to resume: NamedChannel is the channel
// challenge names, spelled as ChannelRef spells a held one, with named false
// when it names none. The gate pays such a challenge only in the held
// channel; a pairing without it reads every challenge as naming none.
type ChannelNamer interface {
	NamedChannel(challenge jsonv.Value) (ref ChannelRef, named bool, err error)
}

// The refusal suffixes the gate reads from channel members.
const (
	// SuffixNotBoundWithin ends a BoundWithin refusal that says the
	// payment carries no H of its own (the gate then relies on the channel).
	SuffixNotBoundWithin = "/not-bound-within"
	// SuffixWithinActionNotBuilt ends a BuildWithin refusal for an action
	// the pairing does not build (a top-up, a partial refund): the gate
	// declines it pairing-not-supported rather than offer-unreadable.
	SuffixWithinActionNotBuilt = "/within-action-not-built"
)

// WithinAction is the in-channel payment the gate asks for.
type WithinAction string

const (
	WithinVoucher WithinAction = "voucher" // a voucher for a further charge
	WithinClose   WithinAction = "close"   // the final voucher, at the charge already recorded
	WithinRefund  WithinAction = "refund"  // x402 batch settlement: a partial refund, the channel stays open
)

// Within is what the gate hands BuildWithin for an MPP session: the
// challenge the seller issued for this payment, and everything else from
// the hold, never from that challenge. For x402 batch settlement it is the
// seller's new document and the option on the held network instead of a
// challenge; the channel configuration comes from the opening.
type Within struct {
	Challenge  *jsonv.Object // MPP: the within challenge, as the document gave it
	Opening    *jsonv.Object // the held opening, exactly as held
	Cumulative *big.Int      // the cumulative amount to sign: recorded charge (+ the challenge's amount for a voucher)
	Action     WithinAction

	Required     *jsonv.Object // x402: the seller's new document
	Accepted     *jsonv.Object // x402: its first option on the held network
	RefundAmount *big.Int      // x402: a partial refund's amount (Action WithinRefund)
	Inputs       *jsonv.Object // x402: the buyer's inputs (a Solana refund's blockhash and compute budget)
}

// InChannel is a built in-channel payment: requests the signer signs as
// one batch, and the completion of the payment from its answers (one
// string per request, in order).
type InChannel interface {
	Requests() []Request
	Complete(answers []string) (jsonv.Value, error)
}

// WithinBuilder is implemented by channel pairings that build payments
// inside a held channel. h is the hash of the held bytes, which the opening
// carries; the builder checks the opening against it again.
type WithinBuilder interface {
	BuildWithin(w Within, h atr.Hash) (InChannel, error)
}

// WithinInputChecker is implemented by channel pairings whose in-channel
// build takes buyer inputs (a Solana close's blockhash and compute budget):
// CheckWithinInputs refuses, with a namespaced code, inputs given for
// action and malformed. The gate declines that no-payable-option before
// anything is built or signed.
type WithinInputChecker interface {
	CheckWithinInputs(action WithinAction, inputs *jsonv.Object) error
}

// KindBatch is the signing request of an in-channel payment:
// {kind: "batch", requests: [...]}, answered by the list of answers in the
// same order.
const KindBatch = "batch"
