package near

import (
	"context"
	"encoding/base64"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/rails"
)

// A seller's view of a claimed payment, read from the relayed transaction's
// outcome (docs/near.md, "Settlement").

// MaxRelayers bounds the relayers a status read tries.
const MaxRelayers = 4

// Delegate is the delegate action a relayed transaction carried.
type Delegate struct {
	SenderID, PublicKey string
	Nonce               uint64
	Args                []byte // the ft_transfer's arguments
}

// Receipt is one receipt of the transaction: its executor and outcome
// (success, failure or pending).
type Receipt struct {
	Executor, Outcome string
}

// Outcome is EXPERIMENTAL_tx_status's answer as the pairing reads it.
type Outcome struct {
	Status   string // final_execution_status: FINAL, EXECUTED, EXECUTED_OPTIMISTIC, …
	Delegate *Delegate
	Receipts []Receipt
}

// Reader reads one network's RPC; every failure is an error.
type Reader interface {
	Network() string
	// Relayers are the facilitator's published NEAR signers.
	Relayers() []string
	// TxStatus is the transaction sent by sender; nil when unknown.
	TxStatus(ctx context.Context, txHash, sender string) (*Outcome, error)
	// FinalHeight is the final block's height.
	FinalHeight(ctx context.Context) (uint64, error)
	// AccessKeyNonce is the key's nonce at final; ok false when there is no such key.
	AccessKeyNonce(ctx context.Context, account, publicKey string) (nonce uint64, ok bool, err error)
}

// Status is a payment's state: settled (Finality final or optimistic),
// pending (Why not-found, in-flight or unreadable), failed (Why
// not-this-instrument or transfer-failed).
type Status struct {
	State, Finality, Why string
}

func findOutcome(ctx context.Context, txHash string, r Reader) (*Outcome, error) {
	rel := r.Relayers()
	if len(rel) > MaxRelayers {
		rel = rel[:MaxRelayers]
	}
	for _, sender := range rel {
		o, err := r.TxStatus(ctx, txHash, sender)
		if err != nil {
			return nil, err
		}
		if o != nil {
			return o, nil
		}
	}
	return nil, nil
}

// PaymentStatus finds ref's transaction under each published relayer, then
// requires its delegate to be ref's (payer, key, nonce) and reads the token
// contract's receipts: a failure is failed, a success settled (final only
// when the status is FINAL). A failed read, no relayer, or a reader for
// another network is pending unreadable.
func PaymentStatus(ctx context.Context, ref Reference, r Reader) Status {
	if r == nil || r.Network() != ref.Network || len(r.Relayers()) == 0 || ref.Transaction == "" {
		return Status{State: "pending", Why: "unreadable"}
	}
	o, err := findOutcome(ctx, ref.Transaction, r)
	if err != nil {
		return Status{State: "pending", Why: "unreadable"}
	}
	if o == nil {
		return Status{State: "pending", Why: "not-found"}
	}
	d := o.Delegate
	if d == nil || d.SenderID != ref.Payer || d.PublicKey != ref.PublicKey || d.Nonce != ref.Nonce {
		return Status{State: "failed", Why: "not-this-instrument"}
	}
	ok := false
	for _, rc := range o.Receipts {
		if rc.Executor != ref.Asset {
			continue
		}
		if rc.Outcome == "failure" {
			return Status{State: "failed", Why: "transfer-failed"}
		}
		ok = ok || rc.Outcome == "success"
	}
	if !ok {
		return Status{State: "pending", Why: "in-flight"}
	}
	if o.Status == "FINAL" {
		return Status{State: "settled", Finality: "final"}
	}
	return Status{State: "settled", Finality: "optimistic"}
}

// Lapsed is true only when the delegate action can never execute: the
// final height is past its bound and the key's nonce is below the
// action's. A missing key is false (it may have been deleted after the
// delegate ran); a failed read is false. Two reads at most.
func Lapsed(ctx context.Context, ref Reference, r Reader) bool {
	if r == nil || r.Network() != ref.Network {
		return false
	}
	h, err := r.FinalHeight(ctx)
	if err != nil || h <= ref.MaxBlockHeight {
		return false
	}
	n, ok, err := r.AccessKeyNonce(ctx, ref.Payer, ref.PublicKey)
	return err == nil && ok && n < ref.Nonce
}

// Recover reads H from the memo of the relayed transaction's delegated
// ft_transfer.
func Recover(ctx context.Context, network, txHash string, r Reader) (atr.Hash, error) {
	if r == nil || r.Network() != network {
		return atr.Hash{}, rails.Refuse("near/wrong-reader")
	}
	if len(r.Relayers()) == 0 {
		return atr.Hash{}, rails.Refuse("near/no-relayer")
	}
	o, err := findOutcome(ctx, txHash, r)
	if err != nil {
		return atr.Hash{}, rails.Refuse("near/unreadable")
	}
	if o == nil || o.Delegate == nil {
		return atr.Hash{}, rails.Refuse("near/not-found")
	}
	_, h, err := Memo(o.Delegate.Args)
	return h, err
}

// ArgsFromBase64 reads an outcome's base64 arguments, as the RPC writes
// them.
func ArgsFromBase64(s string) ([]byte, bool) {
	if len(s) > MaxSDAChars {
		return nil, false
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	return b, err == nil
}
