package algorand

import (
	"context"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// A seller's view of a claimed payment: found by its transaction id through
// an Indexer (GET /v2/transactions?txid=…), settled once confirmed
// (Algorand's finality is immediate), expired once the current round is
// past the last valid one without it.

// Found is a confirmed transaction as an Indexer gives it.
type Found struct {
	ConfirmedRound uint64
	Note           []byte
}

// Answer is one Indexer search by id: the current round and the
// transaction, nil when the Indexer does not hold it.
type Answer struct {
	CurrentRound uint64
	Found        *Found
}

// Reader searches one network's Indexer by transaction id; every failure
// is an error.
type Reader interface {
	Network() string
	Search(ctx context.Context, txid string) (Answer, error)
}

// Status is a payment's state: settled (finality final, at Round), pending
// (Why not-found or unreadable) or failed (Why expired).
type Status struct {
	State, Finality, Why string
	Round                uint64
}

// PaymentStatus reads ref's transaction by its id only: another
// transaction that wrote the same note settles nothing. A reader for
// another network, or a failed read, is pending unreadable.
func PaymentStatus(ctx context.Context, ref Reference, r Reader) Status {
	if r == nil || r.Network() != ref.Network {
		return Status{State: "pending", Why: "unreadable"}
	}
	a, err := r.Search(ctx, ref.TxID)
	switch {
	case err != nil:
		return Status{State: "pending", Why: "unreadable"}
	case a.Found != nil:
		return Status{State: "settled", Finality: "final", Round: a.Found.ConfirmedRound}
	case a.CurrentRound > ref.LastValid:
		return Status{State: "failed", Why: "expired"}
	}
	return Status{State: "pending", Why: "not-found"}
}

// Recover reads H from a landed payment's note, for anyone holding its id:
// one search.
func Recover(ctx context.Context, network, txid string, r Reader) (atr.Hash, error) {
	if r == nil || r.Network() != network {
		return atr.Hash{}, rails.Refuse("avm/wrong-reader")
	}
	a, err := r.Search(ctx, txid)
	if err != nil {
		return atr.Hash{}, rails.Refuse("avm/unreadable")
	}
	if a.Found == nil {
		return atr.Hash{}, rails.Refuse("avm/not-found")
	}
	h, ok := mpp.ParseLegalContext(string(a.Found.Note))
	if !ok || string(a.Found.Note) != mpp.LegalContextValue(h) {
		return atr.Hash{}, rails.Refuse(CodeNoteNotLCP)
	}
	return h, nil
}
