package tvm

import (
	"context"
)

// Tx is a transaction as a TON Center v3 endpoint reports it; InBody is the
// inbound message body as a BoC (nil when absent).
type Tx struct {
	Hash     string
	Account  string
	Aborted  bool
	Finality int // 0, 1 or 2
	InBody   []byte
	OutMsgs  []OutMsg
}

// OutMsg is an outbound message: its hash and opcode (-1 when none).
type OutMsg struct {
	Hash   string
	Opcode int64
}

// Reader is the bounded, read-only calls a status check makes against one
// network's TON Center v3 endpoint. Every failure is an error.
type Reader interface {
	Network() string
	// ByInBody is GET /api/v3/transactionsByMessage?body_hash=…&direction=in.
	ByInBody(ctx context.Context, bodyHash string) ([]Tx, error)
	// ByInMessage is GET /api/v3/transactionsByMessage?msg_hash=…&direction=in.
	ByInMessage(ctx context.Context, msgHash string) ([]Tx, error)
	// ByHash is GET /api/v3/transactions?hash=…; nil when not found.
	ByHash(ctx context.Context, txHash string) (*Tx, error)
	// HeadUtime is the last indexed block's gen_utime (/api/v3/masterchainInfo).
	HeadUtime(ctx context.Context) (int64, error)
}

// Status is a payment's settlement: settled (finality confirmed or
// finalized), pending or failed, with why.
type Status struct {
	State, Finality, Why string
}

// expiryHops is how long after validUntil a message may still land: the
// external hop and the two internal ones.
const expiryHops = 60

// StatusOf finds the transfer by its body hash on the payer's Jetton
// wallet, then follows its internal_transfer to the payee's Jetton wallet:
// settled when both ran without aborting, at the lower finality of the two.
// A transaction on another account is ignored (a planted equal body); a
// failed read, or a reader of another network, is pending/unreadable.
func StatusOf(ctx context.Context, ref Reference, r Reader) Status {
	unreadable := Status{State: "pending", Why: "unreadable"}
	wallet, ok := ParseAddress(ref.JettonWallet)
	if !ok || r.Network() != ref.Network {
		return unreadable
	}
	found, err := r.ByInBody(ctx, ref.TransferBodyHash)
	if err != nil {
		return unreadable
	}
	var mine []Tx
	for _, t := range found {
		if a, ok := ParseAddress(t.Account); ok && *a == *wallet {
			mine = append(mine, t)
		}
	}
	if len(mine) == 0 {
		head, err := r.HeadUtime(ctx)
		if err != nil {
			return unreadable
		}
		if head > int64(ref.ValidUntil)+expiryHops {
			return Status{State: "failed", Why: "expired"}
		}
		return Status{State: "pending", Why: "not-found"}
	}
	var first *Tx
	for i := range mine {
		if !mine[i].Aborted {
			first = &mine[i]
			break
		}
	}
	if first == nil {
		return Status{State: "failed", Why: "aborted"}
	}
	internal := ""
	for _, m := range first.OutMsgs {
		if m.Opcode == OpInternalTransfer {
			internal = m.Hash
			break
		}
	}
	if internal == "" {
		return Status{State: "failed", Why: "no-transfer"}
	}
	delivered, err := r.ByInMessage(ctx, internal)
	if err != nil {
		return unreadable
	}
	if len(delivered) == 0 {
		return Status{State: "pending", Why: "in-flight"}
	}
	second := delivered[0]
	if second.Aborted {
		return Status{State: "failed", Why: "bounced"}
	}
	switch min(first.Finality, second.Finality) {
	case 2:
		return Status{State: "settled", Finality: "finalized"}
	case 1:
		return Status{State: "settled", Finality: "confirmed"}
	}
	return Status{State: "pending", Why: "not-final"}
}

// Recover reads H from the payer Jetton wallet's transaction: the comment in
// its inbound Jetton transfer. One call.
func Recover(ctx context.Context, network, txHash string, r Reader) (string, error) {
	if r.Network() != network {
		return "", refusal("tvm/wrong-reader")
	}
	tx, err := r.ByHash(ctx, txHash)
	if err != nil {
		return "", refusal("tvm/unreadable")
	}
	if tx == nil {
		return "", refusal("tvm/not-found")
	}
	if tx.InBody == nil {
		return "", refusal("tvm/unreadable")
	}
	body, err := DecodeBoC(tx.InBody)
	if err != nil {
		return "", refusal(err.Error())
	}
	payload, err := JettonPayload(body)
	if err != nil {
		return "", err
	}
	h, ok := CommentHash(payload)
	if !ok {
		return "", refusal(CodePayloadNotLCP)
	}
	return h.String(), nil
}
