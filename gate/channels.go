package gate

import (
	"context"
	"encoding/base64"
	"math/big"
	"strings"
	"sync/atomic"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// The channel calls (docs/protocol.md, "Channels"). The ATR is compared once, when a
// channel opens (an ordinary Transact, or Confirm and Finish). OpenChannel
// turns that opening into a Hold: the bytes, the signed opening and the
// channel it names, kept together. Within signs the next payment in a held
// channel, re-deriving the bytes, the hash and the channel from the hold and
// taking from the seller's new challenge only what it asks for; RecordCharge
// records what the seller charged, bounded by what was signed. A hold comes
// back from whoever kept it (an agent, a file), so every call re-checks it
// whole before using any of it.

// The detail sentences of the channel calls, exactly as the reference gates
// write them.
const (
	DetailNoChannel          = "The pairing has no channel."
	DetailLandedNotObject    = "The landed receipt is not a JSON object beside the opening."
	DetailATRMissing         = "The ATR bytes are missing."
	DetailNotAnOpening       = "The payment does not open a channel."
	DetailOpeningNotBound    = "The opening does not carry the hash of these bytes."
	DetailOpeningNotJSON     = "The opening is not plain JSON."
	DetailHoldMalformed      = "The channel hold is malformed."
	DetailHeldATRUnreadable  = "The held ATR is unreadable."
	DetailHeldATRMismatch    = "The held ATR does not hash to the held hash."
	DetailHeldOpeningUnbound = "The held opening does not carry the held ATR's hash."
	DetailHeldOpeningOther   = "The held opening does not name the held channel."
	DetailOtherChannel       = "The challenge names a channel this hold did not open."
	DetailOtherHash          = "The challenge names another ATR's hash than the one this channel opened for."
	DetailVoucherNotBound    = "The signed voucher does not commit to the held ATR's hash."
	DetailVoucherOtherChan   = "The signed voucher does not name the held channel."
	DetailChargedNotDecimal  = "The charged amount is not a decimal."
	DetailChargedBelow       = "The charged amount is below the charge already recorded."
	DetailChargedAbove       = "The charged amount is above the largest amount signed in the channel."
)

// detailNoInChannel and detailHoldOtherPairing name the pairing.
func detailNoInChannel(id string) string { return "The pairing " + id + " has no in-channel payment." }

func detailHoldOtherPairing(id string) string { return "The hold is not for the pairing " + id + "." }

func detailNotKind(k rails.ChannelKind) string {
	return "The signed payment is not a " + string(k) + " payment."
}

// codeMemberFailed is the refusal a channel member that panicked or failed
// without a refusal stands for (docs/protocol.md, "Declines").
const codeMemberFailed = "member-failed"

// isDecimal is a hold's amount: 1 to 78 digits (any uint256 fits).
func isDecimal(s string) bool { return rails.IsDecimal(s) }

// amount reads a decimal isDecimal accepted.
func amount(s string) *big.Int {
	n, _ := new(big.Int).SetString(s, 10)
	return n
}

// Hold is a channel the buyer opened for an ATR it compared
// (docs/protocol.md, "Channels"). Its JSON form is
// {pairing, network, channel, h, atr, opening, charged, signedMax}; members
// beyond those are tolerated and carried along in Extra.
type Hold struct {
	Pairing   string
	Network   string // the CAIP-2 network of the channel
	Channel   string // the channel id, as the pairing spells it
	H         string // the ATR hash (lowercase when OpenChannel made the hold)
	ATR       string // standard padded base64 of the ATR bytes the opening compared
	Opening   *jsonv.Object
	Charged   string // the seller's cumulative charge last recorded, decimal; "0" at the opening
	SignedMax string // the largest cumulative amount signed in the channel, decimal
	// Extra are members a kept hold had beyond these eight, in order.
	Extra *jsonv.Object
}

var holdKeys = []string{"pairing", "network", "channel", "h", "atr", "opening", "charged", "signedMax"}

func isHoldKey(k string) bool {
	for _, h := range holdKeys {
		if k == h {
			return true
		}
	}
	return false
}

// JSON is the hold's wire form: the eight members in their documented order, then the
// extra ones (never one that would shadow the eight).
func (h *Hold) JSON() *jsonv.Object {
	o := jsonv.Obj("pairing", h.Pairing, "network", h.Network, "channel", h.Channel, "h", h.H,
		"atr", h.ATR, "opening", h.Opening.Clone(), "charged", h.Charged, "signedMax", h.SignedMax)
	for _, m := range h.Extra.Members() {
		if !isHoldKey(m.Key) {
			o.Set(m.Key, jsonv.Clone(m.Value))
		}
	}
	return o
}

// valid is the reference's isHold: charged and signedMax decimals, and an
// opening object (the other members are strings by their Go type).
func (h *Hold) valid() bool {
	return h != nil && h.Opening != nil && isDecimal(h.Charged) && isDecimal(h.SignedMax)
}

// clone copies the hold, so that a result never aliases what it was given.
func (h *Hold) clone() *Hold {
	c := *h
	c.Opening = h.Opening.Clone()
	c.Extra = h.Extra.Clone()
	return &c
}

// ParseHold reads a hold's JSON form. Anything but an object whose pairing,
// network, channel, h, atr, charged and signedMax are strings (charged and
// signedMax decimals) and whose opening is an object is signed-not-bound,
// "The channel hold is malformed.", as Within and RecordCharge decline it.
func ParseHold(v jsonv.Value) (*Hold, error) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, decline(SignedNotBound, DetailHoldMalformed)
	}
	var s [7]string
	for i, k := range []string{"pairing", "network", "channel", "h", "atr", "charged", "signedMax"} {
		if s[i], ok = o.GetString(k); !ok {
			return nil, decline(SignedNotBound, DetailHoldMalformed)
		}
	}
	opening, _ := o.GetObject("opening")
	h := &Hold{Pairing: s[0], Network: s[1], Channel: s[2], H: s[3], ATR: s[4], Opening: opening.Clone(), Charged: s[5], SignedMax: s[6]}
	if !h.valid() {
		return nil, decline(SignedNotBound, DetailHoldMalformed)
	}
	for _, m := range o.Members() {
		if !isHoldKey(m.Key) {
			if h.Extra == nil {
				h.Extra = &jsonv.Object{}
			}
			h.Extra.Set(m.Key, jsonv.Clone(m.Value))
		}
	}
	return h, nil
}

