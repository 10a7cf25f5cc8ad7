package pay

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
	"github.com/termsgate/termsgate/rails/evm"
)

// Summary is what a signature grants, read from the signing request itself
// (never from the seller's description of it): who may move how much of
// which asset, to whom, on which network, until when, under which terms.
// It is what an approver is shown and what Policy judges. The Grant is the
// pairing's own reading (rails.Summarizer).
type Summary struct {
	Pairing string
	H       atr.Hash // the terms the payment binds (SHA-256 of the ATR bytes)
	rails.Grant
	// ChannelSigned is set for a payment inside a held channel: the
	// cumulative amount signed in it before. Grant.Amount is then the new
	// cumulative amount, and the payment adds the difference (Adds).
	ChannelSigned *big.Int
	// Unbound is set for a payment to an offer that publishes no terms: H
	// is zero and the payment binds no terms (docs/protocol.md, "Unbound
	// payments").
	Unbound bool
	// ConfirmOnly is set for a checkout the gate signs nothing for: the
	// Grant is what its confirm commits the buyer to
	// (gate.PaymentSummary.ConfirmOnly).
	ConfirmOnly bool
}

// Adds is what the payment adds to what was already signed: Amount, or for
// a payment in a channel, Amount less ChannelSigned (never below zero).
// For a recurring grant it is one period's Amount; Policy counts every
// period (Counted).
func (s Summary) Adds() *big.Int {
	if s.Amount == nil {
		return new(big.Int)
	}
	if s.ChannelSigned == nil {
		return s.Amount
	}
	d := new(big.Int).Sub(s.Amount, s.ChannelSigned)
	if d.Sign() < 0 {
		d.SetInt64(0)
	}
	return d
}

// Counted is what Policy counts against a limit at now: Adds, and for a
// recurring grant (Period set) its Amount for every period that starts
// before PayableUntil — everything the grant lets move.
func (s Summary) Counted(now time.Time) *big.Int {
	adds := s.Adds()
	if s.Period <= 0 {
		return adds
	}
	left := s.PayableUntil.Sub(now)
	periods := int64(1)
	if left > s.Period {
		periods = int64((left + s.Period - 1) / s.Period)
	}
	return new(big.Int).Mul(adds, big.NewInt(periods))
}

// Units is Amount in whole units of the asset ("0.01" for 10000 of a
// 6-decimal asset) when the decimals are known, else "".
func (s Summary) Units() string {
	return Units(s.Amount, s.Decimals)
}

