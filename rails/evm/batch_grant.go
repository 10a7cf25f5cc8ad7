package evm

import (
	"errors"
	"math/big"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// What a batch-settlement signature grants (rails.Summarizer) and what a
// batch-settlement payment shows (rails.Inspector).

var errUnreadable = errors.New("evm: the batch request is not one this pairing builds")

// Summarize reads a batch request this pairing builds. The opening (a token
// authorization, then a voucher) grants the whole deposit: the token
// authorization moves it into the channel whatever the vouchers say. A
// voucher alone grants its cumulative maxClaimableAmount in the channel it
// names, to the channel contract; it names neither the token nor the
// receiver, which SummarizeWithin reads from the opening.
func (Batch) Summarize(req rails.Request) (rails.Grant, error) {
	if k, _ := req.GetString("kind"); k != rails.KindBatch {
		return rails.Grant{}, errUnreadable
	}
	rv, _ := req.Get("requests")
	list, _ := jsonv.AsArray(rv)
	var tds []*jsonv.Object
	for _, r := range list {
		o, _ := jsonv.AsObject(r)
		if k, _ := o.GetString("kind"); k != "eip712" {
			return rails.Grant{}, errUnreadable
		}
		td, ok := o.GetObject("typedData")
		if !ok {
			return rails.Grant{}, errUnreadable
		}
		if _, err := TypedDataDigest(td); err != nil {
			return rails.Grant{}, errUnreadable
		}
		tds = append(tds, td)
	}
	switch len(tds) {
	case 1:
		return voucherGrant(tds[0])
	case 2:
		g, err := depositGrant(tds[0])
		if err != nil {
			return rails.Grant{}, err
		}
		v, err := voucherGrant(tds[1])
		if err != nil || v.Network != g.Network {
			return rails.Grant{}, errUnreadable
		}
		return g, nil
	}
	return rails.Grant{}, errUnreadable
}

// domainChain is the typed data's chainId and verifyingContract.
func domainChain(td *jsonv.Object) (int64, string, bool) {
	d, _ := td.GetObject("domain")
	cv, _ := d.Get("chainId")
	chain, ok := jsonv.AsSafeInt(cv)
	vc, _ := d.GetString("verifyingContract")
	return chain, vc, ok && chain > 0 && IsAddress(vc)
}

func decimalOf(o *jsonv.Object, key string) (*big.Int, bool) {
	s, _ := o.GetString(key)
	if !IsUint256Decimal(s) {
		return nil, false
	}
	return new(big.Int).SetString(s, 10)
}

func unixTime(n *big.Int) time.Time {
	if n == nil || n.Sign() == 0 || !n.IsInt64() {
		return time.Time{}
	}
	return time.Unix(n.Int64(), 0).UTC()
}

func depositGrant(td *jsonv.Object) (rails.Grant, error) {
	chain, contract, ok := domainChain(td)
	msg, _ := td.GetObject("message")
	if !ok || msg == nil {
		return rails.Grant{}, errUnreadable
	}
	g := rails.Grant{Network: "eip155:" + strconv.FormatInt(chain, 10), Decimals: -1}
	switch pt, _ := td.GetString("primaryType"); pt {
	case "ReceiveWithAuthorization":
		value, ok1 := decimalOf(msg, "value")
		after, ok2 := decimalOf(msg, "validAfter")
		before, ok3 := decimalOf(msg, "validBefore")
		from, _ := msg.GetString("from")
		to, _ := msg.GetString("to")
		if !ok1 || !ok2 || !ok3 || !IsAddress(from) || !IsAddress(to) {
			return rails.Grant{}, errUnreadable
		}
		d, _ := td.GetObject("domain")
		g.AssetName, _ = d.GetString("name")
		g.Asset, g.Amount, g.Payer, g.Payee = contract, value, from, to
		g.PayableFrom, g.PayableUntil = unixTime(after), unixTime(before)
	case "PermitWitnessTransferFrom":
		permitted, _ := msg.GetObject("permitted")
		token, _ := permitted.GetString("token")
		amount, ok1 := decimalOf(permitted, "amount")
		deadline, ok2 := decimalOf(msg, "deadline")
		spender, _ := msg.GetString("spender")
		if !ok1 || !ok2 || !IsAddress(token) || !IsAddress(spender) || !SameAddress(contract, Permit2) {
			return rails.Grant{}, errUnreadable
		}
		// Permit2 names no owner: the signer's own account is the payer.
		g.Asset, g.Amount, g.Payee, g.PayableUntil = token, amount, spender, unixTime(deadline)
	default:
		return rails.Grant{}, errUnreadable
	}
	return g, nil
}

func voucherGrant(td *jsonv.Object) (rails.Grant, error) {
	chain, contract, ok := domainChain(td)
	msg, _ := td.GetObject("message")
	if pt, _ := td.GetString("primaryType"); !ok || pt != "Voucher" || !SameAddress(contract, BatchSettlement) {
		return rails.Grant{}, errUnreadable
	}
	amount, ok := decimalOf(msg, "maxClaimableAmount")
	channel, _ := msg.GetString("channelId")
	if !ok || !isWord32(channel) {
		return rails.Grant{}, errUnreadable
	}
	// The voucher names the channel, not the token or the receiver: both
	// are fixed by the channel's configuration at its opening.
	return rails.Grant{Network: "eip155:" + strconv.FormatInt(chain, 10), Decimals: -1, Amount: amount, Payee: contract}, nil
}

// Inspect reads a batch-settlement payment (an opening, a voucher or a
// refund) without any signature check: the channel's payer, receiver and
// token (its configuration, whose salt is H), and what the payment moves:
// an opening its deposit, until the deposit authorization's validBefore; a
// voucher its cumulative maxClaimableAmount; a refund its amount.
func (p Batch) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	kind, err := p.ChannelKind(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	accepted, payload, c, channel, err := p.channelOf(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	network, _ := accepted.GetString("network")
	g := rails.Grant{Network: network, Asset: c.Token, Decimals: rails.KnownDecimals(network, c.Token),
		Payer: c.Payer, Payee: c.Receiver}
	details := jsonv.Obj("channel", hex0x(channel[:]), "payerAuthorizer", c.PayerAuthorizer)
	voucher, _ := payload.GetObject("voucher")
	if s, ok := voucher.GetString("maxClaimableAmount"); ok && rails.IsDecimal(s) {
		details.Set("maxClaimableAmount", s)
		g.Amount, _ = new(big.Int).SetString(s, 10)
	}
	if kind == rails.ChannelOpen {
		d, err := depositOf(payload)
		if err != nil {
			return rails.Inspection{}, err
		}
		method := "eip3009"
		if d.permit2 {
			method = "permit2"
		}
		g.Amount = d.amount
		g.PayableUntil = UnixTime(d.settleBy)
		details.Set("depositMethod", method)
	}
	if s, ok := payload.GetString("amount"); ok && rails.IsDecimal(s) {
		g.Amount, _ = new(big.Int).SetString(s, 10)
		details.Set("refund", s)
	}
	return rails.Inspection{Pairing: BatchID, Kind: "channel-" + string(kind), Grant: g, H: hex0x(c.Salt[:]),
		WhereH: "payload.channelConfig.salt: the channel's configuration, whose salt is H, names the channel", Details: details}, nil
}

var _ rails.WithinSummarizer = Batch{}

// SummarizeWithin states what a voucher signed in the channel opening
// opened grants: the channel's token, to its receiver, from its payer, up
// to the voucher's cumulative maxClaimableAmount. The voucher must name the
// channel the opening's configuration hashes to, on its chain.
func (p Batch) SummarizeWithin(req rails.Request, opening *jsonv.Object) (rails.Grant, error) {
	g, err := p.Summarize(req)
	if err != nil {
		return rails.Grant{}, err
	}
	rv, _ := req.Get("requests")
	list, _ := jsonv.AsArray(rv)
	if len(list) != 1 {
		return rails.Grant{}, errUnreadable
	}
	accepted, _, c, channel, err := p.channelOf(opening)
	if err != nil {
		return rails.Grant{}, errUnreadable
	}
	named, _ := jsonv.AsString(mustGet(list[0], "typedData", "message", "channelId"))
	network, _ := accepted.GetString("network")
	if !SameBytes(named, hex0x(channel[:])) || g.Network != network {
		return rails.Grant{}, errUnreadable
	}
	g.Asset, g.Payer, g.Payee = c.Token, c.Payer, c.Receiver
	return g, nil
}

func mustGet(v jsonv.Value, path ...string) jsonv.Value {
	for _, k := range path {
		o, _ := jsonv.AsObject(v)
		v, _ = o.Get(k)
	}
	return v
}