// channelOf is the pairing's channel members, or the decline for a pairing
// that has none.
func (g *Gate) channelOf(pairing string) (rails.Pairing, rails.Channel, error) {
	p, d := g.lookup(pairing)
	if d != nil {
		return nil, nil, d
	}
	ch, ok := p.(rails.Channel)
	if !ok {
		return nil, nil, decline(PairingNotSupported, DetailNoChannel)
	}
	return p, ch, nil
}

// OpenChannel takes a channel pairing's signed opening (Transacted.Signed,
// or Finished.Signed) and the ATR bytes compared for it, with the landed
// receipt the gate returned beside the opening where it returned one
// (docs/protocol.md, "Channels", opening). The opening must open a channel, carry the hash of
// these bytes and name its channel; the hold keeps the three together, with
// nothing charged yet. It signs nothing.
func (g *Gate) OpenChannel(atrBytes []byte, pairing string, opened, landed jsonv.Value) (*Hold, error) {
	p, ch, err := g.channelOf(pairing)
	if err != nil {
		return nil, err
	}
	signed := opened
	if landed != nil {
		o, ok1 := jsonv.AsObject(opened)
		_, ok2 := jsonv.AsObject(landed)
		if !ok1 || !ok2 {
			return nil, decline(SignedNotBound, DetailLandedNotObject)
		}
		o = o.Clone()
		o.Set("landed", jsonv.Clone(landed))
		signed = o
	}
	if atrBytes == nil {
		return nil, decline(SignedNotBound, DetailATRMissing)
	}
	if len(atrBytes) > atr.MaxBytes {
		return nil, decline(ATRTooLarge, DetailTooLarge)
	}
	kind, err := call(codeMemberFailed, func() (rails.ChannelKind, error) { return ch.ChannelKind(signed) })
	if err != nil || kind != rails.ChannelOpen {
		return nil, decline(SignedNotBound, DetailNotAnOpening)
	}
	h := atr.Sum(atrBytes)
	inside, err := call(codeMemberFailed, func() (string, error) { return p.Bound(signed) })
	if err != nil || !atr.EqualText(inside, h) {
		return nil, decline(SignedNotBound, DetailOpeningNotBound)
	}
	ref, err := call(codeMemberFailed, func() (rails.ChannelRef, error) { return ch.ChannelRef(signed) })
	if err != nil {
		return nil, decline(SignedNotBound, refusalCode(err))
	}
	opening, ok := jsonv.AsObject(signed)
	if !ok {
		return nil, decline(SignedNotBound, DetailOpeningNotJSON)
	}
	return &Hold{
		Pairing: p.ID(), Network: ref.Network, Channel: ref.Channel, H: h.String(),
		ATR: base64.StdEncoding.EncodeToString(atrBytes), Opening: opening.Clone(),
		Charged: "0", SignedMax: openingMax(opening),
	}, nil
}

