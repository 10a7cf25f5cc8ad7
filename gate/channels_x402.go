package gate

import (
	"context"
	"math/big"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// Within's x402 batch-settlement path (docs/protocol.md#channels,
// docs/channels.md): the seller's new document is read as an opening is,
// must advertise the held hash, and its option on the held network prices
// the voucher; the channel itself comes from the hold. Before anything is
// signed the built payment is completed with placeholder signatures and the
// channel it would name compared with the held one, so that a document
// steering the voucher into another channel is refused unsigned.

// The detail sentences of the x402 path.
const (
	DetailAdvertisesOtherHash = "The challenge advertises another ATR's hash than the one this channel opened for."
	DetailChannelUnreadable   = "The in-channel payment's channel cannot be read before it is signed."
	DetailOtherChannelAsked   = "The challenge asks for a payment in a channel this hold did not open."
)

// placeholders answer a request kind with a signature of its shape that
// signs nothing, for the channel check before signing.
var placeholders = map[string]string{
	"eip712":         "0x" + strings.Repeat("0", 130),
	"ed25519-raw":    strings.Repeat("1", 64),
	"solana-message": strings.Repeat("1", 64),
}

func (g *Gate) withinX402(ctx context.Context, p rails.Pairing, ch rails.Channel, wb rails.WithinBuilder, doc jsonv.Value, hold *Hold, h atr.Hash, signer Signer, refund *Refund, inputs *jsonv.Object) (*WithinResult, error) {
	ns := rails.Namespace(p.ID())
	read, err := call(codeMemberFailed, func() (rails.Read, error) { return p.Read(doc) })
	if err != nil {
		return nil, decline(OfferUnreadable, refusalCode(err))
	}
	if !atr.EqualText(read.H, h) {
		return nil, decline(HashMismatch, DetailAdvertisesOtherHash)
	}
	var accepted *jsonv.Object
	for _, o := range read.Options {
		opt, _ := jsonv.AsObject(o)
		if n, _ := opt.GetString("network"); n == hold.Network {
			accepted = opt
			break
		}
	}
	if accepted == nil {
		return nil, decline(NoPayableOption, ns+"/no-payable-option")
	}
	price, _ := accepted.GetString("amount")
	if !isDecimal(price) {
		return nil, decline(OfferUnreadable, ns+"/option-malformed")
	}
	required, _ := jsonv.AsObject(read.Required)
	// The document and its option go to the builder as read, as Transact
	// hands them to Choose and Build (the option is then the document's own
	// entry, which the builder recognises by identity); a builder copies
	// what it echoes into the payment. The hold's opening is copied: the
	// hold is the caller's.
	w := rails.Within{
		Opening: hold.Opening.Clone(), Cumulative: amount(hold.Charged), Action: rails.WithinVoucher,
		Required: required, Accepted: accepted, Inputs: inputs.Clone(),
	}
	switch {
	case refund == nil:
		w.Cumulative.Add(w.Cumulative, amount(price))
	case refund.Amount == nil:
		w.Action = rails.WithinClose
	default:
		w.Action, w.RefundAmount = rails.WithinRefund, new(big.Int).Set(amount(*refund.Amount))
	}
	if ic, ok := p.(rails.WithinInputChecker); ok {
		if _, err := call(codeMemberFailed, func() (struct{}, error) { return struct{}{}, ic.CheckWithinInputs(w.Action, inputs) }); err != nil {
			return nil, decline(NoPayableOption, refusalCode(err))
		}
	}
	built, err := call(codeMemberFailed, func() (rails.InChannel, error) { return wb.BuildWithin(w, h) })
	if err != nil {
		return nil, decline(OfferUnreadable, refusalCode(err))
	}
	reqs, err := requestsOf(built)
	if err != nil {
		return nil, err
	}
	if err := wouldName(ch, built, reqs, hold); err != nil {
		return nil, err
	}
	return g.signWithin(ctx, ch, built, reqs, w, hold, h, signer)
}

// wouldName completes built (whose requests are reqs) with placeholder
// signatures and checks that the payment would name the held channel.
func wouldName(ch rails.Channel, built rails.InChannel, reqs []rails.Request, hold *Hold) error {
	fake := make([]string, len(reqs))
	for i, r := range reqs {
		k, _ := r.GetString("kind")
		s, ok := placeholders[k]
		if !ok {
			return decline(OfferUnreadable, DetailChannelUnreadable)
		}
		fake[i] = s
	}
	would, err := call(codeMemberFailed, func() (jsonv.Value, error) { return built.Complete(fake) })
	if err != nil {
		return decline(OfferUnreadable, refusalCode(err))
	}
	ref, err := call(codeMemberFailed, func() (rails.ChannelRef, error) { return ch.ChannelRef(would) })
	if err != nil {
		return decline(OfferUnreadable, refusalCode(err))
	}
	if ref.Network != hold.Network || ref.Channel != hold.Channel {
		return decline(NoPayableOption, DetailOtherChannelAsked)
	}
	return nil
}
