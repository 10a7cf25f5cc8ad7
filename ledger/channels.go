package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/jackc/pgx/v5"
	bolt "go.etcd.io/bbolt"
)

// A held channel (an MPP session, an x402 batch-settlement channel) can be
// kept in the store, so that the processes of a fleet spend one channel:
// the store keeps the hold as it was opened and the channel's cumulative
// amount, the largest a voucher was built for, and a process moves the
// cumulative from the value it read to its voucher's with a compare and
// swap before the voucher is signed (SharedChannel). Two processes that
// read the same cumulative cannot both move it, so no two vouchers are
// signed over the same cumulative amount.

// ErrChannelMoved: the channel's cumulative is no longer the one the
// caller read (another process moved it first). Nothing was changed.
var ErrChannelMoved = errors.New("ledger: the channel's cumulative amount moved")

// ChannelKey names a kept channel: its pairing and the channel as the
// pairing spells it (gate.Hold's Pairing, Network and Channel).
type ChannelKey struct {
	Pairing, Network, Channel string
}

// ChannelStore keeps shared channels. Both shipped stores implement it; each
// method is atomic and durable when it returns nil.
type ChannelStore interface {
	// PutChannel keeps hold (a gate.Hold's JSON) under k with cumulative,
	// unless k is kept already; either way it returns what is kept.
	PutChannel(ctx context.Context, k ChannelKey, hold []byte, cumulative *big.Int) ([]byte, *big.Int, error)
	// Channel returns the hold kept under k and its cumulative amount;
	// ErrNotFound when none is.
	Channel(ctx context.Context, k ChannelKey) ([]byte, *big.Int, error)
	// MoveChannel sets k's cumulative to to if it is from: ErrChannelMoved
	// when it is not, ErrNotFound when k is not kept.
	MoveChannel(ctx context.Context, k ChannelKey, from, to *big.Int) error
}

var (
	_ ChannelStore = (*File)(nil)
	_ ChannelStore = (*Postgres)(nil)
)

func checkCumulative(ns ...*big.Int) error {
	for _, n := range ns {
		if n == nil || n.Sign() < 0 {
			return errors.New("ledger: a channel's cumulative amount must be a number ≥ 0")
		}
	}
	return nil
}

// The file store keeps each channel in bucketChannels under pairing NUL
// network NUL channel, as JSON.
var bucketChannels = []byte("channels")

type fileChannel struct {
	Hold       json.RawMessage `json:"hold"`
	Cumulative string          `json:"cumulative"`
}

func channelKey(k ChannelKey) []byte {
	return []byte(k.Pairing + "\x00" + k.Network + "\x00" + k.Channel)
}

func readChannel(b *bolt.Bucket, k ChannelKey) ([]byte, *big.Int, error) {
	v := b.Get(channelKey(k))
	if v == nil {
		return nil, nil, fmt.Errorf("%w: channel %s on %s", ErrNotFound, k.Channel, k.Network)
	}
	var c fileChannel
	if err := json.Unmarshal(v, &c); err != nil {
		return nil, nil, fmt.Errorf("ledger: unreadable channel record: %w", err)
	}
	n, ok := new(big.Int).SetString(c.Cumulative, 10)
	if !ok {
		return nil, nil, fmt.Errorf("ledger: unreadable channel cumulative %q", c.Cumulative)
	}
	return append([]byte(nil), c.Hold...), n, nil
}

// PutChannel implements ChannelStore.
func (f *File) PutChannel(_ context.Context, k ChannelKey, hold []byte, cumulative *big.Int) ([]byte, *big.Int, error) {
	if err := checkCumulative(cumulative); err != nil {
		return nil, nil, err
	}
	if !json.Valid(hold) {
		return nil, nil, errors.New("ledger: the hold is not JSON")
	}
	rec, _ := json.Marshal(fileChannel{Hold: hold, Cumulative: cumulative.String()})
	var kept []byte
	var n *big.Int
	err := f.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketChannels)
		if b.Get(channelKey(k)) == nil {
			if err := b.Put(channelKey(k), rec); err != nil {
				return err
			}
		}
		var err error
		kept, n, err = readChannel(b, k)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return kept, n, nil
}