// openingMax is the opening voucher's maxClaimableAmount (x402 batch
// settlement) when it is a decimal, else "0" (an MPP session's opening
// voucher is the zero voucher).
func openingMax(o *jsonv.Object) string {
	payload, _ := o.GetObject("payload")
	voucher, _ := payload.GetObject("voucher")
	if s, ok := voucher.GetString("maxClaimableAmount"); ok && isDecimal(s) {
		return s
	}
	// An XRPL session's opening signs its first claim, for payload.amount.
	if s, ok := payload.GetString("amount"); ok && isDecimal(s) && payload.Has("signature") && mpp.String(payload, "action") == "open" {
		return s
	}
	return "0"
}

// Refund asks Within for a refund instead of a voucher. A nil Amount is the
// full refund, the close at the charge already recorded (the way a channel
// ends); an amount is a partial refund, which no MPP session builds.
type Refund struct {
	Amount *string
}

// WithinResult is a payment signed inside a held channel, and the hold with
// the largest amount signed updated. Keep the new hold; send only Signed.
type WithinResult struct {
	Signed jsonv.Value
	Hold   *Hold
	H      atr.Hash
}

// JSON is {atrHash, signed, hold}.
func (w *WithinResult) JSON() *jsonv.Object {
	return jsonv.Obj("atrHash", w.H.String(), "signed", w.Signed, "hold", w.Hold.JSON())
}

// Within signs one later payment, or the close, in a held channel
// (docs/protocol.md, "Channels", paying within). doc is the seller's new document (for MPP,
// the challenge list); refund nil asks for a voucher of the recorded charge
// plus the challenge's amount, &Refund{} for the close at the recorded
// charge. inputs are the buyer's inputs: nil, or an object.
//
// The ATR bytes, their hash and the channel are re-derived from the hold;
// the challenge must name the held hash, if it names one, and the held
// channel, if it names one. The signer is called once, with a batch request,
// and what it signed must be a payment of the expected kind in the held
// channel that commits to the held hash, or it is dropped.
func (g *Gate) Within(ctx context.Context, doc jsonv.Value, hold *Hold, pairing string, signer Signer, refund *Refund, inputs jsonv.Value) (*WithinResult, error) {
	p, ch, err := g.channelOf(pairing)
	if err != nil {
		return nil, err
	}
	wb, ok := p.(rails.WithinBuilder)
	if !ok {
		return nil, decline(PairingNotSupported, detailNoInChannel(p.ID()))
	}
	if !hold.valid() {
		return nil, decline(SignedNotBound, DetailHoldMalformed)
	}
	if hold.Pairing != p.ID() {
		return nil, decline(PairingNotSupported, detailHoldOtherPairing(p.ID()))
	}
	ns := rails.Namespace(p.ID())
	if refund != nil && refund.Amount != nil && !isDecimal(*refund.Amount) {
		return nil, decline(NoPayableOption, ns+"/input-missing")
	}
	in, err := inputsObject(inputs, ns)
	if err != nil {
		return nil, err
	}
	if signer == nil {
		return nil, decline(NoPayableOption, ns+"/input-malformed")
	}
	h, err := heldHash(p, ch, hold)
	if err != nil {
		return nil, err
	}
	if ns != "mpp" {
		return g.withinX402(ctx, p, ch, wb, doc, hold, h, signer, refund, in)
	}
	if refund != nil && refund.Amount != nil {
		// A partial refund: no MPP session builds one.
		return nil, decline(PairingNotSupported, ns+rails.SuffixWithinActionNotBuilt)
	}
	challenge, err := withinChallenge(p, doc, hold)
	if err != nil {
		return nil, err
	}
	charge, err := challengeCharge(challenge, h)
	if err != nil {
		return nil, err
	}
	w := rails.Within{Challenge: challenge.Clone(), Opening: hold.Opening.Clone(), Cumulative: amount(hold.Charged), Action: rails.WithinClose}
	if refund == nil {
		w.Action = rails.WithinVoucher
		w.Cumulative.Add(w.Cumulative, charge)
	}
	built, err := call(codeMemberFailed, func() (rails.InChannel, error) { return wb.BuildWithin(w, h) })
	if err != nil {
		code := refusalCode(err)
		if strings.HasSuffix(code, rails.SuffixWithinActionNotBuilt) {
			return nil, decline(PairingNotSupported, code)
		}
		return nil, decline(OfferUnreadable, code)
	}
	return g.signWithin(ctx, ch, built, nil, w, hold, h, signer)
}

