package polkadot

import (
	"context"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// The seller's reads of a landed payment, by block and index: Sidecar's
// /blocks/{block}/extrinsics/{index} and /blocks/{block}/extrinsics-raw
// (https://paritytech.github.io/substrate-api-sidecar/dist/), through a
// Reader. No index searches remarks: the extrinsic is named by its
// timepoint, "<block hash>-<index>", or located by hashing the extrinsics
// of a bounded range of blocks.

// Event is one event of a landed extrinsic, as Sidecar writes it.
type Event struct {
	Pallet, Method string
	Data           []jsonv.Value
}

// Landed is an extrinsic as a block holds it: the block's height and hash,
// the extrinsic's hash, whether it dispatched, and its events.
type Landed struct {
	Height    uint64
	BlockHash string // 0x and 64 hex
	Hash      string // 0x and 64 hex
	Success   bool
	Events    []Event
}

// Reader reads one network's chain; every failure is an error.
type Reader interface {
	Network() string
	// Extrinsic is the extrinsic at index of block (a hash, or a height in
	// decimal); nil when the block or the extrinsic does not exist.
	Extrinsic(ctx context.Context, block string, index int) (*Landed, error)
	// RawExtrinsics are a block's extrinsics in 0x hex; nil when the block
	// does not exist.
	RawExtrinsics(ctx context.Context, block string) ([]string, error)
	// FinalizedHeight is the most recently finalized block's height.
	FinalizedHeight(ctx context.Context) (uint64, error)
}

// Status is a payment's state as read: settled, pending or failed; why for
// the last two; and, for a settlement or a failure, the finality of the
// read (finalized or head), the block's height and the timepoint read.
type Status struct {
	State, Why, Finality string
	Height               uint64
	Transaction          string
}

// MaxLocateRange bounds Locate: at most 256 blocks.
const MaxLocateRange = 255

// Status and recovery codes.
const (
	CodeWrongReader          = "polkadot/wrong-reader"
	CodeTransactionMalformed = "polkadot/transaction-malformed"
	CodeUnreadable           = "polkadot/unreadable"
	CodeNotFound             = "polkadot/not-found"
	CodeHashMismatch         = "polkadot/hash-mismatch"
	CodeNoRemark             = "polkadot/no-remark"
	CodeRange                = "polkadot/range"
)

func isHash(s string) bool { return len(s) == 66 && mpp.IsHex(s) }

// ParseTimepoint reads "<0x and 64 hex>-<index>", the index decimal
// without leading zeros and at most 10 digits.
func ParseTimepoint(s string) (block string, index int, ok bool) {
	b, i, cut := strings.Cut(s, "-")
	if !cut || !isHash(b) || i == "" || len(i) > 10 || len(i) > 1 && i[0] == '0' || !rails.IsDecimal(i) {
		return "", 0, false
	}
	n, err := strconv.ParseUint(i, 10, 32)
	if err != nil || n > 1<<31-1 {
		return "", 0, false
	}
	return b, int(n), true
}

// Timepoint writes "<block hash>-<index>".
func Timepoint(block string, index int) string { return block + "-" + strconv.Itoa(index) }

func hashEq(a, b string) bool { return isHash(a) && isHash(b) && strings.EqualFold(a, b) }

func hasEvent(x *Landed, pallet, method string, test func([]jsonv.Value) bool) bool {
	for _, e := range x.Events {
		if e.Pallet == pallet && e.Method == method && test(e.Data) {
			return true
		}
	}
	return false
}

// RemarkHash is the BLAKE2b-256 of H's remark, which System.Remarked carries.
func RemarkHash(h atr.Hash) string {
	d := Blake2b256([]byte(mpp.LegalContextValue(h)))
	return "0x" + hex.EncodeToString(d[:])
}

func remarked(x *Landed, remarkHash string) bool {
	return hasEvent(x, "system", "Remarked", func(d []jsonv.Value) bool {
		if len(d) < 2 {
			return false
		}
		s, ok := d[1].(string)
		return ok && hashEq(s, remarkHash)
	})
}

// failure is why the extrinsic read is not this payment, or "".
func failure(x *Landed, ref Reference, h atr.Hash) string {
	if !hashEq(x.Hash, ref.ExtrinsicHash) {
		return "not-this-extrinsic"
	}
	if !x.Success {
		return "dispatch-failed"
	}
	if !remarked(x, RemarkHash(h)) {
		return "no-remark"
	}
	asset := strconv.FormatUint(uint64(ref.AssetID), 10)
	if !hasEvent(x, "assets", "Transferred", func(d []jsonv.Value) bool {
		if len(d) < 1 {
			return false
		}
		if v, ok := d[0].(string); ok {
			return v == asset
		}
		n, ok := jsonv.AsSafeInt(d[0])
		return ok && n == int64(ref.AssetID)
	}) {
		return "no-transfer"
	}
	return ""
}

func pending(why string) Status { return Status{State: "pending", Why: why} }

// PaymentStatus reads the extrinsic at its timepoint transaction. It must
// have the recorded hash, have dispatched, and carry System.Remarked for
// H's remark and an Assets.Transferred of the recorded asset. A settlement
// and a failure carry the finality of the read: finalized when the
// finalized chain holds that block, head when it is above the finalized
// height. When the finalized chain holds another block at that height, the
// extrinsic at the same index of the canonical block counts if its hash is
// the recorded one; otherwise the payment is pending not-located, to be
// located from the claim position (Locate). A bare broadcast hash is
// pending not-located; a block the reader does not have, not-found; a
// failed read, a timepoint that does not read or a reader of another
// network, unreadable. At most three reads.
func PaymentStatus(ctx context.Context, ref Reference, h atr.Hash, transaction string, r Reader) Status {
	if r == nil || r.Network() != ref.Network {
		return pending("unreadable")
	}
	if isHash(transaction) {
		return pending("not-located")
	}
	block, index, ok := ParseTimepoint(transaction)
	if !ok {
		return pending("unreadable")
	}
	found, err := r.Extrinsic(ctx, block, index)
	if err != nil {
		return pending("unreadable")
	}
	if found == nil {
		return pending("not-found")
	}
	answer := func(x *Landed, finality string) Status {
		st := Status{State: "settled", Finality: finality, Height: x.Height, Transaction: Timepoint(x.BlockHash, index)}
		if why := failure(x, ref, h); why != "" {
			st.State, st.Why = "failed", why
		}
		return st
	}
	fin, err := r.FinalizedHeight(ctx)
	if err != nil {
		return pending("unreadable")
	}
	if fin < found.Height {
		return answer(found, "head")
	}
	canon, err := r.Extrinsic(ctx, strconv.FormatUint(found.Height, 10), index)
	if err != nil {
		return pending("unreadable")
	}
	if canon == nil {
		return pending("not-located")
	}
	if hashEq(canon.BlockHash, block) {
		return answer(found, "finalized")
	}
	if canon.Height == found.Height && hashEq(canon.Hash, ref.ExtrinsicHash) {
		return answer(canon, "finalized")
	}
	return pending("not-located")
}

// Recover reads H back from a landed extrinsic alone, for anyone holding
// its timepoint: its raw bytes end with remark_with_event of an LCP
// string, and the chain's record of it has the same hash, dispatched, with
// System.Remarked for that remark. Two reads.
func Recover(ctx context.Context, network, transaction string, r Reader) (atr.Hash, error) {
	if r == nil || r.Network() != network {
		return atr.Hash{}, rails.Refuse(CodeWrongReader)
	}
	block, index, ok := ParseTimepoint(transaction)
	if !ok {
		return atr.Hash{}, rails.Refuse(CodeTransactionMalformed)
	}
	raws, err := r.RawExtrinsics(ctx, block)
	if err != nil {
		return atr.Hash{}, rails.Refuse(CodeUnreadable)
	}
	if raws == nil || index >= len(raws) {
		return atr.Hash{}, rails.Refuse(CodeNotFound)
	}
	raw := raws[index]
	if !mpp.IsHex(raw) || len(raw) > 2+2*MaxExtrinsic {
		return atr.Hash{}, rails.Refuse(CodeExtrinsicMalformed)
	}
	xt, _ := hex.DecodeString(raw[2:])
	s, err := SplitSigned(xt)
	if err != nil {
		return atr.Hash{}, rails.Refuse(err.Error())
	}
	tail := 4 + RemarkLength
	start := len(xt) - tail
	head := AppendCompact([]byte{callRemarkWithEvent[0], callRemarkWithEvent[1]}, RemarkLength)
	if start < s.End || string(xt[start:start+4]) != string(head) {
		return atr.Hash{}, rails.Refuse(CodeCallNotProfile)
	}
	remark := xt[start+4:]
	h, ok := RemarkH(remark)
	if !ok {
		return atr.Hash{}, rails.Refuse(CodeRemarkNotLCP)
	}
	x, err := r.Extrinsic(ctx, block, index)
	if err != nil {
		return atr.Hash{}, rails.Refuse(CodeUnreadable)
	}
	if x == nil {
		return atr.Hash{}, rails.Refuse(CodeNotFound)
	}
	d := ExtrinsicHash(xt)
	if !hashEq(x.Hash, "0x"+hex.EncodeToString(d[:])) {
		return atr.Hash{}, rails.Refuse(CodeHashMismatch)
	}
	rh := Blake2b256(remark)
	if !x.Success || !remarked(x, "0x"+hex.EncodeToString(rh[:])) {
		return atr.Hash{}, rails.Refuse(CodeNoRemark)
	}
	return h, nil
}

// Locate finds a payment nobody named by hashing every extrinsic of each
// block from from to to (at most 256 blocks): the first match's timepoint,
// or "" when none matches or a block that does not exist ends the scan.
func Locate(ctx context.Context, ref Reference, r Reader, from, to uint64) (string, error) {
	if r == nil || r.Network() != ref.Network {
		return "", rails.Refuse(CodeWrongReader)
	}
	if to < from || to-from > MaxLocateRange {
		return "", rails.Refuse(CodeRange)
	}
	for n := from; n <= to; n++ {
		height := strconv.FormatUint(n, 10)
		raws, err := r.RawExtrinsics(ctx, height)
		if err != nil {
			return "", rails.Refuse(CodeUnreadable)
		}
		if raws == nil {
			return "", nil
		}
		for i, raw := range raws {
			if !mpp.IsHex(raw) || len(raw) > 2+2*MaxExtrinsic {
				continue
			}
			xt, _ := hex.DecodeString(raw[2:])
			d := ExtrinsicHash(xt)
			if !hashEq("0x"+hex.EncodeToString(d[:]), ref.ExtrinsicHash) {
				continue
			}
			x, err := r.Extrinsic(ctx, height, i)
			if err != nil {
				return "", rails.Refuse(CodeUnreadable)
			}
			if x == nil {
				return "", nil
			}
			return Timepoint(x.BlockHash, i), nil
		}
	}
	return "", nil
}
