package stellar

// Settlement reads of the Stellar pairings through a Reader that asks a
// Soroban RPC (package sorobanrpc): the status of a named transaction
// (TransferStatus), the search for one when none is named (Locate), over
// SEP-41 transfer events (TransferEventTopics, TransferEventOf), and the
// envelope of a pushed MPP credential (Charge.FetchPresented). The rules
// are in docs/stellar.md, "Settlement reads".

import (
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// The states of a settlement read and their reasons.
const (
	StateSettled = "settled"
	StatePending = "pending"
	StateFailed  = "failed"

	WhyNotFound          = "not-found"           // pending: the RPC holds no such transaction (yet)
	WhyUnreadable        = "unreadable"          // pending: the read failed, or its answer or the reference could not be read
	WhyFailed            = "failed"              // failed: the transaction landed and failed
	WhyNotThisInstrument = "not-this-instrument" // failed: it succeeded, but used another authorization or muxed id
)

// Refusals of the readers.
const (
	CodeEventMalformed = "stellar/event-malformed" // not a SEP-41 transfer event, or over MaxEventChars
	CodeWrongReader    = "stellar/wrong-reader"    // the reader serves another network
	CodeUnreadable     = "stellar/unreadable"      // the read failed or its answer is not a transaction
	CodeNotFound       = "stellar/not-found"       // no such transaction, or none with an envelope
)

// Bounds of the search and of an event's XDR.
const (
	MaxEventChars   = 1024 // base64 characters of one topic or value
	MaxLocatePages  = 10
	MaxLocateEvents = 50 // candidates read in one search
)

// Transaction statuses getTransaction answers.
const (
	TxSuccess  = "SUCCESS"
	TxFailed   = "FAILED"
	TxNotFound = "NOT_FOUND"
)

// Landed is a getTransaction answer: its status, and for a landed one its
// envelope (base64 XDR) and ledger.
type Landed struct {
	Status   string
	Envelope string
	Ledger   int64 // -1 when the answer has none
}

// Transfers asks for one page of an asset's transfer events to ToBase in
// FromLedger…ToLedger, after Cursor ("" for the first page).
type Transfers struct {
	Asset, ToBase        string
	FromLedger, ToLedger uint32
	Cursor               string
}

// TransferEvent is one transfer event: its transaction and to_muxed_id
// (nil when it carries none).
type TransferEvent struct {
	TxHash    string
	ToBase    string
	ToMuxedID *uint64
	Amount    string // the i128 amount in decimal, "" when the data is a map without one
}

// TransferPage is one page of events: Cursor is "" on the last page;
// OldestLedger the oldest ledger the RPC holds.
type TransferPage struct {
	Events       []TransferEvent
	Cursor       string
	OldestLedger int64
}

// Reader reads one Stellar network through its RPC.
type Reader interface {
	Network() string
	// Transaction is getTransaction of hash (64 lowercase hex).
	Transaction(hash string) (Landed, error)
	// Transfers is one page of getEvents for q.
	Transfers(q Transfers) (TransferPage, error)
	// LatestLedger is getLatestLedger's sequence.
	LatestLedger() (int64, error)
}

// Status is what a settlement read found.
type Status struct {
	State  string
	Ledger int64  // settled: the ledger holding it
	Why    string // pending or failed
}

// JSON is the status as the vectors write it: {state, ledger} when settled,
// else {state, why}.
func (s Status) JSON() *jsonv.Object {
	if s.State == StateSettled {
		return jsonv.Obj("state", s.State, "ledger", s.Ledger)
	}
	return jsonv.Obj("state", s.State, "why", s.Why)
}

func pendingStatus(why string) Status { return Status{State: StatePending, Why: why} }
func failedStatus(why string) Status  { return Status{State: StateFailed, Why: why} }

func isTxHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// stellarRef is a reference's read keys (Reference's, with transaction).
type stellarRef struct {
	network, transaction, authDigest, asset, toBase, toID string
	expiration, from                                      uint32
}

func readStellarRef(o *jsonv.Object) (stellarRef, bool) {
	var r stellarRef
	r.network, _ = o.GetString("network")
	r.transaction, _ = o.GetString("transaction")
	r.authDigest, _ = o.GetString("authDigest")
	r.asset, _ = o.GetString("asset")
	r.toBase, _ = o.GetString("toBase")
	r.toID, _ = o.GetString("toId")
	u32 := func(k string) (uint32, bool) {
		v, _ := o.Get(k)
		n, ok := jsonv.AsSafeInt(v)
		return uint32(n), ok && n >= 0 && n <= 1<<32-1
	}
	var ok1, ok2 bool
	r.expiration, ok1 = u32("expiration")
	r.from, ok2 = u32("fromLedger")
	d := strings.TrimPrefix(strings.ToLower(r.authDigest), "0x")
	if _, ok := NetworkID(r.network); !ok || !ok1 || !ok2 || len(d) != 64 || !strings.HasPrefix(strings.ToLower(r.authDigest), "0x") {
		return r, false
	}
	if _, err := hex.DecodeString(d); err != nil {
		return r, false
	}
	if _, err := strconv.ParseUint(r.toID, 10, 64); err != nil {
		return r, false
	}
	return r, true
}

// readNamed reads one transaction: settled when it succeeded as one
// transfer whose payer entry's preimage digest and to's muxed id are the
// reference's; a failed transaction is failed; a successful one that is no
// such transfer, or another signing, is failed not-this-instrument. One
// call.
func readNamed(rf stellarRef, hash string, r Reader) Status {
	l, err := r.Transaction(strings.ToLower(hash))
	if err != nil {
		return pendingStatus(WhyUnreadable)
	}
	switch l.Status {
	case TxNotFound:
		return pendingStatus(WhyNotFound)
	case TxFailed:
		return failedStatus(WhyFailed)
	case TxSuccess:
	default:
		return pendingStatus(WhyUnreadable)
	}
	if l.Envelope == "" || l.Ledger < 0 {
		return pendingStatus(WhyUnreadable)
	}
	t, err := ReadSignedTransfer(l.Envelope, rf.network)
	if err != nil || !t.Agrees || t.ToMux == nil {
		return failedStatus(WhyNotThisInstrument)
	}
	d, err := t.PreimageHash(rf.network)
	if err != nil || "0x"+hexOf(d[:]) != strings.ToLower(rf.authDigest) || strconv.FormatUint(t.ToMux.ID, 10) != rf.toID {
		return failedStatus(WhyNotThisInstrument)
	}
	return Status{State: StateSettled, Ledger: l.Ledger}
}

// TransferStatus is the settlement of x402/exact/stellar and
// mpp/charge/stellar by the transaction a reference names ({network,
// transaction, authDigest, asset, toBase, toId, expiration, fromLedger}):
// readNamed. A reader of another network, or a reference it cannot read,
// is pending unreadable. One call.
func TransferStatus(o *jsonv.Object, r Reader) Status {
	rf, ok := readStellarRef(o)
	if r == nil || !ok || rf.network != r.Network() || !isTxHash(rf.transaction) {
		return pendingStatus(WhyUnreadable)
	}
	return readNamed(rf, rf.transaction, r)
}

// Locate searches for the payment when no transaction was named: the
// asset's transfer events to toBase from fromLedger to the expiration,
// keeping those whose to_muxed_id is toId, each read as TransferStatus
// reads. It returns the transaction found, or none, and whether the search
// was complete: every page read (at most MaxLocatePages), the RPC still
// holding fromLedger, and every candidate (at most MaxLocateEvents) read to
// a final answer. A candidate that reads pending leaves it incomplete.
func Locate(o *jsonv.Object, r Reader) (found string, complete bool) {
	rf, ok := readStellarRef(o)
	if r == nil || !ok || rf.network != r.Network() {
		return "", false
	}
	cursor := ""
	candidates := 0
	for page := 0; page < MaxLocatePages; page++ {
		p, err := r.Transfers(Transfers{Asset: rf.asset, ToBase: rf.toBase, FromLedger: rf.from, ToLedger: rf.expiration, Cursor: cursor})
		if err != nil || p.OldestLedger < 0 || p.OldestLedger > int64(rf.from) {
			return "", false
		}
		for _, e := range p.Events {
			if e.ToMuxedID == nil || strconv.FormatUint(*e.ToMuxedID, 10) != rf.toID || !isTxHash(e.TxHash) {
				continue
			}
			if candidates++; candidates > MaxLocateEvents {
				return "", false
			}
			switch s := readNamed(rf, e.TxHash, r); s.State {
			case StateSettled:
				return strings.ToLower(e.TxHash), true
			case StatePending:
				return "", false
			}
		}
		if p.Cursor == "" {
			return "", true
		}
		cursor = p.Cursor
	}
	return "", false
}

func symbolScVal(s string) xdr.ScVal {
	sym := xdr.ScSymbol(s)
	return xdr.ScVal{Type: xdr.ScValTypeScvSymbol, Sym: &sym}
}

func scValBase64(v xdr.ScVal) string {
	b, _ := v.MarshalBinary()
	return base64.StdEncoding.EncodeToString(b)
}

// TransferEventTopics is the getEvents topic filter for SEP-41 transfer
// events to toBase (a G… account or C… contract): the symbol transfer, any
// from, toBase as an address, then any trailing topics (the Stellar Asset
// Contract adds its asset). Another toBase is stellar/option-malformed.
func TransferEventTopics(toBase string) ([]string, error) {
	var a xdr.ScAddress
	if k, ok := DecodeAccount(toBase); ok {
		u := xdr.Uint256(k)
		a = xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeAccount, AccountId: &xdr.AccountId{Type: xdr.PublicKeyTypePublicKeyTypeEd25519, Ed25519: &u}}
	} else if c, ok := DecodeContract(toBase); ok {
		id := xdr.ContractId(c)
		a = xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &id}
	} else {
		return nil, refuse(CodeOptionMalformed)
	}
	return []string{scValBase64(symbolScVal("transfer")), "*", scValBase64(xdr.ScVal{Type: xdr.ScValTypeScvAddress, Address: &a}), "**"}, nil
}