// Units writes an atomic amount in units of an asset with decimals
// decimals, without trailing zeros; "" when decimals is unknown (< 0).
func Units(amount *big.Int, decimals int) string {
	if amount == nil || decimals < 0 || decimals > 77 {
		return ""
	}
	digits := amount.String()
	if decimals == 0 {
		return digits
	}
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	for len(digits) <= decimals {
		digits = "0" + digits
	}
	whole, frac := digits[:len(digits)-decimals], strings.TrimRight(digits[len(digits)-decimals:], "0")
	out := whole
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

// String is one line for a person: amount, asset, payee, network, deadline,
// terms.
func (s Summary) String() string {
	amount := "?"
	if s.Amount != nil {
		amount = s.Amount.String()
	}
	name := s.AssetName
	if name == "" {
		name = "token"
	}
	per := ""
	if s.Period > 0 {
		per = " every " + s.Period.String()
	}
	from := s.Payer
	if from == "" {
		from = "the signer"
	}
	until := "no deadline"
	if !s.PayableUntil.IsZero() {
		until = "payable until " + s.PayableUntil.UTC().Format(time.RFC3339)
	}
	terms := "terms " + s.H.String()
	if s.Unbound {
		terms = "UNBOUND: no terms (the offer publishes none)"
	}
	return fmt.Sprintf("%s atomic units of %s %s%s on %s from %s to %s, %s, %s (%s)",
		amount, name, s.Asset, per, s.Network, from, s.Payee, until, terms, s.Pairing)
}

// Detail codes of a refusal by Policy or by the transport's own summary
// check. Each is the Detail of a *gate.Decline whose Code is
// gate.NoPayableOption.
const (
	DetailAmountAboveMaximum = "policy/amount-above-maximum" // amount > the asset's MaxAmount
	DetailNetworkNotAllowed  = "policy/network-not-allowed"  // no limit names the network, or it is not in Networks
	DetailAssetNotAllowed    = "policy/asset-not-allowed"    // the network is allowed, this asset on it is not
	DetailPayeeNotAllowed    = "policy/payee-not-allowed"    // Payees is set and does not hold the payee
	DetailPayableTooLong     = "policy/payable-too-long"     // validBefore − now > MaxPayable
	DetailBudgetExhausted    = "policy/budget-exhausted"     // the asset's cumulative Budget would be exceeded
	DetailRequestUnreadable  = "policy/request-unreadable"   // the signing request is not one Summarize reads
	DetailBudgetUnavailable  = "policy/budget-unavailable"   // the Budget failed to reserve: nothing is signed on doubt
	DetailUnboundNotAllowed  = "policy/unbound-not-allowed"  // the offer publishes no terms and AllowUnbound is off
	DetailAssetNotUSD        = "policy/asset-not-usd"        // a USD limit or total applies and USDStablecoins does not know the asset
	DetailOriginNotAllowed   = "policy/origin-not-allowed"   // Origins is set and the 402 came from another origin (Transport only)
)

// DetailCode is a refusal detail's code: a Policy refusal's detail is the
// code, ": ", then what was asked ("policy/amount-above-maximum: 2000000
// of eip155:84532 0x036c… (at most 10000)"), and so is
// gate.UnboundNotSupported's; other details are returned as they are.
func DetailCode(detail string) string {
	if strings.HasPrefix(detail, "policy/") || strings.HasPrefix(detail, gate.DetailUnboundNotSupported+": ") {
		code, _, _ := strings.Cut(detail, ": ")
		return code
	}
	return detail
}

func refuse(detail string) *gate.Decline {
	return &gate.Decline{Code: gate.NoPayableOption, Detail: detail}
}

var defaultPairings = all.Default()

// Summarize reads what the signature would grant from the signing request,
// by asking the request's pairing (gate.PaymentSummary.Rail, else the
// pairing registered under its id in rails/all): its rails.Summarizer, or
// for a payment in a held channel its rails.WithinSummarizer with the
// hold's opening when it has one (a pairing whose in-channel requests name
// everything summarizes them with Summarize). Every shipped pairing has one (a test walks rails/all).
//
// A confirm-only payment (gate.PaymentSummary.ConfirmOnly: a checkout, for
// which nothing is signed) is read by the pairing's rails.ConfirmSummarizer
// from the choice: the commitment the confirm makes is judged as a
// signature would be.
//
// A request the pairing cannot read, a pairing without a summary, or a
// Grant that does not state a network, an asset and an amount is a
// *gate.Decline (no-payable-option, policy/request-unreadable, followed by
// the pairing's refusal code): a signature whose effect cannot be stated
// is not signed.
func Summarize(p gate.PaymentSummary) (s Summary, err error) {
	if p.Request == nil && !p.ConfirmOnly {
		return Summary{}, refuse(DetailRequestUnreadable)
	}
	pairing := p.Rail
	if pairing == nil {
		pairing, _ = defaultPairings.Lookup(p.Pairing)
	}
	if pairing == nil || pairing.ID() != p.Pairing {
		return Summary{}, refuse(DetailRequestUnreadable + ": no pairing " + p.Pairing)
	}
	defer func() {
		if r := recover(); r != nil { // a pairing's reading must never crash the payer
			s, err = Summary{}, refuse(DetailRequestUnreadable+": the summary of "+p.Pairing+" failed")
		}
	}()
	var g rails.Grant
	if p.ConfirmOnly {
		// Nothing is signed: what the confirm commits to is the grant.
		cs, ok := pairing.(rails.ConfirmSummarizer)
		if !ok || p.Request != nil {
			return Summary{}, refuse(DetailRequestUnreadable + ": " + p.Pairing + " states no confirm-only summary")
		}
		g, err = cs.SummarizeConfirm(p.Chosen, p.H)
	} else if ws, ok := pairing.(rails.WithinSummarizer); ok && p.Hold != nil {
		g, err = ws.SummarizeWithin(p.Request, p.Hold.Opening)
	} else {
		sz, ok := pairing.(rails.Summarizer)
		if !ok {
			return Summary{}, refuse(DetailRequestUnreadable + ": " + p.Pairing + " states no summary")
		}
		g, err = sz.Summarize(p.Request)
	}
	if err != nil {
		var ref *rails.Refusal
		if errors.As(err, &ref) {
			return Summary{}, refuse(DetailRequestUnreadable + ": " + ref.Code)
		}
		return Summary{}, refuse(DetailRequestUnreadable)
	}
	if g.Amount == nil || g.Amount.Sign() < 0 || CheckNetwork(g.Network) != nil || g.Asset == "" {
		return Summary{}, refuse(DetailRequestUnreadable + ": the summary of " + p.Pairing + " is incomplete")
	}
	g.Amount = new(big.Int).Set(g.Amount)
	if g.Payer == "" {
		g.Payer = chosenFrom(p)
	}
	s = Summary{Pairing: p.Pairing, H: p.H, Grant: g, Unbound: p.Unbound, ConfirmOnly: p.ConfirmOnly}
	if p.Hold != nil {
		signed, ok := new(big.Int).SetString(p.Hold.SignedMax, 10)
		if !ok || signed.Sign() < 0 {
			return Summary{}, refuse(DetailRequestUnreadable + ": the hold's signedMax is no decimal")
		}
		s.ChannelSigned = signed
	}
	return s, nil
}

// chosenFrom is the payer's address the pairing chose for, when the request
// names none (a Tempo transaction: the signing key is the sender): the
// account's, written into the choice as "from" by MPP pairings; "" when the
// choice does not have it.
func chosenFrom(p gate.PaymentSummary) string {
	c, _ := jsonv.AsObject(p.Chosen.Choice)
	from, _ := c.GetString("from")
	if !evm.IsAddress(from) {
		return ""
	}
	return from
}

// JSON is the summary for an agent: {network, asset, assetName?, amount
// (atomic units, decimal), decimals?, units?, payer?, payee, payableUntil?
// (RFC 3339), periodSeconds?, atrHash, pairing}. units is amount in whole
// units where the decimals are known. An unbound payment has unbound: true
// in place of atrHash.
func (s Summary) JSON() *jsonv.Object {
	o := jsonv.Obj("pairing", s.Pairing, "network", s.Network, "asset", s.Asset)
	if s.AssetName != "" {
		o.Set("assetName", s.AssetName)
	}
	amount := "0"
	if s.Amount != nil {
		amount = s.Amount.String()
	}
	o.Set("amount", amount)
	if u := s.Units(); u != "" {
		o.Set("decimals", jsonv.Number(s.Decimals))
		o.Set("units", u)
	}
	if s.Payer != "" {
		o.Set("payer", s.Payer)
	}
	o.Set("payee", s.Payee)
	if !s.PayableUntil.IsZero() {
		o.Set("payableUntil", s.PayableUntil.UTC().Format(time.RFC3339))
	}
	if s.Period > 0 {
		o.Set("periodSeconds", jsonv.Number(s.Period/time.Second))
	}
	if s.ChannelSigned != nil {
		o.Set("channelSigned", s.ChannelSigned.String())
	}
	if s.Unbound {
		o.Set("unbound", true)
		return o
	}
	o.Set("atrHash", s.H.String())
	return o
}
