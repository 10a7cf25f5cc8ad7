package ledger

import (
	"context"
	"math/big"
	"sort"

	bolt "go.etcd.io/bbolt"
)

// Total is one budget's spent sum, and the ceiling its newest reservation
// was checked against (nil: none, or the store does not keep it).
type Total struct {
	Key
	Spent   *big.Int
	Ceiling *big.Int
}

// BudgetLister is implemented by both stores, for termsgate budget:
// Budgets lists every budget the store counts, sorted by network and
// asset; ResetBudgets sets every spent sum to zero. The journal and the
// reservations' records stay; a reservation still open when the sums are
// reset gives back nothing below zero when it is released.
type BudgetLister interface {
	Budgets(ctx context.Context) ([]Total, error)
	ResetBudgets(ctx context.Context) error
}

var (
	_ BudgetLister = (*File)(nil)
	_ BudgetLister = (*Postgres)(nil)
)

// bucketCeilings maps a budget's key to the ceiling its newest reservation
// was checked against, in decimal ("" for none). Older files lack it.
var bucketCeilings = []byte("ceilings")

// putCeiling records the ceiling a reservation of k was checked against,
// writing only when it changed.
func putCeiling(tx *bolt.Tx, k Key, ceiling *big.Int) error {
	b, err := tx.CreateBucketIfNotExists(bucketCeilings)
	if err != nil {
		return err
	}
	v := ""
	if ceiling != nil {
		v = ceiling.String()
	}
	if old := b.Get(budgetKey(k)); old != nil && string(old) == v {
		return nil
	}
	return b.Put(budgetKey(k), []byte(v))
}

// Budgets implements BudgetLister.
func (f *File) Budgets(_ context.Context) ([]Total, error) {
	var out []Total
	err := f.view(func(tx *bolt.Tx) error {
		ceilings := tx.Bucket(bucketCeilings)
		return tx.Bucket(bucketBudgets).ForEach(func(k, v []byte) error {
			network, asset, _ := cutNUL(string(k))
			spent, err := readInt(v)
			if err != nil {
				return err
			}
			t := Total{Key: Key{network, asset}, Spent: spent}
			if ceilings != nil {
				if c := ceilings.Get(k); len(c) > 0 {
					if t.Ceiling, err = readInt(c); err != nil {
						return err
					}
				}
			}
			out = append(out, t)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	sortTotals(out)
	return out, nil
}

// ResetBudgets implements BudgetLister.
func (f *File) ResetBudgets(_ context.Context) error {
	return f.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketBudgets)
		var keys [][]byte
		if err := b.ForEach(func(k, _ []byte) error {
			keys = append(keys, append([]byte(nil), k...))
			return nil
		}); err != nil {
			return err
		}
		for _, k := range keys {
			if err := b.Put(k, []byte("0")); err != nil {
				return err
			}
		}
		return nil
	})
}

// Budgets implements BudgetLister; PostgreSQL keeps no ceiling.
func (p *Postgres) Budgets(ctx context.Context) ([]Total, error) {
	rows, err := p.pool.Query(ctx, `SELECT network, asset, spent::text FROM termsgate_budgets ORDER BY network, asset`)
	if err != nil {
		return nil, p.unavailable(err)
	}
	defer rows.Close()
	var out []Total
	for rows.Next() {
		var t Total
		var spent string
		if err := rows.Scan(&t.Network, &t.Asset, &spent); err != nil {
			return nil, p.unavailable(err)
		}
		if t.Spent, err = readInt([]byte(spent)); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, p.unavailable(err)
	}
	sortTotals(out)
	return out, nil
}

// ResetBudgets implements BudgetLister.
func (p *Postgres) ResetBudgets(ctx context.Context) error {
	_, err := p.pool.Exec(ctx, `UPDATE termsgate_budgets SET spent = 0`)
	return p.unavailable(err)
}

func cutNUL(s string) (network, asset string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func sortTotals(t []Total) {
	sort.Slice(t, func(i, j int) bool {
		if t[i].Network != t[j].Network {
			return t[i].Network < t[j].Network
		}
		return t[i].Asset < t[j].Asset
	})
}
