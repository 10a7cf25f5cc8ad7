package solana

import (
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
)

// Listed is one entry of getSignaturesForAddress: a signature, its slot and
// the node's rendering of its memos ("[len] text"; HasMemo false when the
// node gave null).
type Listed struct {
	Signature string
	Slot      uint64
	Memo      string
	HasMemo   bool
}

// Locator is a Reader that can also list an address's signatures, newest
// first, and say from which slot it still holds blocks.
type Locator interface {
	Reader
	// FirstAvailableBlock is getFirstAvailableBlock: the lowest slot the
	// node still holds.
	FirstAvailableBlock() (uint64, error)
	// Signatures is getSignaturesForAddress: at most limit entries, newest
	// first, before the signature before ("" for the newest).
	Signatures(address, before string, limit int) ([]Listed, error)
}

// Bounds of a search: pages of LocatePage signatures, at most
// LocatePages of them, and at most LocateCandidates transactions read.
const (
	LocatePage       = 1000
	LocatePages      = 10
	LocateCandidates = 50
)

// Located is what a search found: the signature of the payment (empty for
// none) and whether the search is complete, so that finding nothing means
// there is nothing.
type Located struct {
	Found    string
	Complete bool
}

// JSON is the result as the vectors write it: {found?, complete}.
func (l Located) JSON() *jsonv.Object {
	o := jsonv.Obj()
	if l.Found != "" {
		o.Set("found", l.Found)
	}
	o.Set("complete", l.Complete)
	return o
}

// Locate finds the payment ref describes when no transaction was named
// (docs/protocol.md, "Solana settlement reads"): it pages ref.feePayer's
// signatures (ref.channel's, when given) newest first down to ref.fromSlot,
// at most LocatePages pages of LocatePage. A signature is a candidate when
// its memo carries h's carrier (case-insensitively), or every signature is
// with a channel; each candidate is read through status with ref's
// transaction set to it, at most LocateCandidates of them. The first
// settled is found. The search is complete only when the node's first
// available block is at or before fromSlot, the pages reach fromSlot within
// those bounds, and no candidate read pending. A failed or malformed read
// is incomplete.
func Locate(ref *jsonv.Object, r Locator, h atr.Hash, status func(*jsonv.Object, Reader) Status) Located {
	incomplete := Located{}
	network, _ := ref.GetString("network")
	fs, _ := ref.GetString("fromSlot")
	fromSlot, err := strconv.ParseUint(fs, 10, 64)
	if r == nil || network == "" || network != r.Network() || err != nil {
		return incomplete
	}
	address, _ := ref.GetString("feePayer")
	channel, byChannel := ref.GetString("channel")
	if _, has := ref.Get("channel"); has && !byChannel {
		return incomplete
	}
	if byChannel {
		address = channel
	}
	if _, ok := ParseKey(address); !ok {
		return incomplete
	}
	carrier := strings.ToLower(Carrier(h))
	first, err := r.FirstAvailableBlock()
	if err != nil || first > fromSlot {
		return incomplete
	}
	before, candidates := "", 0
	for page := 0; page < LocatePages; page++ {
		list, err := r.Signatures(address, before, LocatePage)
		if err != nil || len(list) > LocatePage {
			return incomplete
		}
		for _, e := range list {
			if e.Slot < fromSlot {
				return Located{Complete: true}
			}
			if !byChannel && (!e.HasMemo || !strings.Contains(strings.ToLower(e.Memo), carrier)) {
				continue
			}
			if candidates++; candidates > LocateCandidates {
				return incomplete
			}
			c := ref.Clone()
			c.Set("transaction", e.Signature)
			switch status(c, r).State {
			case StateSettled:
				return Located{Found: e.Signature, Complete: true}
			case StatePending:
				return incomplete
			}
		}
		if len(list) < LocatePage {
			return Located{Complete: true}
		}
		before = list[len(list)-1].Signature
	}
	return incomplete
}