func eventScVal(s string) (*xdr.ScVal, bool) {
	if len(s) > MaxEventChars {
		return nil, false
	}
	raw, ok := DecodeBase64(s)
	if !ok {
		return nil, false
	}
	return DecodeScVal(raw)
}

// TransferEventOf reads a transfer event's topics and data (base64 XDR
// ScVals): three or four topics, the first the symbol transfer, the third
// the recipient's address; data an i128 amount, or a map whose
// to_muxed_id, when it is a u64, is the muxed id (the string and bytes
// forms carry none). The recipient is its non-muxed base. Anything else,
// or a topic or value over MaxEventChars, is stellar/event-malformed.
func TransferEventOf(topic []string, value string) (TransferEvent, error) {
	bad := refuse(CodeEventMalformed)
	if len(topic) < 3 || len(topic) > 4 {
		return TransferEvent{}, bad
	}
	ts := make([]*xdr.ScVal, len(topic))
	for i, s := range topic {
		v, ok := eventScVal(s)
		if !ok {
			return TransferEvent{}, bad
		}
		ts[i] = v
	}
	if ts[0].Type != xdr.ScValTypeScvSymbol || ts[0].Sym == nil || string(*ts[0].Sym) != "transfer" {
		return TransferEvent{}, bad
	}
	if ts[2].Type != xdr.ScValTypeScvAddress || ts[2].Address == nil {
		return TransferEvent{}, bad
	}
	to, ok := addressStrkey(*ts[2].Address)
	if !ok {
		return TransferEvent{}, bad
	}
	e := TransferEvent{ToBase: to}
	if m, ok := DecodeMuxed(to); ok {
		e.ToBase = m.Base()
	}
	data, ok := eventScVal(value)
	if !ok {
		return TransferEvent{}, bad
	}
	switch data.Type {
	case xdr.ScValTypeScvI128:
		e.Amount = i128(*data.I128).String()
	case xdr.ScValTypeScvMap:
		if data.Map == nil || *data.Map == nil {
			break
		}
		for _, kv := range **data.Map {
			if kv.Key.Type != xdr.ScValTypeScvSymbol || kv.Key.Sym == nil {
				continue
			}
			switch string(*kv.Key.Sym) {
			case "to_muxed_id":
				if kv.Val.Type == xdr.ScValTypeScvU64 && kv.Val.U64 != nil {
					id := uint64(*kv.Val.U64)
					e.ToMuxedID = &id
				}
			case "amount":
				if kv.Val.Type == xdr.ScValTypeScvI128 && kv.Val.I128 != nil {
					e.Amount = i128(*kv.Val.I128).String()
				}
			}
		}
	default:
		return TransferEvent{}, bad
	}
	return e, nil
}

// FetchPresented completes a pushed mpp/charge/stellar credential (payload
// {type: "hash", hash}) with the landed envelope of the transaction it
// names: the credential with payload.transaction added. Any other
// credential is returned unchanged. Refusals: mpp/credential-malformed, the
// echoed challenge's, stellar/wrong-reader, stellar/unreadable (a failed
// read), stellar/not-found (none, or none with an envelope); the seller
// retries the last two. One call.
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
	if network, _ := e.Checked.Details.GetString("network"); r == nil || r.Network() != network {
		return nil, rails.Refuse(CodeWrongReader)
	}
	hash, _ := payload.GetString("hash")
	if !isTxHash(hash) {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	l, err := r.Transaction(strings.ToLower(hash))
	if err != nil {
		return nil, rails.Refuse(CodeUnreadable)
	}
	if l.Status == TxNotFound || l.Envelope == "" {
		return nil, rails.Refuse(CodeNotFound)
	}
	out := c.Clone()
	p, _ := out.GetObject("payload")
	p.Set("transaction", l.Envelope)
	return out, nil
}
