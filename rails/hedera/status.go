package hedera

// The settlement read of a Hedera payment from a Mirror Node
// (GET /api/v1/transactions/{id}, https://mainnet.mirrornode.hedera.com/api/v1/docs/):
// docs/hedera.md, "Settlement".

import (
	"encoding/base64"
	"unicode/utf8"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// Entry is one Mirror Node transaction entry: the members read here.
type Entry struct {
	Result     string
	MemoBase64 string // "" for null
	Nonce      int64
	Scheduled  bool
	Consensus  string
	// Transfers are the record's HBAR transfers, as the Mirror Node lists
	// them (read for x402/exact/hedera/transfer-executor's child record).
	Transfers []Transfer
}

// Reader reads one network's Mirror Node.
type Reader interface {
	Network() string
	// Transactions is every entry of the transaction id (Mirror form);
	// found false on a 404.
	Transactions(mirrorID string) (entries []Entry, found bool, err error)
}

// The states of a settlement.
const (
	StateSettled = "settled"
	StatePending = "pending"
	StateFailed  = "failed"
)

// Status is what the read found: settled with its consensus timestamp,
// pending or failed with why.
type Status struct {
	State, Consensus, Why string
}

// JSON is the status as the vectors write it.
func (s Status) JSON() *jsonv.Object {
	if s.State == StateSettled {
		return jsonv.Obj("state", s.State, "consensus", s.Consensus)
	}
	return jsonv.Obj("state", s.State, "why", s.Why)
}

// counted are the user transaction's own entries: nonce 0, not scheduled,
// not a rejected duplicate submission.
func counted(entries []Entry) []Entry {
	var out []Entry
	for _, e := range entries {
		if e.Nonce == 0 && !e.Scheduled && e.Result != "DUPLICATE_TRANSACTION" {
			out = append(out, e)
		}
	}
	return out
}

func entriesOf(ref *jsonv.Object, r Reader) ([]Entry, string) {
	network, _ := ref.GetString("network")
	id, _ := ref.GetString("transactionId")
	if r == nil || network == "" || r.Network() != network || id == "" {
		return nil, "unreadable"
	}
	entries, found, err := r.Transactions(id)
	switch {
	case err != nil:
		return nil, "unreadable"
	case !found:
		return nil, "not-found"
	}
	return entries, ""
}

// StatusOf reads ref ({network, transactionId, expectMemo}): the user
// transaction with SUCCESS and the recorded memo is settled; with another
// memo failed not-this-instrument; another result failed result:<it>;
// none found pending not-found; a failed read, a reader of another network
// or a memo that is not base64 pending unreadable. One read.
func StatusOf(ref *jsonv.Object, r Reader) Status {
	entries, why := entriesOf(ref, r)
	if why != "" {
		return Status{State: StatePending, Why: why}
	}
	own := counted(entries)
	want, _ := ref.GetString("expectMemo")
	for _, e := range own {
		if e.Result != "SUCCESS" {
			continue
		}
		memo, err := base64.StdEncoding.DecodeString(e.MemoBase64)
		if err != nil {
			return Status{State: StatePending, Why: "unreadable"}
		}
		if string(memo) != want {
			return Status{State: StateFailed, Why: "not-this-instrument"}
		}
		return Status{State: StateSettled, Consensus: e.Consensus}
	}
	if len(own) == 0 {
		return Status{State: StatePending, Why: "not-found"}
	}
	return Status{State: StateFailed, Why: "result:" + own[0].Result}
}

// Refusals of Recover.
const (
	CodeWrongReader = "hedera/wrong-reader"
	CodeUnreadable  = "hedera/unreadable"
	CodeNotFound    = "hedera/not-found"
)

// Recover is zero-party recovery of H from the landed user transaction's
// memo, for anyone holding the transaction id. One read.
func Recover(ref *jsonv.Object, r Reader) (string, error) {
	network, _ := ref.GetString("network")
	if r == nil || r.Network() != network {
		return "", rails.Refuse(CodeWrongReader)
	}
	entries, why := entriesOf(ref, r)
	switch why {
	case "unreadable":
		return "", rails.Refuse(CodeUnreadable)
	case "not-found":
		return "", rails.Refuse(CodeNotFound)
	}
	for _, e := range counted(entries) {
		if e.Result != "SUCCESS" {
			continue
		}
		memo, err := base64.StdEncoding.DecodeString(e.MemoBase64)
		if err != nil {
			return "", rails.Refuse(CodeUnreadable)
		}
		if !utf8.Valid(memo) {
			return "", rails.Refuse(CodeMemoNotLCP)
		}
		return MemoH(string(memo))
	}
	return "", rails.Refuse(CodeNotFound)
}
