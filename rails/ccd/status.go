package ccd

import (
	"context"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/cbor"
)

// A seller's view of a claimed payment, read from its block item: settled
// once finalized and successful with exactly one transfer whose memo
// carries H and whose sender, receiver and amount hash to the recorded
// digest.

// Transfer is one transfer event of a block item.
type Transfer struct {
	Kind     string // "ccd" or "plt"
	TokenID  string
	Receiver []byte
	Amount   uint64
	Memo     []byte // nil when the transfer has none
}

// Item is a block item's state as a node gives it (gRPC v2 GetBlockItemStatus).
type Item struct {
	State     string // received, committed or finalized
	Success   bool
	Sender    []byte // nil when the outcome names none
	Transfers []Transfer
}

// Reader reads one network's node; every failure is an error. Item is nil
// when the node does not know the block item.
type Reader interface {
	Network() string
	Item(ctx context.Context, hash string) (*Item, error)
}

// Status is a payment's state: settled (Finality finalized), pending (Why
// not-found, received, committed or unreadable) or failed (Why rejected or
// not-this-instrument).
type Status struct {
	State, Why, Finality string
}

// innerMemo is a transfer's memo with a PLT memo's tag 24 around a byte
// string taken off.
func innerMemo(t Transfer) []byte {
	if t.Kind != "plt" {
		return t.Memo
	}
	if v, err := cbor.Decode(t.Memo); err == nil && v.Major == cbor.Tag && v.N == tagEncodedCBOR && v.Items[0].Major == cbor.Bytes {
		return v.Items[0].B
	}
	return t.Memo
}

// PaymentStatus reads the block item named by hash once.
func PaymentStatus(ctx context.Context, ref Reference, hash string, h atr.Hash, r Reader) Status {
	if r == nil || r.Network() != ref.Network {
		return Status{State: "pending", Why: "unreadable"}
	}
	it, err := r.Item(ctx, hash)
	if err != nil {
		return Status{State: "pending", Why: "unreadable"}
	}
	if it == nil {
		return Status{State: "pending", Why: "not-found"}
	}
	switch it.State {
	case "received", "committed":
		return Status{State: "pending", Why: it.State}
	case "finalized":
	default:
		return Status{State: "pending", Why: "unreadable"}
	}
	if !it.Success {
		return Status{State: "failed", Why: "rejected"}
	}
	var carrying []Transfer
	for _, t := range it.Transfers {
		if t.Memo == nil {
			continue
		}
		if got, err := MemoCarrier(innerMemo(t)); err == nil && got == h {
			carrying = append(carrying, t)
		}
	}
	if len(carrying) != 1 || len(it.Sender) != 32 || len(carrying[0].Receiver) != 32 ||
		IDDigest(it.Sender, carrying[0].Receiver, carrying[0].Amount) != ref.IDDigest {
		return Status{State: "failed", Why: "not-this-instrument"}
	}
	return Status{State: "settled", Finality: "finalized"}
}

// Recover reads H from the block item alone: its one transfer with a memo.
func Recover(ctx context.Context, network, hash string, r Reader) (atr.Hash, error) {
	if r == nil || r.Network() != network {
		return atr.Hash{}, rails.Refuse("ccd/wrong-reader")
	}
	it, err := r.Item(ctx, hash)
	if err != nil {
		return atr.Hash{}, rails.Refuse("ccd/unreadable")
	}
	if it == nil {
		return atr.Hash{}, rails.Refuse("ccd/not-found")
	}
	if it.State != "finalized" {
		return atr.Hash{}, rails.Refuse("ccd/not-finalized")
	}
	if !it.Success {
		return atr.Hash{}, rails.Refuse("ccd/rejected")
	}
	var with []Transfer
	for _, t := range it.Transfers {
		if t.Memo != nil {
			with = append(with, t)
		}
	}
	if len(with) != 1 {
		return atr.Hash{}, rails.Refuse("ccd/no-carrier")
	}
	h, err := MemoCarrier(innerMemo(with[0]))
	if err != nil {
		return atr.Hash{}, rails.Refuse("ccd/no-carrier")
	}
	return h, nil
}
