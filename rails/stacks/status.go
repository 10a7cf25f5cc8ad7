package stacks

import (
	"context"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/rails"
)

// A seller's view of a claimed payment, read by its txid (docs/stacks.md,
// "Settlement"): settled once mined with status success as this
// instrument (the origin, its nonce, the contract's transfer with memo H);
// failed when it aborted, was skipped, or its nonce was used by another
// transaction; pending while in the mempool, dropped or not found.

// Mined is a transaction as an indexer gives it by txid.
type Mined struct {
	Mined       bool   // in a block
	Status      string // success, abort_by_response, abort_by_post_condition, pending, dropped_…
	Sender      string // the origin's address
	Nonce       uint64
	BlockHeight uint64
	Tenure      uint64 // the block's tenure height
	Contract    string // the call's contract id
	Function    string
	Args        [][]byte // the call's arguments, as serialized
}

// Reader reads one network; every failure is an error.
type Reader interface {
	Network() string
	// Tx is the transaction by txid, nil when the node holds none.
	Tx(ctx context.Context, txid [32]byte) (*Mined, error)
	// ConfirmedNonce is the address's last executed nonce, nil when it
	// has executed none.
	ConfirmedNonce(ctx context.Context, address string) (*uint64, error)
	// TipTenure is the chain tip's tenure height.
	TipTenure(ctx context.Context) (uint64, error)
}

// Status is a payment's state: settled, pending (Why mempool, dropped,
// not-found, unreadable) or failed (Why abort-by-response,
// abort-by-post-condition, skipped, not-this-instrument, nonce-used).
// Finality is "bitcoin" once the block's tenure is two tenures below the
// tip's, else "block"; BlockHeight is the block's when mined.
type Status struct {
	State, Why, Finality string
	BlockHeight          *uint64
}

// MinFinalTenures is how many tenures past its block's a transaction is
// called final by Bitcoin.
const MinFinalTenures = 2

var failedStatus = map[string]string{
	"abort_by_response":       "abort-by-response",
	"abort_by_post_condition": "abort-by-post-condition",
	"problematic_skipped":     "skipped",
}

// PaymentStatus reads ref's transaction and decides.
func PaymentStatus(ctx context.Context, ref Reference, h atr.Hash, r Reader) Status {
	unreadable := Status{State: "pending", Why: "unreadable"}
	if r == nil || r.Network() != ref.Network {
		return unreadable
	}
	m, err := r.Tx(ctx, ref.TxID)
	if err != nil {
		return unreadable
	}
	if m == nil || !m.Mined {
		why := "not-found"
		if m != nil {
			switch {
			case m.Status == "pending":
				return Status{State: "pending", Why: "mempool"}
			case len(m.Status) > 8 && m.Status[:8] == "dropped_":
				why = "dropped"
			default:
				return unreadable
			}
		}
		n, err := r.ConfirmedNonce(ctx, ref.Origin)
		switch {
		case err != nil:
			return unreadable
		case n != nil && *n >= ref.Nonce:
			return Status{State: "failed", Why: "nonce-used", Finality: "block"}
		}
		return Status{State: "pending", Why: why}
	}
	height := m.BlockHeight
	st := Status{Finality: "block", BlockHeight: &height}
	if tip, err := r.TipTenure(ctx); err == nil && tip >= m.Tenure+MinFinalTenures {
		st.Finality = "bitcoin"
	}
	memo, okM := [32]byte{}, false
	if len(m.Args) == 4 {
		memo, okM = MemoH(m.Args[3])
	}
	if m.Sender != ref.Origin || m.Nonce != ref.Nonce || m.Contract != ref.Contract || m.Function != "transfer" ||
		!okM || memo != h {
		st.State, st.Why = "failed", "not-this-instrument"
		return st
	}
	if m.Status == "success" {
		st.State = "settled"
		return st
	}
	why, ok := failedStatus[m.Status]
	if !ok {
		return unreadable
	}
	st.State, st.Why = "failed", why
	return st
}

// Recover reads H from the mined transaction alone, for anyone holding its
// txid: one read. It must be mined with status success (stacks/not-success)
// and carry (some (buff 32)) as its fourth argument (stacks/no-memo).
func Recover(ctx context.Context, network string, txid [32]byte, r Reader) (atr.Hash, error) {
	if r == nil || r.Network() != network {
		return atr.Hash{}, rails.Refuse("stacks/wrong-reader")
	}
	m, err := r.Tx(ctx, txid)
	switch {
	case err != nil:
		return atr.Hash{}, rails.Refuse("stacks/unreadable")
	case m == nil:
		return atr.Hash{}, rails.Refuse("stacks/not-found")
	case !m.Mined || m.Status != "success":
		return atr.Hash{}, rails.Refuse("stacks/not-success")
	}
	if m.Function != "transfer" || len(m.Args) != 4 {
		return atr.Hash{}, rails.Refuse("stacks/no-memo")
	}
	h, ok := MemoH(m.Args[3])
	if !ok {
		return atr.Hash{}, rails.Refuse("stacks/no-memo")
	}
	return atr.Hash(h), nil
}
