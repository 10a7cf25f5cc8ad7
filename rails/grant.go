package rails

import (
	"math/big"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
)

// Grant is what one signature grants, read from the signing request itself,
// never from the seller's description of it: who may move how much of which
// asset, to whom, on which network, until when. A spend policy judges it and
// an approver is shown it.
type Grant struct {
	Network   string   // CAIP-2, e.g. "eip155:84532"
	Asset     string   // the asset as the request names it (a token contract, an issued asset, "XRP")
	AssetName string   // the asset's own claim of its name, when the request carries one; seller text
	Decimals  int      // decimals of Asset when the request or a known asset gives them, else -1
	Amount    *big.Int // atomic units of Asset this signature can move at most
	Payer     string
	Payee     string

	PayableFrom  time.Time // zero when the request sets no start
	PayableUntil time.Time // after it the signature is worthless; zero when the request sets no end

	// Period is set for a recurring grant (a key authorization's periodic
	// limit): Amount may then move again every Period until PayableUntil.
	// Zero for a one-off payment.
	Period time.Duration
}

// Summarizer is implemented by every pairing: it states what signing a
// request the pairing built would grant. A request it cannot read fully is an
// error, and the payment is not signed: nothing is signed on doubt.
type Summarizer interface {
	Summarize(req Request) (Grant, error)
}

// WithinSummarizer is implemented by channel pairings whose in-channel
// requests (a voucher) do not name everything a Grant states: it states
// what signing req, a payment inside the channel opening opened, grants.
// Amount is the cumulative amount the payment lets the payee claim in the
// channel, not what it adds; the caller knows what was signed before.
type WithinSummarizer interface {
	SummarizeWithin(req Request, opening *jsonv.Object) (Grant, error)
}

// Inspector is implemented by every pairing: it states what a payment in
// the pairing's signed form (what Bound takes) grants and where H sits in
// it, read from the payment itself (docs/adding-a-pairing.md, "The
// contract"). A payment it cannot read is an error, never a panic.
type Inspector interface {
	Inspect(payment jsonv.Value) (Inspection, error)
}

// ConfirmSummarizer is implemented by the confirm-only pairings (the
// checkouts: the gate builds no signing request, and returning the confirmed
// payment is itself the buyer's commitment to pay). It states what that
// commitment grants, from the choice and the hash the gate computed, so that
// a spend policy judges it as it judges a signature. A choice it cannot read
// fully, or one that states no amount, is an error: nothing is committed on
// doubt.
type ConfirmSummarizer interface {
	SummarizeConfirm(chosen Chosen, h atr.Hash) (Grant, error)
}
