package starknet

// The seller's read of a claimed payment: the named transaction's receipt,
// then its trace, for exactly one execute_from_outside_v2 of the payer with
// this nonce whose direct call is transfer on the asset with this
// transfer's identity, none of it under a reverted call, and exactly one
// Transfer event of the asset from the payer with that identity.

import (
	"context"
	"math/big"
)

// Receipt is what the status reads of starknet_getTransactionReceipt.
type Receipt struct {
	Finality    string // PRE_CONFIRMED, ACCEPTED_ON_L2 or ACCEPTED_ON_L1
	Execution   string // SUCCEEDED or REVERTED
	BlockNumber *uint64
	Events      []Event
}

// Event is one receipt event.
type Event struct {
	From       Felt
	Keys, Data []Felt
}

// Invocation is one call of starknet_traceTransaction's execute_invocation.
type Invocation struct {
	Contract, Selector Felt
	Calldata           []Felt
	Reverted           bool
	Calls              []*Invocation
}

// Reader is a Starknet node as the status reads it (starknetrpc answers
// over JSON-RPC). Receipt is nil, nil for a transaction the node does not
// know; Trace nil, nil for one without an execute invocation.
type Reader interface {
	Network() string
	Receipt(ctx context.Context, tx Felt) (*Receipt, error)
	Trace(ctx context.Context, tx Felt) (*Invocation, error)
}

// Status is a payment's state: settled (Finality and BlockNumber set),
// pending (Why not-found, pre-confirmed or unreadable) or failed (Why
// reverted or not-this-instrument).
type Status struct {
	State       string
	Why         string
	Finality    string
	BlockNumber uint64
}

// Bounds of the trace walk.
const (
	MaxTraceDepth       = 16
	MaxTraceInvocations = 512
	MaxEvents           = 1024
)

func pending(why string) Status { return Status{State: "pending", Why: why} }
func failed(why string) Status  { return Status{State: "failed", Why: why} }

// PaymentStatus reads ref's transaction. A failed read, a reader of
// another network or a reference without a transaction is pending
// unreadable; two matching executions in one trace, or an asset Transfer
// event of neither layout, likewise.
func PaymentStatus(ctx context.Context, ref Reference, r Reader) Status {
	if ref.Transaction == nil || r.Network() != ref.Network {
		return pending("unreadable")
	}
	rc, err := r.Receipt(ctx, *ref.Transaction)
	if err != nil {
		return pending("unreadable")
	}
	if rc == nil {
		return pending("not-found")
	}
	switch rc.Finality {
	case "PRE_CONFIRMED":
		return pending("pre-confirmed")
	case "ACCEPTED_ON_L2", "ACCEPTED_ON_L1":
	default:
		return pending("unreadable")
	}
	if rc.BlockNumber == nil {
		return pending("pre-confirmed")
	}
	switch rc.Execution {
	case "REVERTED":
		return failed("reverted")
	case "SUCCEEDED":
	default:
		return pending("unreadable")
	}
	root, err := r.Trace(ctx, *ref.Transaction)
	if err != nil || root == nil {
		return pending("unreadable")
	}
	n, ok := matches(root, ref)
	if !ok || n > 1 {
		return pending("unreadable")
	}
	if n == 0 {
		return failed("not-this-instrument")
	}
	e, ok := transferEvents(rc.Events, ref)
	if !ok {
		return pending("unreadable")
	}
	if e != 1 {
		return failed("not-this-instrument")
	}
	return Status{State: "settled", Finality: rc.Finality, BlockNumber: *rc.BlockNumber}
}

// matches counts the payer's non-reverted execute_from_outside_v2
// invocations carrying the nonce, outside any reverted call, whose direct
// non-reverted call is transfer on the asset with the reference's identity;
// false when the trace is deeper or larger than the bounds.
func matches(root *Invocation, ref Reference) (int, bool) {
	type item struct {
		inv   *Invocation
		depth int
	}
	stack := []item{{root, 1}}
	visited, found := 0, 0
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		inv := it.inv
		visited++
		if inv == nil || it.depth > MaxTraceDepth || visited > MaxTraceInvocations {
			return 0, false
		}
		// A reverted call's descendants keep reverted false, and nothing
		// under it took effect.
		if inv.Reverted {
			continue
		}
		if inv.Selector == SelectorExecuteFromOutsideV2 && inv.Contract == ref.From && len(inv.Calldata) > 1 && inv.Calldata[1] == ref.Nonce {
			for _, c := range inv.Calls {
				if c == nil || c.Reverted || c.Contract != ref.Asset || c.Selector != SelectorTransfer || len(c.Calldata) != 3 {
					continue
				}
				amount, ok := joinU256(c.Calldata[1], c.Calldata[2])
				if ok && IDDigest(inv.Contract, c.Calldata[0], amount) == ref.IDDigest {
					found++
				}
			}
		}
		for _, c := range inv.Calls {
			stack = append(stack, item{c, it.depth + 1})
		}
	}
	return found, true
}

// transferEvents counts the asset's Transfer events from the payer with the
// reference's identity, keyed (keys selector, from, to; data low, high) or
// unkeyed (keys selector; data from, to, low, high); false for an asset
// Transfer event of neither layout.
func transferEvents(events []Event, ref Reference) (int, bool) {
	if len(events) > MaxEvents {
		return 0, false
	}
	n := 0
	for _, e := range events {
		if e.From != ref.Asset || len(e.Keys) == 0 || e.Keys[0] != SelectorTransferEvent {
			continue
		}
		var from, to Felt
		var amount *big.Int
		var ok bool
		switch {
		case len(e.Keys) == 3 && len(e.Data) == 2:
			from, to = e.Keys[1], e.Keys[2]
			amount, ok = joinU256(e.Data[0], e.Data[1])
		case len(e.Keys) == 1 && len(e.Data) == 4:
			from, to = e.Data[0], e.Data[1]
			amount, ok = joinU256(e.Data[2], e.Data[3])
		}
		if !ok {
			return 0, false
		}
		if from == ref.From && IDDigest(from, to, amount) == ref.IDDigest {
			n++
		}
	}
	return n, true
}
