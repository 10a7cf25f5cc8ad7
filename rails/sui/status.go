package sui

import (
	"context"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/rails"
)

// A seller's view of a claimed payment, read by its digest (docs/sui.md,
// "Settlement"): settled once executed successfully with these bytes and
// this H, failed when it aborted or its epoch bound passed without it.

// Executed is an executed transaction as a node gives it.
type Executed struct {
	TransactionBCS []byte // the TransactionData, as signed
	Success        bool   // the effects' status
	Checkpoint     *uint64
}

// Answer is one read by digest: the transaction, nil when the node does
// not hold it, and the epoch of the node's latest checkpoint.
type Answer struct {
	Tx    *Executed
	Epoch uint64
}

// Reader reads one network's node; every failure is an error.
type Reader interface {
	Network() string
	Read(ctx context.Context, digest string) (Answer, error)
}

// Status is a payment's state: settled (at Checkpoint), pending (Why
// not-found or unreadable) or failed (Why aborted, expired or
// not-this-instrument).
type Status struct {
	State, Why string
	Checkpoint *uint64
}

// PaymentStatus reads ref's digest once. The bytes the node gives must
// hash to the digest (else unreadable) and carry h (else
// not-this-instrument); then the effects decide.
func PaymentStatus(ctx context.Context, ref Reference, h atr.Hash, r Reader) Status {
	if r == nil || r.Network() != ref.Network {
		return Status{State: "pending", Why: "unreadable"}
	}
	a, err := r.Read(ctx, ref.Digest)
	if err != nil {
		return Status{State: "pending", Why: "unreadable"}
	}
	if a.Tx == nil {
		if a.Epoch > ref.UntilEpoch {
			return Status{State: "failed", Why: "expired"}
		}
		return Status{State: "pending", Why: "not-found"}
	}
	if len(a.Tx.TransactionBCS) > MaxTxBytes || DigestString(a.Tx.TransactionBCS) != ref.Digest {
		return Status{State: "pending", Why: "unreadable"}
	}
	t, err := DecodeTx(a.Tx.TransactionBCS)
	if err != nil {
		return Status{State: "failed", Why: "not-this-instrument"}
	}
	if got, err := CarriedH(t); err != nil || got != h {
		return Status{State: "failed", Why: "not-this-instrument"}
	}
	if !a.Tx.Success {
		return Status{State: "failed", Why: "aborted"}
	}
	return Status{State: "settled", Checkpoint: a.Tx.Checkpoint}
}

// Recover reads H from the executed transaction alone, for anyone holding
// its digest: one read.
func Recover(ctx context.Context, network, digest string, r Reader) (atr.Hash, error) {
	if r == nil || r.Network() != network {
		return atr.Hash{}, rails.Refuse("sui/wrong-reader")
	}
	a, err := r.Read(ctx, digest)
	if err != nil {
		return atr.Hash{}, rails.Refuse("sui/unreadable")
	}
	if a.Tx == nil {
		return atr.Hash{}, rails.Refuse("sui/not-found")
	}
	if len(a.Tx.TransactionBCS) > MaxTxBytes || DigestString(a.Tx.TransactionBCS) != digest {
		return atr.Hash{}, rails.Refuse("sui/unreadable")
	}
	if !a.Tx.Success {
		return atr.Hash{}, rails.Refuse("sui/aborted")
	}
	t, err := DecodeTx(a.Tx.TransactionBCS)
	if err != nil {
		return atr.Hash{}, rails.Refuse("sui/unreadable")
	}
	return CarriedH(t)
}
