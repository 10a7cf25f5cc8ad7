package aptos

import (
	"context"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
)

// A seller's view of a claimed payment (docs/aptos.md, "Settlement"),
// read over the node's REST API: by the transaction's hash when the
// reference has one, else (or when that answer is another instrument's) by
// the sender's sequence number. The payment is the committed user
// transaction whose instrument (its normal form) has the reference's id
// digest: settled when it succeeded, failed (aborted) when not. Another
// instrument committed at the sequence number is failed (superseded); none
// is pending until the ledger's time passes the expiry, then failed
// (expired).

// Reference names a payment.
type Reference struct {
	Network     string
	Sender      Address
	Sequence    uint64
	ExpiresAt   uint64 // Unix seconds
	IDDigest    [32]byte
	Transaction *[32]byte // the hash, when known
}

// Reader reads one network's REST API; every failure is an error, a
// transaction the node does not hold is nil.
type Reader interface {
	Network() string
	ByHash(ctx context.Context, hash [32]byte) (*jsonv.Object, error)
	BySequence(ctx context.Context, sender Address, sequence uint64) (*jsonv.Object, error)
	LedgerUsecs(ctx context.Context) (uint64, error)
}

// Status is settled (Version, Hash), pending (in-mempool, not-found,
// unreadable) or failed (aborted, superseded, expired).
type Status struct {
	State, Why    string
	Version, Hash string
}

func u64Of(v jsonv.Value) (uint64, bool) {
	s, ok := v.(string)
	if !ok || s == "" || len(s) > 20 || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// longType writes address::module::name with the address long; a generic
// type or any other text is false.
func longType(s string) (string, bool) {
	addr, rest, ok := strings.Cut(s, "::")
	a, okA := ParseAddress(addr)
	mod, name, ok2 := strings.Cut(rest, "::")
	if !ok || !okA || !ok2 || !isIdentifier(mod) || !isIdentifier(name) {
		return "", false
	}
	return a.String() + "::" + mod + "::" + name, true
}

// Committed reads a REST user_transaction's instrument: sender, sequence
// number and the x402 transfer of its entry_function_payload, as its
// normal form; false when it is not that shape.
func Committed(o *jsonv.Object) (*jsonv.Object, Address, uint64, bool) {
	get := func(o *jsonv.Object, k string) jsonv.Value { v, _ := o.Get(k); return v }
	str := func(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }
	sender, okS := ParseAddress(str(o, "sender"))
	seq, okQ := u64Of(get(o, "sequence_number"))
	p, okP := o.GetObject("payload")
	if !okS || !okQ || !okP || str(p, "type") != "entry_function_payload" {
		return nil, sender, seq, false
	}
	fn, okF := longType(str(p, "function"))
	ta, _ := jsonv.AsArray(get(p, "type_arguments"))
	args, _ := jsonv.AsArray(get(p, "arguments"))
	if !okF || fn != TransferFunction || len(ta) != 1 || len(args) != 3 {
		return nil, sender, seq, false
	}
	t, _ := ta[0].(string)
	if lt, ok := longType(t); !ok || lt != MetadataTypeLong {
		return nil, sender, seq, false
	}
	meta, _ := args[0].(string)
	if inner, ok := jsonv.AsObject(args[0]); ok && inner.Len() == 1 {
		meta = str(inner, "inner")
	}
	recipient, _ := args[1].(string)
	m, okM := ParseAddress(meta)
	r, okR := ParseAddress(recipient)
	amount, okA := u64Of(args[2])
	if !okM || !okR || !okA {
		return nil, sender, seq, false
	}
	return NormalForm(sender, seq, Transfer{Metadata: m, Recipient: r, Amount: amount}), sender, seq, true
}

// decide judges a user_transaction answer against ref: mine (settled or
// aborted), another instrument at the sender's sequence (superseded), or
// neither (not ours: the caller reads on).
func decide(o *jsonv.Object, ref Reference) (Status, string) {
	if typ, _ := o.GetString("type"); typ == "pending_transaction" {
		return Status{State: "pending", Why: "in-mempool"}, "mine"
	}
	normal, sender, seq, ok := Committed(o)
	if typ, _ := o.GetString("type"); typ != "user_transaction" || sender != ref.Sender || seq != ref.Sequence {
		return Status{}, "other"
	}
	if !ok || IDDigest(normal) != ref.IDDigest {
		return Status{State: "failed", Why: "superseded"}, "superseded"
	}
	success, _ := o.Get("success")
	hash, _ := o.GetString("hash")
	version, okV := o.GetString("version")
	if !okV {
		return Status{State: "pending", Why: "unreadable"}, "mine"
	}
	if success != true {
		return Status{State: "failed", Why: "aborted", Version: version, Hash: hash}, "mine"
	}
	return Status{State: "settled", Version: version, Hash: hash}, "mine"
}

// PaymentStatus reads ref: by hash first when it has one, then by
// sequence, then the ledger's time.
func PaymentStatus(ctx context.Context, ref Reference, r Reader) Status {
	unreadable := Status{State: "pending", Why: "unreadable"}
	if r == nil || r.Network() != ref.Network {
		return unreadable
	}
	if ref.Transaction != nil {
		o, err := r.ByHash(ctx, *ref.Transaction)
		if err != nil {
			return unreadable
		}
		if o != nil {
			if st, how := decide(o, ref); how == "mine" {
				return st
			}
		}
	}
	o, err := r.BySequence(ctx, ref.Sender, ref.Sequence)
	if err != nil {
		return unreadable
	}
	if o != nil {
		st, how := decide(o, ref)
		if how == "other" {
			return unreadable // an answer for another sender or sequence number
		}
		return st
	}
	us, err := r.LedgerUsecs(ctx)
	if err != nil {
		return unreadable
	}
	if us/1_000_000 > ref.ExpiresAt {
		return Status{State: "failed", Why: "expired"}
	}
	return Status{State: "pending", Why: "not-found"}
}