// heldHash re-checks the hold before any of it is used:
// its bytes decode and hash to its h, its opening carries that hash and
// names its channel. It returns the hash of the held bytes.
func heldHash(p rails.Pairing, ch rails.Channel, hold *Hold) (atr.Hash, error) {
	// The length is bounded before anything is decoded: a hold is input.
	if len(hold.ATR) > base64.StdEncoding.EncodedLen(atr.MaxBytes) {
		return atr.Hash{}, decline(SignedNotBound, DetailHeldATRUnreadable)
	}
	b, err := ParseATR(hold.ATR)
	if err != nil || len(b) > atr.MaxBytes {
		return atr.Hash{}, decline(SignedNotBound, DetailHeldATRUnreadable)
	}
	h := atr.Sum(b)
	if !atr.EqualText(hold.H, h) {
		return atr.Hash{}, decline(HashMismatch, DetailHeldATRMismatch)
	}
	inside, err := call(codeMemberFailed, func() (string, error) { return p.Bound(hold.Opening) })
	if err != nil || !atr.EqualText(inside, h) {
		return atr.Hash{}, decline(SignedNotBound, DetailHeldOpeningUnbound)
	}
	ref, err := call(codeMemberFailed, func() (rails.ChannelRef, error) { return ch.ChannelRef(hold.Opening) })
	if err != nil || ref.Network != hold.Network || ref.Channel != hold.Channel {
		return atr.Hash{}, decline(SignedNotBound, DetailHeldOpeningOther)
	}
	return h, nil
}

// withinChallenge is the challenge of an MPP document that the payment
// answers: among the first 32 entries, the first that names no
// channel and offers the pairing on the held network, or names a channel of
// the pairing on the held network. A named channel must be the held one.
// Anything else in the document is skipped, so a document that is not a
// list has none.
func withinChallenge(p rails.Pairing, doc jsonv.Value, hold *Hold) (*jsonv.Object, error) {
	list, _ := jsonv.AsArray(doc)
	if len(list) > mpp.MaxChallenges {
		list = list[:mpp.MaxChallenges]
	}
	namer, _ := p.(rails.ChannelNamer)
	for _, v := range list {
		c, ok := jsonv.AsObject(v)
		if !ok {
			continue
		}
		ref, named, err := namedChannel(namer, c)
		if err == nil && !named {
			if offersOn(c, p.ID(), hold.Network) {
				return c, nil
			}
			continue
		}
		if "mpp/"+mpp.String(c, "intent")+"/"+mpp.String(c, "method") != p.ID() || err != nil || ref.Network != hold.Network {
			continue // another pairing's, or a named channel no hold opened, or another network's
		}
		if ref.Channel != hold.Channel {
			return nil, decline(NoPayableOption, DetailOtherChannel)
		}
		return c, nil
	}
	return nil, decline(NoPayableOption, mpp.CodeNoPayableOption)
}

// namedChannel asks the pairing which channel c names; a pairing that cannot
// say reads every challenge as naming none.
func namedChannel(namer rails.ChannelNamer, c *jsonv.Object) (rails.ChannelRef, bool, error) {
	if namer == nil {
		return rails.ChannelRef{}, false, nil
	}
	type named struct {
		ref rails.ChannelRef
		ok  bool
	}
	got, err := call(codeMemberFailed, func() (named, error) {
		ref, ok, err := namer.NamedChannel(c)
		return named{ref, ok}, err
	})
	return got.ref, got.ok, err
}

