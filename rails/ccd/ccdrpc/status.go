package ccdrpc

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/termsgate/termsgate/rails/ccd"
	"google.golang.org/protobuf/encoding/protowire"
)

// A block item's status from the node, for ccd.PaymentStatus and
// ccd.Recover: GetBlockItemStatus(TransactionHash{value}) answers
// BlockItemStatus, one of received (1, Empty), committed (2, the outcome in
// each block) or finalized (3, BlockItemSummaryInBlock{block_hash: 1,
// outcome: 2}); NOT_FOUND when the node does not know the item
// (v2/concordium/types.proto and protocol-level-tokens.proto of
// https://github.com/Concordium/concordium-grpc-api).

var _ ccd.Reader = (*Client)(nil)

// Field numbers of the messages read.
const (
	statusReceived, statusCommitted, statusFinalized = 1, 2, 3

	summaryHash, summaryAccountTransaction = 3, 4 // BlockItemSummary
	detailsSender, detailsEffects          = 2, 3 // AccountTransactionDetails
	effectNone, effectTransfer, effectPLT  = 1, 5, 20
	transferAmount, transferReceiver       = 1, 2 // AccountTransfer; memo 3
	eventTokenID, eventTransfer            = 1, 3 // TokenEvent
	tokenTo, tokenAmount, tokenMemo        = 2, 3, 4
)

// Item calls GetBlockItemStatus for the transaction named by hash (64
// lowercase hex digits) and reads the state, and once finalized the
// outcome: whether it succeeded, its sender, and each CCD or PLT transfer
// with its receiver, amount and memo. Item is nil when the node answers
// NOT_FOUND; every other failure, and an outcome naming another
// transaction, is an error.
func (c *Client) Item(ctx context.Context, hash string) (*ccd.Item, error) {
	const method = "GetBlockItemStatus"
	fail := func(format string, a ...any) error { return &Error{Method: method, Detail: fmt.Sprintf(format, a...)} }
	raw, err := hex.DecodeString(hash)
	if err != nil || len(raw) != 32 || hex.EncodeToString(raw) != hash {
		return nil, fail("a transaction hash is 64 lowercase hex digits")
	}
	ans, err := c.call(ctx, method, protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), raw))
	var e *Error
	if errors.As(err, &e) && e.Status == statusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	top, err := parse(ans)
	if err != nil {
		return nil, fail("%v", err)
	}
	n := top.counts[statusReceived] + top.counts[statusCommitted] + top.counts[statusFinalized]
	if n != 1 {
		return nil, fail("the status is not one of received, committed and finalized (%d given)", n)
	}
	switch {
	case top.counts[statusReceived] == 1:
		return &ccd.Item{State: "received"}, nil
	case top.counts[statusCommitted] == 1:
		return &ccd.Item{State: "committed"}, nil
	}
	fin, err := parse(top.bytes[statusFinalized])
	if err != nil {
		return nil, fail("%v", err)
	}
	in, err := parse(fin.bytes[1])
	if err != nil || fin.counts[1] != 1 || in.counts[2] != 1 {
		return nil, fail("a finalized status without its outcome")
	}
	it, err := outcome(in.bytes[2], raw)
	if err != nil {
		return nil, fail("%v", err)
	}
	return it, nil
}

