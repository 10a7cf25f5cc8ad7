package cardano

import (
	"context"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/rails"
)

// A seller's view of a claimed payment, read by its transaction id
// (docs/cardano.md, "Settlement"): settled once included as valid, failed
// when the ledger marked it invalid (phase 2) or the tip passed its TTL
// without it, pending otherwise.

// OnChain is an included transaction as an indexer gives it.
type OnChain struct {
	BlockHeight, Slot uint64
	Valid             bool   // db-sync's valid_contract, Blockfrost's valid_contract
	CBOR              []byte // the transaction as included, when asked for
}

// Reader reads one network's indexer; every failure is an error.
type Reader interface {
	Network() string
	Tip(ctx context.Context) (Tip, error)
	// Transaction is the included transaction, nil when the indexer does not
	// hold it; withCBOR asks for its bytes too.
	Transaction(ctx context.Context, txID string, withCBOR bool) (*OnChain, error)
}

// Status is a payment's state: settled (with Confirmations and
// BlockHeight), pending (Why not-found or unreadable) or failed (Why
// phase-2-invalid or expired).
type Status struct {
	State, Why    string
	Confirmations uint64
	BlockHeight   uint64
}

// PaymentStatus reads the tip, then ref's transaction: two reads. A failed
// read, or a reader of another network, is pending unreadable; an absent
// transaction is expired once the tip's slot is past the TTL; an included
// one fails only when the ledger marked it invalid. An inclusion above the
// tip read before it has 0 confirmations.
func PaymentStatus(ctx context.Context, ref Reference, r Reader) Status {
	unreadable := Status{State: "pending", Why: "unreadable"}
	if r == nil || r.Network() != ref.Network {
		return unreadable
	}
	tip, err := r.Tip(ctx)
	if err != nil {
		return unreadable
	}
	tx, err := r.Transaction(ctx, ref.TxID, false)
	if err != nil {
		return unreadable
	}
	if tx == nil {
		if tip.Slot > ref.TTLSlot {
			return Status{State: "failed", Why: "expired"}
		}
		return Status{State: "pending", Why: "not-found"}
	}
	if !tx.Valid {
		return Status{State: "failed", Why: "phase-2-invalid"}
	}
	st := Status{State: "settled", BlockHeight: tx.BlockHeight}
	if tip.BlockHeight > tx.BlockHeight {
		st.Confirmations = tip.BlockHeight - tx.BlockHeight
	}
	return st
}

// Recover reads H back from the included transaction alone, by its id: one
// read. The bytes must decode and their body hash to the id.
func Recover(ctx context.Context, network, txID string, r Reader) (atr.Hash, error) {
	if r == nil || r.Network() != network {
		return atr.Hash{}, rails.Refuse("cardano/wrong-reader")
	}
	tx, err := r.Transaction(ctx, txID, true)
	if err != nil {
		return atr.Hash{}, rails.Refuse("cardano/unreadable")
	}
	if tx == nil {
		return atr.Hash{}, rails.Refuse("cardano/not-found")
	}
	if !tx.Valid {
		return atr.Hash{}, rails.Refuse("cardano/not-valid")
	}
	if len(tx.CBOR) == 0 || len(tx.CBOR) > MaxTxBytes {
		return atr.Hash{}, rails.Refuse("cardano/unreadable")
	}
	t, err := DecodeTx(tx.CBOR)
	if err != nil {
		return atr.Hash{}, err
	}
	if t.IDString() != strings.ToLower(txID) {
		return atr.Hash{}, rails.Refuse("cardano/unreadable")
	}
	return t.CarriedH()
}