// offersOn reports whether c, read as an opening challenge, offers pairing
// on network. Both readings leave the opaque out, as choosing does: the
// opaque is judged next, on its own.
func offersOn(c *jsonv.Object, pairing, network string) bool {
	if !mpp.OffersPlaced(c, pairing) {
		return false
	}
	issued := c.Clone()
	issued.Delete("opaque")
	n, err := mpp.Network(issued)
	return err == nil && n == network
}

// challengeCharge is what the challenge asks for (its request.amount), once
// its opaque, if it has one, names no other ATR than the held one.
//
// Every voucher of a channel usually answers the same challenge, so the
// last charge read is remembered: it is a function of the opaque and
// request strings and h alone, and the memo (one entry) answers only when
// all three are the same. Only a charge read without error is remembered.
func challengeCharge(c *jsonv.Object, h atr.Hash) (*big.Int, error) {
	opaqueValue, hasOpaque := c.Get("opaque")
	opaque, opaqueIsText := opaqueValue.(string)
	reqText, _ := c.GetString("request")
	if !hasOpaque || opaqueIsText {
		if m := lastCharge.Load(); m != nil && m.hasOpaque == hasOpaque && m.opaque == opaque && m.request == reqText && m.h == h {
			return new(big.Int).Set(m.amount), nil
		}
	}
	n, err := readCharge(c, h)
	if err == nil && (!hasOpaque || opaqueIsText) {
		lastCharge.Store(&chargeMemo{hasOpaque: hasOpaque, opaque: opaque, request: reqText, h: h, amount: new(big.Int).Set(n)})
	}
	return n, err
}

// chargeMemo is the last charge challengeCharge read and what it read it
// from: the challenge's opaque (when it has one, a string) and request, and
// the held hash.
type chargeMemo struct {
	hasOpaque       bool
	opaque, request string
	h               atr.Hash
	amount          *big.Int // never handed out: a hit returns a copy
}

var lastCharge atomic.Pointer[chargeMemo]

// readCharge is challengeCharge without the memo.
func readCharge(c *jsonv.Object, h atr.Hash) (*big.Int, error) {
	if v, has := c.Get("opaque"); has {
		s, _ := v.(string)
		m, ok := mpp.DecodeStringMap(s)
		if !ok {
			return nil, decline(OfferUnreadable, mpp.CodeOpaqueMalformed)
		}
		if lc, has := m.Get(mpp.KeyLegalContext); has {
			text, _ := lc.(string) // a string map's member
			named, ok := mpp.ParseLegalContext(text)
			if !ok {
				return nil, decline(OfferUnreadable, mpp.CodeLegalContextMalformed)
			}
			if !named.Equal(h) {
				return nil, decline(HashMismatch, DetailOtherHash)
			}
		}
	}
	reqText, _ := c.GetString("request")
	request, ok := mpp.DecodeObject(reqText)
	if !ok {
		return nil, decline(OfferUnreadable, mpp.CodeRequestMalformed)
	}
	s, _ := request.GetString("amount")
	if !isDecimal(s) {
		return nil, decline(OfferUnreadable, mpp.CodeRequestMalformed)
	}
	return amount(s), nil
}

// signWithin asks the policy, signs the built payment as one batch and
// checks what came back. reqs are built's requests when the caller already
// asked for them (nil: asked here).
func (g *Gate) signWithin(ctx context.Context, ch rails.Channel, built rails.InChannel, reqs []rails.Request, w rails.Within, hold *Hold, h atr.Hash, signer Signer) (*WithinResult, error) {
	if reqs == nil {
		var err error
		if reqs, err = requestsOf(built); err != nil {
			return nil, err
		}
	}
	if len(reqs) == 0 {
		return nil, decline(OfferUnreadable, codeMemberFailed)
	}
	list := make([]jsonv.Value, len(reqs))
	for i, r := range reqs {
		list[i] = r
	}
	batch := jsonv.Obj("kind", rails.KindBatch, "requests", list)
	var held *Hold // the policy's own copy; none is made without a policy
	if g.Policy != nil {
		held = hold.clone()
	}
	kept, err := g.allow(ctx, PaymentSummary{
		Pairing: hold.Pairing, H: h, Request: batch, Chosen: rails.Chosen{Pairing: hold.Pairing},
		Rail: g.railOf(hold.Pairing), Hold: held,
	})
	if err != nil {
		return nil, err
	}
	res, err := g.signBatch(ctx, ch, batch, len(reqs), built, w, hold, h, signer)
	kept.settle(ctx, err)
	return res, err
}

