package xrpl

// Settlement reads of the XRPL pairings, by the transaction hash computed
// from the signed blob, through a Reader that asks a rippled node (package
// xrplrpc): the status of a charge (x402/exact/xrpl, mpp/charge/xrpl), of a
// session opening and of a reported close (mpp/session/xrpl), the InvoiceID
// of a landed Payment (zero-party recovery), and the blob of a pushed
// credential (FetchPresented). The rules are in docs/xrpl.md, "Settlement
// reads".

import (
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// The states of a settlement read and their reasons.
const (
	StateSettled = "settled"
	StatePending = "pending"
	StateFailed  = "failed"

	// Pending: read again later.
	WhyNotFound     = "not-found"     // the node holds no such transaction (yet)
	WhyNotValidated = "not-validated" // it is in no validated ledger yet
	WhyUnreadable   = "unreadable"    // the read failed, or its answer or the reference could not be read
	// Failed: final.
	WhyExpired           = "expired"             // past LastLedgerSequence, the whole range searched: it can never land
	WhyClaimedFee        = "claimed-fee"         // a tec result: the fee was taken, nothing was paid
	WhyNotThisInstrument = "not-this-instrument" // it landed, but is not this payment (type or InvoiceID)
	WhyNotAClose         = "not-a-close"         // validated, and it deleted no channel the reference names
)

// Refusals of InvoiceOf and FetchPresented.
const (
	CodeWrongReader  = "xrpl/wrong-reader"  // the reader serves another network
	CodeUnreadable   = "xrpl/unreadable"    // the read failed or its answer is not a transaction
	CodeNotFound     = "xrpl/not-found"     // the node holds no such transaction, or no blob for it
	CodeNotValidated = "xrpl/not-validated" // not in a validated ledger yet
	CodeNotSuccess   = "xrpl/not-success"   // validated with another result than tesSUCCESS
)

// Landed is a transaction as rippled's tx method returns it: whether a
// validated ledger holds it, meta.TransactionResult, its ledger, its
// tx_json (TransactionType, InvoiceID, Account, Destination, Amount…),
// meta.delivered_amount, and the PayChannel entries its meta deleted.
type Landed struct {
	Validated       bool
	Result          string
	LedgerIndex     int64 // -1 when the answer has none
	TxJSON          *jsonv.Object
	Delivered       jsonv.Value // nil when the answer has none
	DeletedChannels []string
}

// Type is tx_json.TransactionType.
func (l *Landed) Type() string { s, _ := l.TxJSON.GetString("TransactionType"); return s }

// InvoiceID is tx_json.InvoiceID, "" when absent.
func (l *Landed) InvoiceID() string { s, _ := l.TxJSON.GetString("InvoiceID"); return s }

// Range is the ledgers a tx read searches, min_ledger to max_ledger.
type Range struct{ Min, Max uint32 }

// Reader reads one XRPL network's transactions.
type Reader interface {
	// Network is the CAIP-2 network read (xrpl:0, xrpl:1…).
	Network() string
	// Tx is the transaction hash names, searched within r when r is not
	// nil. Not found is nil with searchedAll: whether the node holds every
	// ledger of r (always false without a range).
	Tx(hash string, r *Range) (l *Landed, searchedAll bool, err error)
	// TxBlob is the signed blob (hex) of the transaction hash names, ""
	// when the node has none.
	TxBlob(hash string) (string, error)
	// ValidatedLedger is the index of the newest validated ledger.
	ValidatedLedger() (int64, error)
}

// Status is what a settlement read found.
type Status struct {
	State       string
	LedgerIndex int64  // settled: the ledger holding it
	Why         string // pending or failed
}

// JSON is the status as the vectors write it: {state, ledgerIndex} when
// settled, else {state, why}.
func (s Status) JSON() *jsonv.Object {
	if s.State == StateSettled {
		return jsonv.Obj("state", s.State, "ledgerIndex", s.LedgerIndex)
	}
	return jsonv.Obj("state", s.State, "why", s.Why)
}

func pending(why string) Status { return Status{State: StatePending, Why: why} }
func failed(why string) Status  { return Status{State: StateFailed, Why: why} }

func isHash256(s string) bool { return len(s) == 64 && isHexDigits(s) }

// ref is a reference's read keys: {network, transaction, expect?,
// lastLedgerSequence (a u32 or null), fromLedger}.
type ref struct {
	network, transaction, expect string
	last                         *uint32
	from                         uint32
}

func readRef(o *jsonv.Object) (ref, bool) {
	var r ref
	r.network, _ = o.GetString("network")
	r.transaction, _ = o.GetString("transaction")
	r.expect, _ = o.GetString("expect")
	if !isHash256(r.transaction) || r.network == "" {
		return r, false
	}
	if v, _ := o.Get("lastLedgerSequence"); v != nil {
		n, ok := jsonv.AsSafeInt(v)
		if !ok || n < 0 || n > 1<<32-1 {
			return r, false
		}
		u := uint32(n)
		r.last = &u
	}
	if v, has := o.Get("fromLedger"); has {
		n, ok := jsonv.AsSafeInt(v)
		if !ok || n < 0 || n > 1<<32-1 {
			return r, false
		}
		r.from = uint32(n)
	}
	return r, true
}

// landedStatus is the shared read of a charge and of an opening: a reader of
// another network, a reference it cannot read or a failed read is pending
// unreadable. Not found: with the whole range up to LastLedgerSequence
// searched and the validated ledger past it, failed expired; else pending
// not-found. Found: not validated is pending; tesSUCCESS is settled when is
// (the type and carrier check) holds, else failed not-this-instrument; a
// tec result is failed claimed-fee; any other result is pending unreadable.
// At most two calls.
func landedStatus(o *jsonv.Object, r Reader, is func(*Landed, ref) bool) Status {
	s, _ := landedRead(o, r, is)
	return s
}

// landedRead is landedStatus with the transaction read, when one was.
func landedRead(o *jsonv.Object, r Reader, is func(*Landed, ref) bool) (Status, *Landed) {
	rf, ok := readRef(o)
	if r == nil || !ok || rf.network != r.Network() {
		return pending(WhyUnreadable), nil
	}
	var rng *Range
	if rf.last != nil {
		rng = &Range{Min: rf.from, Max: *rf.last}
	}
	l, all, err := r.Tx(strings.ToUpper(rf.transaction), rng)
	if err != nil {
		return pending(WhyUnreadable), l
	}
	if l == nil {
		if !all || rf.last == nil {
			return pending(WhyNotFound), l
		}
		v, err := r.ValidatedLedger()
		if err != nil || v < 0 {
			return pending(WhyUnreadable), l
		}
		if v > int64(*rf.last) {
			return failed(WhyExpired), l
		}
		return pending(WhyNotFound), l
	}
	if !l.Validated {
		return pending(WhyNotValidated), l
	}
	switch {
	case l.Result == "tesSUCCESS":
		if !is(l, rf) {
			return failed(WhyNotThisInstrument), l
		}
		if l.LedgerIndex < 0 {
			return pending(WhyUnreadable), l
		}
		return Status{State: StateSettled, LedgerIndex: l.LedgerIndex}, l
	case strings.HasPrefix(l.Result, "tec"):
		return failed(WhyClaimedFee), l
	}
	return pending(WhyUnreadable), l
}

// ChargeStatus is the settlement of x402/exact/xrpl and mpp/charge/xrpl
// (reference {network, transaction, expect, lastLedgerSequence,
// fromLedger}): landedStatus, where the transaction must be a Payment whose
// InvoiceID is the reference's expect (case-insensitive).
func ChargeStatus(o *jsonv.Object, r Reader) Status {
	return landedStatus(o, r, chargeIs)
}

// ChargeRead is ChargeStatus with the transaction it read (nil when none
// was found or the read failed), for a buyer checking what it paid.
func ChargeRead(o *jsonv.Object, r Reader) (Status, *Landed) {
	return landedRead(o, r, chargeIs)
}

func chargeIs(l *Landed, rf ref) bool {
	inv := l.InvoiceID()
	return l.Type() == "Payment" && isHash256(inv) && isHash256(rf.expect) && strings.EqualFold(inv, rf.expect)
}

// OpenStatus is the settlement of an mpp/session/xrpl opening (reference
// {network, transaction, lastLedgerSequence, fromLedger}): landedStatus,
// where the transaction must be a PaymentChannelCreate.
func OpenStatus(o *jsonv.Object, r Reader) Status {
	return landedStatus(o, r, func(l *Landed, _ ref) bool { return l.Type() == "PaymentChannelCreate" })
}

// CloseStatus reads a reported session close, reference {network, channel,
// transaction}: validated with the channel among the PayChannel entries its
// meta deleted is settled; validated without it failed not-a-close; not
// validated, not found or unreadable pending. One call.
func CloseStatus(o *jsonv.Object, r Reader) Status {
	network, _ := o.GetString("network")
	channel, _ := o.GetString("channel")
	tx, _ := o.GetString("transaction")
	if r == nil || network == "" || network != r.Network() || !isHash256(tx) || !isHash256(channel) {
		return pending(WhyUnreadable)
	}
	l, _, err := r.Tx(strings.ToUpper(tx), nil)
	switch {
	case err != nil:
		return pending(WhyUnreadable)
	case l == nil:
		return pending(WhyNotFound)
	case !l.Validated:
		return pending(WhyNotValidated)
	}
	for _, c := range l.DeletedChannels {
		if strings.EqualFold(c, channel) {
			if l.LedgerIndex < 0 {
				return pending(WhyUnreadable)
			}
			return Status{State: StateSettled, LedgerIndex: l.LedgerIndex}
		}
	}
	return failed(WhyNotAClose)
}

// InvoiceOf is zero-party recovery ({network, transaction}): the InvoiceID
// of a validated tesSUCCESS Payment, as a candidate H (0x and lowercase
// hex). A reader of another network is xrpl/wrong-reader; a failed read or
// a hash it cannot read xrpl/unreadable; none found xrpl/not-found; not
// validated xrpl/not-validated; another result or type xrpl/not-success; no
// 64-hex InvoiceID xrpl/no-invoice-id. One call.
func InvoiceOf(o *jsonv.Object, r Reader) (string, error) {
	network, _ := o.GetString("network")
	tx, _ := o.GetString("transaction")
	if r == nil || network == "" || network != r.Network() {
		return "", rails.Refuse(CodeWrongReader)
	}
	if !isHash256(tx) {
		return "", rails.Refuse(CodeUnreadable)
	}
	l, _, err := r.Tx(strings.ToUpper(tx), nil)
	switch {
	case err != nil:
		return "", rails.Refuse(CodeUnreadable)
	case l == nil:
		return "", rails.Refuse(CodeNotFound)
	case !l.Validated:
		return "", rails.Refuse(CodeNotValidated)
	case l.Result != "tesSUCCESS" || l.Type() != "Payment":
		return "", rails.Refuse(CodeNotSuccess)
	}
	inv := l.InvoiceID()
	if !isHash256(inv) {
		return "", rails.Refuse(CodeNoInvoiceID)
	}
	return "0x" + strings.ToLower(inv), nil
}

// FetchPresented completes a pushed mpp/charge/xrpl credential (payload
// {type: "hash", hash}) with the signed blob of the transaction it names,
// once a validated ledger holds it with tesSUCCESS: the credential with
// payload.blob added. Any other credential is returned unchanged. Refusals:
// mpp/credential-malformed, the echoed challenge's, xrpl/wrong-reader, and
// xrpl/unreadable, xrpl/not-found, xrpl/not-validated (each one the seller
// retries), xrpl/not-success. At most two calls.
func (Charge) FetchPresented(credential jsonv.Value, r Reader) (jsonv.Value, error) {
	c, ok := jsonv.AsObject(credential)
	payload, okp := c.GetObject("payload")
	if !ok || !okp {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if t, _ := payload.GetString("type"); t != "hash" {
		return credential, nil
	}
	e, err := mpp.Echoed(credential, ChargeID)
	if err != nil {
		return nil, err
	}
	network, err := mpp.Network(e.Challenge)
	if err != nil {
		return nil, err
	}
	if r == nil || r.Network() != network {
		return nil, rails.Refuse(CodeWrongReader)
	}
	hash, _ := payload.GetString("hash")
	if !isHash256(hash) {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	hash = strings.ToUpper(hash)
	l, _, err := r.Tx(hash, nil)
	switch {
	case err != nil:
		return nil, rails.Refuse(CodeUnreadable)
	case l == nil:
		return nil, rails.Refuse(CodeNotFound)
	case !l.Validated:
		return nil, rails.Refuse(CodeNotValidated)
	case l.Result != "tesSUCCESS":
		return nil, rails.Refuse(CodeNotSuccess)
	}
	blob, err := r.TxBlob(hash)
	if err != nil {
		return nil, rails.Refuse(CodeUnreadable)
	}
	if blob == "" {
		return nil, rails.Refuse(CodeNotFound)
	}
	out := c.Clone()
	p, _ := out.GetObject("payload")
	p.Set("blob", blob)
	return out, nil
}