// Channel implements ChannelStore.
func (f *File) Channel(_ context.Context, k ChannelKey) ([]byte, *big.Int, error) {
	var hold []byte
	var n *big.Int
	err := f.view(func(tx *bolt.Tx) error {
		var err error
		hold, n, err = readChannel(tx.Bucket(bucketChannels), k)
		return err
	})
	if errors.Is(err, ErrNotFound) {
		var u *Unavailable
		if errors.As(err, &u) {
			err = u.Err
		}
	}
	return hold, n, err
}

// MoveChannel implements ChannelStore. It runs in the group commit of the
// file's other changes, and returns once the move is on disk.
func (f *File) MoveChannel(_ context.Context, k ChannelKey, from, to *big.Int) error {
	if err := checkCumulative(from, to); err != nil {
		return err
	}
	return f.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketChannels)
		hold, n, err := readChannel(b, k)
		if err != nil {
			return err
		}
		if n.Cmp(from) != 0 {
			return fmt.Errorf("%w: it is %s, not %s", ErrChannelMoved, n, from)
		}
		rec, _ := json.Marshal(fileChannel{Hold: hold, Cumulative: to.String()})
		return b.Put(channelKey(k), rec)
	})
}

// PutChannel implements ChannelStore.
func (p *Postgres) PutChannel(ctx context.Context, k ChannelKey, hold []byte, cumulative *big.Int) ([]byte, *big.Int, error) {
	if err := checkCumulative(cumulative); err != nil {
		return nil, nil, err
	}
	if !json.Valid(hold) {
		return nil, nil, errors.New("ledger: the hold is not JSON")
	}
	if _, err := p.pool.Exec(ctx, `INSERT INTO termsgate_channels (pairing, network, channel, hold, cumulative)
		VALUES ($1, $2, $3, $4, $5::text::numeric) ON CONFLICT DO NOTHING`,
		k.Pairing, k.Network, k.Channel, hold, cumulative.String()); err != nil {
		return nil, nil, p.unavailable(err)
	}
	return p.Channel(ctx, k)
}

// Channel implements ChannelStore.
func (p *Postgres) Channel(ctx context.Context, k ChannelKey) ([]byte, *big.Int, error) {
	var hold []byte
	var cum string
	err := p.pool.QueryRow(ctx, `SELECT hold, cumulative::text FROM termsgate_channels
		WHERE pairing = $1 AND network = $2 AND channel = $3`, k.Pairing, k.Network, k.Channel).Scan(&hold, &cum)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, fmt.Errorf("%w: channel %s on %s", ErrNotFound, k.Channel, k.Network)
	}
	if err != nil {
		return nil, nil, p.unavailable(err)
	}
	n, ok := new(big.Int).SetString(cum, 10)
	if !ok {
		return nil, nil, fmt.Errorf("ledger: unreadable channel cumulative %q", cum)
	}
	return hold, n, nil
}

// MoveChannel implements ChannelStore: one conditional UPDATE, so that of
// the processes that read one cumulative exactly one moves it.
func (p *Postgres) MoveChannel(ctx context.Context, k ChannelKey, from, to *big.Int) error {
	if err := checkCumulative(from, to); err != nil {
		return err
	}
	tag, err := p.pool.Exec(ctx, `UPDATE termsgate_channels SET cumulative = $5::text::numeric
		WHERE pairing = $1 AND network = $2 AND channel = $3 AND cumulative = $4::text::numeric`,
		k.Pairing, k.Network, k.Channel, from.String(), to.String())
	if err != nil {
		return p.unavailable(err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	if _, n, err := p.Channel(ctx, k); err != nil {
		return err
	} else {
		return fmt.Errorf("%w: it is %s, not %s", ErrChannelMoved, n, from)
	}
}
