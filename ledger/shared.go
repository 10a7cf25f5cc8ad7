package ledger

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
)

// Detail codes of the declines a SharedChannel adds to the gate's; code
// no-payable-option, nothing signed.
const (
	// DetailChannelMoved: another process moved the channel's cumulative
	// between this one's read and its move (SharedChannel.Within reads
	// again and retries; this is its last attempt's decline).
	DetailChannelMoved = "ledger/channel-moved"
	// DetailChannelUnavailable: the store could not read or move the
	// channel; whether the move took effect may be unknown, so nothing
	// is signed.
	DetailChannelUnavailable = "ledger/channel-unavailable"
	// DetailChannelNotForward: the voucher's cumulative is not above the
	// channel's, so it would repeat one already built.
	DetailChannelNotForward = "ledger/channel-not-forward"
)

// DefaultChannelAttempts is how many times SharedChannel.Within reads the
// channel again after another process moved it first.
const DefaultChannelAttempts = 64

// SharedChannel is a held channel kept in a ChannelStore, spent by every
// process that opens the store. Each voucher is built on the cumulative
// the store holds (the hold's Charged and SignedMax are that amount), and
// the store's cumulative is moved to the voucher's, compare and swap,
// after the gate's policy allowed the voucher and before the signer is
// called: a process that lost the race signs nothing, reads the channel
// again and builds its voucher on the new cumulative. So the vouchers of a
// fleet have distinct, increasing cumulative amounts, and the last one is
// the sum of what was charged.
//
// Every voucher is taken to be charged in full: the next is built on it.
// A voucher that was allowed but not signed gives its move back when no
// other process moved the channel since; otherwise its amount stays in the
// cumulative, unsigned (the next voucher then grants it too: a gap, never a
// repeat).
type SharedChannel struct {
	Store ChannelStore
	Key   ChannelKey
	// Attempts bounds the reads of the channel per voucher; 0 means
	// DefaultChannelAttempts.
	Attempts int
}

// ShareChannel keeps hold in s (its cumulative: the largest amount signed
// in it) unless the channel is kept already, and returns the shared
// channel. A kept channel stays as it was: the processes sharing it agree
// on the first hold kept.
func ShareChannel(ctx context.Context, s ChannelStore, hold *gate.Hold) (*SharedChannel, error) {
	if hold == nil {
		return nil, errors.New("ledger: no hold to share")
	}
	cum, ok := new(big.Int).SetString(hold.SignedMax, 10)
	if !ok || cum.Sign() < 0 {
		return nil, fmt.Errorf("ledger: the hold's signedMax %q is no decimal", hold.SignedMax)
	}
	k := ChannelKey{Pairing: hold.Pairing, Network: hold.Network, Channel: hold.Channel}
	if _, _, err := s.PutChannel(ctx, k, jsonv.Marshal(hold.JSON()), cum); err != nil {
		return nil, err
	}
	return &SharedChannel{Store: s, Key: k}, nil
}

// Hold is the channel's hold as kept, with Charged and SignedMax set to its
// cumulative amount.
func (c *SharedChannel) Hold(ctx context.Context) (*gate.Hold, *big.Int, error) {
	raw, cum, err := c.Store.Channel(ctx, c.Key)
	if err != nil {
		return nil, nil, err
	}
	v, err := jsonv.Parse(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("ledger: the kept hold does not read: %w", err)
	}
	hold, err := gate.ParseHold(v)
	if err != nil {
		return nil, nil, fmt.Errorf("ledger: the kept hold does not read: %w", err)
	}
	if hold.Pairing != c.Key.Pairing || hold.Network != c.Key.Network || hold.Channel != c.Key.Channel {
		return nil, nil, errors.New("ledger: the kept hold names another channel")
	}
	hold.Charged, hold.SignedMax = cum.String(), cum.String()
	return hold, cum, nil
}

// Within signs the next voucher in the channel through g (gate.Within with
// no refund; doc is the seller's new document or challenge list, inputs
// the buyer's): g.Policy is asked first, then the channel moved. It returns
// the gate's result, whose Hold has the voucher's cumulative.
func (c *SharedChannel) Within(ctx context.Context, g *gate.Gate, doc jsonv.Value, signer gate.Signer, inputs jsonv.Value) (*gate.WithinResult, error) {
	attempts := c.Attempts
	if attempts <= 0 {
		attempts = DefaultChannelAttempts
	}
	var last error
	for range attempts {
		hold, cum, err := c.Hold(ctx)
		if err != nil {
			return nil, &gate.Decline{Code: gate.NoPayableOption, Detail: DetailChannelUnavailable, Err: err}
		}
		mv := &channelMove{c: c, from: cum, next: g.Policy}
		gc := *g
		gc.Policy = mv
		res, err := gc.Within(ctx, doc, hold, hold.Pairing, signer, nil, inputs)
		if err != nil && mv.lost {
			last = err
			continue // another process moved it first: nothing signed, read again
		}
		return res, err
	}
	return nil, last
}

// channelMove is the policy a SharedChannel's voucher is asked through: the
// caller's policy, then the move of the channel's cumulative from what
// was read to the voucher's.
type channelMove struct {
	c    *SharedChannel
	from *big.Int
	next gate.Policy

	to   *big.Int // set once moved
	lost bool     // another process moved the channel first
}

func (m *channelMove) Allow(ctx context.Context, ps gate.PaymentSummary) error {
	if ps.Hold == nil {
		return &gate.Decline{Code: gate.NoPayableOption, Detail: pay.DetailRequestUnreadable + ": not a payment in the channel"}
	}
	s, err := pay.Summarize(ps) // the cumulative the request signs
	if err != nil {
		return err
	}
	to := s.Amount
	if to.Cmp(m.from) <= 0 {
		return &gate.Decline{Code: gate.NoPayableOption, Detail: DetailChannelNotForward}
	}
	if m.next != nil {
		if err := m.next.Allow(ctx, ps); err != nil {
			return err
		}
	}
	if err := m.c.Store.MoveChannel(ctx, m.c.Key, m.from, to); err != nil {
		if r, ok := m.next.(gate.Reserver); ok {
			r.Release(ctx, ps)
		}
		if errors.Is(err, ErrChannelMoved) {
			m.lost = true
			return &gate.Decline{Code: gate.NoPayableOption, Detail: DetailChannelMoved, Err: err}
		}
		return &gate.Decline{Code: gate.NoPayableOption, Detail: DetailChannelUnavailable, Err: err}
	}
	m.to = new(big.Int).Set(to)
	return nil
}

// Commit implements gate.Reserver: the voucher was signed; the cumulative
// stays moved.
func (m *channelMove) Commit(ctx context.Context, ps gate.PaymentSummary) {
	if r, ok := m.next.(gate.Reserver); ok {
		r.Commit(ctx, ps)
	}
}

// Release implements gate.Reserver: nothing was signed, so the move is
// given back if the channel is still where this voucher put it.
func (m *channelMove) Release(ctx context.Context, ps gate.PaymentSummary) {
	if r, ok := m.next.(gate.Reserver); ok {
		r.Release(ctx, ps)
	}
	if m.to != nil {
		_ = m.c.Store.MoveChannel(ctx, m.c.Key, m.to, m.from) // moved on since: the gap stays
		m.to = nil
	}
}