// outcome reads a finalized BlockItemSummary of the transaction hash.
func outcome(b, hash []byte) (*ccd.Item, error) {
	sum, err := parse(b)
	if err != nil {
		return nil, err
	}
	h, err := value(sum, summaryHash)
	if err != nil || string(h) != string(hash) {
		return nil, errors.New("the outcome names another transaction")
	}
	it := &ccd.Item{State: "finalized"}
	if sum.counts[summaryAccountTransaction] != 1 {
		// An account creation, a chain update or a token creation: no
		// sender, no transfer, so no payment.
		it.Success = true
		return it, nil
	}
	det, err := parse(sum.bytes[summaryAccountTransaction])
	if err != nil {
		return nil, err
	}
	if it.Sender, err = address(det, detailsSender); err != nil {
		return nil, fmt.Errorf("the sender: %w", err)
	}
	eff, err := parse(det.bytes[detailsEffects])
	if err != nil || det.counts[detailsEffects] != 1 {
		return nil, errors.New("an account transaction without its effects")
	}
	switch {
	case eff.counts[effectNone] > 0:
		return it, nil // rejected: Success stays false
	case eff.counts[effectTransfer] == 1:
		t, err := parse(eff.bytes[effectTransfer])
		if err != nil {
			return nil, err
		}
		tr := ccd.Transfer{Kind: "ccd"}
		if tr.Receiver, err = address(t, transferReceiver); err != nil {
			return nil, fmt.Errorf("the receiver: %w", err)
		}
		amount, err := parse(t.bytes[transferAmount])
		if err != nil {
			return nil, err
		}
		tr.Amount = amount.varints[1]
		if tr.Memo, err = memo(t, 3); err != nil {
			return nil, err
		}
		it.Transfers = []ccd.Transfer{tr}
	case eff.counts[effectPLT] == 1:
		events, err := repeated(eff.bytes[effectPLT], 1)
		if err != nil {
			return nil, err
		}
		for _, ev := range events {
			tr, ok, err := tokenTransfer(ev)
			if err != nil {
				return nil, err
			}
			if ok {
				it.Transfers = append(it.Transfers, tr)
			}
		}
	}
	it.Success = true
	return it, nil
}

// tokenTransfer reads a TokenEvent: ok when it is a transfer event.
func tokenTransfer(b []byte) (ccd.Transfer, bool, error) {
	ev, err := parse(b)
	if err != nil {
		return ccd.Transfer{}, false, err
	}
	if ev.counts[eventTransfer] == 0 {
		return ccd.Transfer{}, false, nil // a module, mint or burn event
	}
	id, err := parse(ev.bytes[eventTokenID])
	if err != nil || len(id.bytes[1]) == 0 || len(id.bytes[1]) > 128 {
		return ccd.Transfer{}, false, errors.New("a token event without its token id")
	}
	t, err := parse(ev.bytes[eventTransfer])
	if err != nil {
		return ccd.Transfer{}, false, err
	}
	holder, err := parse(t.bytes[tokenTo])
	if err != nil {
		return ccd.Transfer{}, false, err
	}
	tr := ccd.Transfer{Kind: "plt", TokenID: string(id.bytes[1])}
	if tr.Receiver, err = address(holder, 1); err != nil {
		return ccd.Transfer{}, false, fmt.Errorf("the token receiver: %w", err)
	}
	amount, err := parse(t.bytes[tokenAmount])
	if err != nil || t.counts[tokenAmount] != 1 {
		return ccd.Transfer{}, false, errors.New("a token transfer without its amount")
	}
	tr.Amount = amount.varints[1]
	if tr.Memo, err = memo(t, tokenMemo); err != nil {
		return ccd.Transfer{}, false, err
	}
	return tr, true, nil
}

// value is the bytes of a {bytes value = 1} message in field num.
func value(f fields, num protowire.Number) ([]byte, error) {
	if f.counts[num] != 1 {
		return nil, errors.New("absent")
	}
	inner, err := parse(f.bytes[num])
	if err != nil {
		return nil, err
	}
	return inner.bytes[1], nil
}

// address is an AccountAddress's 32 bytes in field num.
func address(f fields, num protowire.Number) ([]byte, error) {
	a, err := value(f, num)
	if err == nil && len(a) != 32 {
		err = errors.New("an account address is 32 bytes")
	}
	return a, err
}

// memo is a Memo's bytes in field num, nil when absent; a memo present but
// empty is the empty memo, not none.
func memo(f fields, num protowire.Number) ([]byte, error) {
	if f.counts[num] == 0 {
		return nil, nil
	}
	m, err := value(f, num)
	if err != nil {
		return nil, err
	}
	if len(m) > ccd.MaxMemo {
		return nil, fmt.Errorf("a memo of %d bytes (at most %d)", len(m), ccd.MaxMemo)
	}
	if m == nil {
		m = []byte{}
	}
	return m, nil
}

// repeated is every length-delimited value of field num in a message.
func repeated(b []byte, num protowire.Number) ([][]byte, error) {
	var out [][]byte
	for len(b) > 0 {
		n, typ, k := protowire.ConsumeTag(b)
		if k < 0 {
			return nil, errMessage
		}
		b = b[k:]
		m := protowire.ConsumeFieldValue(n, typ, b)
		if m < 0 {
			return nil, errMessage
		}
		if n == num && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b)
			out = append(out, v)
		}
		b = b[m:]
	}
	return out, nil
}
