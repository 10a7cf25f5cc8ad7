package tron

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// A seller's view of a claimed payment, read by transaction id from a
// Solidity node and a FullNode (docs/tron.md, "Settlement").

// Info is a transaction's receipt as gettransactioninfobyid gives it.
type Info struct {
	BlockNumber uint64
	Result      string // receipt.result: SUCCESS, REVERT, …
	Logs        []Log
}

// Log is one event log: the emitter (20-byte hex, as the node writes it)
// and the topics.
type Log struct {
	Address string
	Topics  []string
}

// Reader reads one network's nodes; every failure is an error, a missing
// transaction nil.
type Reader interface {
	Network() string
	// Info is /walletsolidity/gettransactioninfobyid (solid) or
	// /wallet/gettransactioninfobyid (head).
	Info(ctx context.Context, txid string, solid bool) (*Info, error)
	// RawData is /walletsolidity/gettransactionbyid's raw_data_hex; "" when
	// there is no such transaction.
	RawData(ctx context.Context, txid string) (string, error)
	// SolidHead is the latest solidified block's time in milliseconds.
	SolidHead(ctx context.Context) (uint64, error)
}

// Status is a payment's state: settled (Finality solidified or head),
// pending (Why not-found or unreadable), failed (Why contract-failed,
// no-transfer or expired).
type Status struct {
	State, Finality, Why, Result string
	BlockNumber                  uint64
}

// expirySlots is two block slots: a transaction nowhere once the solid head
// is this far past its expiration will never land.
const expirySlots = 6000

// PaymentStatus reads ref's transaction at the Solidity node, then at the
// FullNode's head: settled when its result is SUCCESS and it holds a
// Transfer log from ref's token; failed when it reverted or moved nothing
// of the token; expired only when no node holds it and the solid head is
// two slots past its expiration. At most three reads.
func PaymentStatus(ctx context.Context, ref Reference, r Reader) Status {
	if r == nil || r.Network() != ref.Network {
		return Status{State: "pending", Why: "unreadable"}
	}
	for _, solid := range []bool{true, false} {
		info, err := r.Info(ctx, ref.TxID, solid)
		if err != nil {
			return Status{State: "pending", Why: "unreadable"}
		}
		if info == nil {
			continue
		}
		if info.Result != "SUCCESS" {
			return Status{State: "failed", Why: "contract-failed", Result: info.Result}
		}
		found := false
		for _, l := range info.Logs {
			found = found || isAssetTransfer(l, ref.Asset)
		}
		if !found {
			return Status{State: "failed", Why: "no-transfer"}
		}
		f := "head"
		if solid {
			f = "solidified"
		}
		return Status{State: "settled", Finality: f, BlockNumber: info.BlockNumber}
	}
	head, err := r.SolidHead(ctx)
	if err != nil {
		return Status{State: "pending", Why: "unreadable"}
	}
	if head >= ref.Expiration+expirySlots {
		return Status{State: "failed", Why: "expired"}
	}
	return Status{State: "pending", Why: "not-found"}
}

func bare(s string) string { return strings.TrimPrefix(strings.ToLower(s), "0x") }

// isAssetTransfer is a log emitted by asset (21 bytes) whose first topic
// is Transfer.
func isAssetTransfer(l Log, asset string) bool {
	token := bare(asset)
	if len(token) != 42 || !strings.HasPrefix(token, "41") {
		return false
	}
	emitter := bare(l.Address)
	if len(emitter) == 42 && strings.HasPrefix(emitter, "41") {
		emitter = emitter[2:]
	}
	return emitter == token[2:] && len(l.Topics) > 0 && bare(l.Topics[0]) == TransferTopic
}

// RecoverH reads H from the memo of the transaction whose raw bytes hash to
// txid: one read.
func RecoverH(ctx context.Context, network, txid string, r Reader) (atr.Hash, error) {
	if r == nil || r.Network() != network {
		return atr.Hash{}, rails.Refuse("tron/wrong-reader")
	}
	rawHex, err := r.RawData(ctx, txid)
	if err != nil {
		return atr.Hash{}, rails.Refuse("tron/unreadable")
	}
	if rawHex == "" {
		return atr.Hash{}, rails.Refuse("tron/not-found")
	}
	raw, ok := lowerHex(strings.ToLower(rawHex))
	if !ok || len(rawHex) > MaxTxHex {
		return atr.Hash{}, rails.Refuse("tron/unreadable")
	}
	want, err := hex.DecodeString(bare(txid))
	if sum := sha256.Sum256(raw); err != nil || len(want) != 32 || sum != [32]byte(want) {
		return atr.Hash{}, rails.Refuse(CodeTxMalformed)
	}
	rd, err := DecodeRaw(raw)
	if err != nil {
		return atr.Hash{}, err
	}
	h, ok := mpp.ParseLegalContext(string(rd.Data))
	if !ok || string(rd.Data) != mpp.LegalContextValue(h) {
		return atr.Hash{}, rails.Refuse(CodeMemoNotLCP)
	}
	return h, nil
}