// requestsOf asks built for its requests once; the x402 path checks them
// before signing and signs the same list.
func requestsOf(built rails.InChannel) ([]rails.Request, error) {
	reqs, err := call(codeMemberFailed, func() ([]rails.Request, error) { return built.Requests(), nil })
	if err != nil {
		return nil, decline(OfferUnreadable, codeMemberFailed)
	}
	return reqs, nil
}

// railOf is the registered pairing id names, nil when none.
func (g *Gate) railOf(id string) rails.Pairing {
	p, _ := g.pairings().Lookup(id)
	return p
}

// signBatch signs the batch and checks what the signer answered; an error
// drops what was signed.
func (g *Gate) signBatch(ctx context.Context, ch rails.Channel, batch *jsonv.Object, n int, built rails.InChannel, w rails.Within, hold *Hold, h atr.Hash, signer Signer) (*WithinResult, error) {
	if f := progressOf(ctx); f != nil {
		f("asking the signer to sign a " + string(w.Action) + " in the held channel")
	}
	answer, err := signSafely(ctx, signer, batch)
	if err != nil {
		return nil, decline(SignerFailed, DetailSignerFailed).because(err)
	}
	answers, ok := jsonv.AsArray(answer)
	if !ok || len(answers) != n {
		return nil, decline(SignedNotBound, DetailNotCompleted)
	}
	sigs := make([]string, len(answers))
	for i, a := range answers {
		if sigs[i], ok = a.(string); !ok {
			return nil, decline(SignedNotBound, DetailNotCompleted)
		}
	}
	signed, err := call(codeMemberFailed, func() (jsonv.Value, error) { return built.Complete(sigs) })
	if err != nil {
		return nil, decline(SignedNotBound, refusalCode(err))
	}
	expected := rails.ChannelWithin
	if w.Action == rails.WithinClose {
		expected = rails.ChannelClose
	}
	kind, err := call(codeMemberFailed, func() (rails.ChannelKind, error) { return ch.ChannelKind(signed) })
	if err != nil || kind != expected {
		return nil, decline(SignedNotBound, detailNotKind(expected))
	}
	inside, err := call(codeMemberFailed, func() (string, error) { return ch.BoundWithin(signed) })
	if err != nil && !strings.HasSuffix(refusalCode(err), rails.SuffixNotBoundWithin) || err == nil && !atr.EqualText(inside, h) {
		return nil, decline(SignedNotBound, DetailVoucherNotBound)
	}
	ref, err := call(codeMemberFailed, func() (rails.ChannelRef, error) { return ch.ChannelRef(signed) })
	if err != nil || ref.Network != hold.Network || ref.Channel != hold.Channel {
		return nil, decline(SignedNotBound, DetailVoucherOtherChan)
	}
	next := hold.clone()
	if w.Cumulative.Cmp(amount(hold.SignedMax)) > 0 {
		next.SignedMax = w.Cumulative.String()
	}
	return &WithinResult{Signed: signed, Hold: next, H: h}, nil
}

// RecordCharge records the seller's cumulative charge in the channel
// (docs/protocol.md, "Channels", recording a charge): a decimal no lower than the charge already
// recorded and no higher than the largest amount signed. It returns the new
// hold, with the charge written without leading zeros.
func RecordCharge(hold *Hold, charged string) (*Hold, error) {
	if !hold.valid() {
		return nil, decline(SignedNotBound, DetailHoldMalformed)
	}
	if !isDecimal(charged) {
		return nil, decline(OfferUnreadable, DetailChargedNotDecimal)
	}
	n := amount(charged)
	if n.Cmp(amount(hold.Charged)) < 0 {
		return nil, decline(OfferUnreadable, DetailChargedBelow)
	}
	if n.Cmp(amount(hold.SignedMax)) > 0 {
		return nil, decline(OfferUnreadable, DetailChargedAbove)
	}
	next := hold.clone()
	next.Charged = n.String()
	return next, nil
}
