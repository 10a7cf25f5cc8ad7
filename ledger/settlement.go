package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
)

// Settlement is what the buyer's own read of the chain showed of a
// journaled payment (pay.Verification), kept with it: a payment whose
// settlement did not hold stays on record with why, beside the seller's
// answer.
type Settlement struct {
	Checked     time.Time // when the chain was read
	Network     string
	Transaction string   // the transaction read ("" when none could be)
	Settled     bool     // landed and every check held
	Status      []byte   // the rail's status, as JSON ({state, …}); nil when none
	Problems    []string // what did not hold; empty when Settled
	Moved       *big.Int // the amount the chain shows moved, where the reader reads it
}

// SettlementStore is a Store that keeps settlement reads; both of this
// package's stores are one.
type SettlementStore interface {
	// RecordSettlement keeps s with payment id, replacing an earlier read;
	// ErrNotFound when no payment has that id. Durable when it returns nil.
	RecordSettlement(ctx context.Context, id string, s *Settlement) error
}

var (
	_ SettlementStore       = (*File)(nil)
	_ SettlementStore       = (*Postgres)(nil)
	_ pay.SettlementJournal = journal{}
)

// Verified implements pay.SettlementJournal: the Transport's read of the
// chain, kept with the payment it journaled.
func (j journal) Verified(ctx context.Context, id string, v *pay.Verification) error {
	ss, ok := j.s.(SettlementStore)
	if !ok {
		return errors.New("ledger: " + j.s.Where() + " keeps no settlements")
	}
	return ss.RecordSettlement(ctx, id, SettlementOf(v, time.Now()))
}

// SettlementOf is v as kept, read at checked.
func SettlementOf(v *pay.Verification, checked time.Time) *Settlement {
	s := &Settlement{Checked: checked, Network: v.Network, Transaction: v.Transaction, Settled: v.OK(),
		Problems: append([]string(nil), v.Problems...)}
	if v.Status != nil {
		s.Status = jsonv.Marshal(v.Status)
	}
	if v.Moved != nil {
		s.Moved = new(big.Int).Set(v.Moved)
	}
	return s
}

// settlementRecord is a Settlement as both stores write it: one JSON
// document.
type settlementRecord struct {
	Checked     int64           `json:"checked"`
	Network     string          `json:"network,omitempty"`
	Transaction string          `json:"transaction,omitempty"`
	Settled     bool            `json:"settled"`
	Status      json.RawMessage `json:"status,omitempty"`
	Problems    []string        `json:"problems,omitempty"`
	Moved       string          `json:"moved,omitempty"`
}

// maxSettlementRecord bounds a kept read: a status is a few members.
const maxSettlementRecord = 16 << 10

func (s *Settlement) record() ([]byte, error) {
	r := settlementRecord{Checked: s.Checked.UnixNano(), Network: s.Network, Transaction: s.Transaction, Settled: s.Settled,
		Problems: s.Problems}
	if len(s.Status) > 0 {
		if !json.Valid(s.Status) {
			return nil, errors.New("ledger: the settlement's status is not JSON")
		}
		r.Status = s.Status
	}
	if s.Moved != nil {
		r.Moved = s.Moved.String()
	}
	b, err := json.Marshal(r)
	if err == nil && len(b) > maxSettlementRecord {
		err = fmt.Errorf("ledger: a settlement record of %d bytes is over %d", len(b), maxSettlementRecord)
	}
	return b, err
}

func settlementFromRecord(b []byte) (*Settlement, error) {
	var r settlementRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("ledger: a settlement record is unreadable: %w", err)
	}
	s := &Settlement{Checked: time.Unix(0, r.Checked), Network: r.Network, Transaction: r.Transaction, Settled: r.Settled,
		Problems: r.Problems}
	if len(r.Status) > 0 {
		s.Status = []byte(r.Status)
	}
	if r.Moved != "" {
		m, ok := new(big.Int).SetString(r.Moved, 10)
		if !ok {
			return nil, errors.New("ledger: a settlement record's moved amount is unreadable")
		}
		s.Moved = m
	}
	return s, nil
}
