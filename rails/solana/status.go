package solana

// The settlement status of a Solana payment, read from the transaction a
// reference names (ReferenceOf: {network, transaction, digest, feePayer,
// blockhash, nonce?}) as a node returns it from getTransaction
// (https://solana.com/docs/rpc/http/gettransaction, encoding base64). The
// transaction must be the message the payer signed (by digest), must have
// executed without error, and must carry what the pairing needs: a token or
// SOL transfer for x402/exact/solana, one channel open or top-up for
// x402/batch-settlement/solana. A reported session close is read by
// program and channel instead (CloseStatus). See docs/protocol.md, "Solana
// settlement reads".

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// The states of a settlement, its commitments, and the reasons.
const (
	StateSettled = "settled"
	StatePending = "pending"
	StateFailed  = "failed"

	CommitmentFinalized = "finalized"
	CommitmentConfirmed = "confirmed"

	// Pending: read again later.
	WhyNotFound   = "not-found"  // the node holds no such transaction (yet)
	WhyUnreadable = "unreadable" // the read failed, or its answer or the reference could not be read
	// Failed: this transaction is not the payment.
	WhyErr                  = "err"                    // it landed and failed (meta.err)
	WhyNotThisInstrument    = "not-this-instrument"    // its message is not the one the reference's digest names
	WhyNoTransfer           = "no-transfer"            // it moved no token and no SOL
	WhyNoChannelInstruction = "no-channel-instruction" // it opened or topped up no channel
	WhyNotAClose            = "not-a-close"            // it closed no channel the reference names
	WhyNonceMoved           = "nonce-moved"            // never found, and its durable nonce has moved on: it can never land
)

// Status is what a settlement read found.
type Status struct {
	State      string // StateSettled, StatePending or StateFailed
	Commitment string // settled: CommitmentFinalized or CommitmentConfirmed
	Why        string // pending or failed: the reason
}

// JSON is the status as the vectors write it: {state, commitment} when
// settled, else {state, why}.
func (s Status) JSON() *jsonv.Object {
	if s.State == StateSettled {
		return jsonv.Obj("state", s.State, "commitment", s.Commitment)
	}
	return jsonv.Obj("state", s.State, "why", s.Why)
}

func pendingStatus(why string) Status { return Status{State: StatePending, Why: why} }
func failedStatus(why string) Status  { return Status{State: StateFailed, Why: why} }

// Landed is a transaction as a node returns it: its wire bytes, meta.err
// (nil when it executed without error), the addresses its lookup tables
// loaded (meta.loadedAddresses: writable, then readonly) and its inner
// instructions, flattened, whose indexes count the static keys and then
// the loaded ones.
type Landed struct {
	Slot   uint64
	Wire   []byte
	Err    jsonv.Value
	Loaded []Key
	Inner  []Instruction
}

// Reader reads one Solana network's transactions.
type Reader interface {
	// Network is the CAIP-2 network the reader reads.
	Network() string
	// Transaction is the transaction signature names, at commitment
	// (CommitmentFinalized or CommitmentConfirmed); nil, nil when the
	// node has none.
	Transaction(signature, commitment string) (*Landed, error)
}

// Bounds on what LandedOf accepts from a node: a transaction holds at most
// 256 keys, so a larger table or index cannot be one.
const (
	maxKeys  = 256
	maxInner = 4096
)

var errLanded = errors.New("solana: the node's transaction is not in getTransaction's base64 shape")

// LandedOf reads a getTransaction result (encoding base64): {slot,
// transaction: [base64, "base64"], meta: {err, loadedAddresses?,
// innerInstructions?}}. A null result is nil, nil (no such transaction).
// Any other shape, a wire that is not base64, an inner instruction whose
// indexes do not fit a transaction, or too many of them is an error.
func LandedOf(result jsonv.Value) (*Landed, error) {
	if result == nil {
		return nil, nil
	}
	o, ok := jsonv.AsObject(result)
	if !ok {
		return nil, errLanded
	}
	l := &Landed{}
	if sv, has := o.Get("slot"); has {
		n, ok := jsonv.AsSafeInt(sv)
		if !ok || n < 0 {
			return nil, errLanded
		}
		l.Slot = uint64(n)
	}
	tv, _ := o.Get("transaction")
	pair, _ := jsonv.AsArray(tv)
	if len(pair) != 2 || pair[1] != "base64" {
		return nil, errLanded
	}
	text, _ := pair[0].(string)
	if len(text) > 4*MaxWire {
		return nil, errLanded
	}
	wire, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return nil, errLanded
	}
	l.Wire = wire
	meta, ok := o.GetObject("meta")
	if !ok {
		return nil, errLanded
	}
	ev, has := meta.Get("err")
	if !has {
		return nil, errLanded
	}
	l.Err = ev
	if lv, has := meta.Get("loadedAddresses"); has && lv != nil {
		la, ok := jsonv.AsObject(lv)
		if !ok {
			return nil, errLanded
		}
		for _, k := range []string{"writable", "readonly"} {
			av, _ := la.Get(k)
			keys, ok := jsonv.AsArray(av)
			if av != nil && !ok || len(l.Loaded)+len(keys) > maxKeys {
				return nil, errLanded
			}
			for _, kv := range keys {
				s, _ := kv.(string)
				key, ok := ParseKey(s)
				if !ok {
					return nil, errLanded
				}
				l.Loaded = append(l.Loaded, key)
			}
		}
	}
	if iv, has := meta.Get("innerInstructions"); has && iv != nil {
		groups, ok := jsonv.AsArray(iv)
		if !ok {
			return nil, errLanded
		}
		for _, gv := range groups {
			g, _ := jsonv.AsObject(gv)
			xv, _ := g.Get("instructions")
			ixs, ok := jsonv.AsArray(xv)
			if !ok || len(l.Inner)+len(ixs) > maxInner {
				return nil, errLanded
			}
			for _, xv := range ixs {
				ix, ok := innerOf(xv)
				if !ok {
					return nil, errLanded
				}
				l.Inner = append(l.Inner, ix)
			}
		}
	}
	return l, nil
}

// innerOf reads one inner instruction: {programIdIndex, accounts, data
// (base58)}.
func innerOf(v jsonv.Value) (Instruction, bool) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return Instruction{}, false
	}
	index := func(v jsonv.Value) (uint8, bool) {
		n, ok := jsonv.AsSafeInt(v)
		return uint8(n), ok && n >= 0 && n < maxKeys
	}
	pv, _ := o.Get("programIdIndex")
	program, okProgram := index(pv)
	av, _ := o.Get("accounts")
	accts, okAccts := jsonv.AsArray(av)
	dv, _ := o.Get("data")
	text, okData := dv.(string)
	if !okProgram || !okAccts || !okData || len(accts) > maxKeys || len(text) > 2*MaxWire {
		return Instruction{}, false
	}
	data, ok := DecodeBase58(text)
	if !ok && text != "" {
		return Instruction{}, false
	}
	ix := Instruction{Program: program, Data: data, Accounts: make([]uint8, len(accts))}
	for i, a := range accts {
		if ix.Accounts[i], ok = index(a); !ok {
			return Instruction{}, false
		}
	}
	return ix, true
}

// landedAt reads signature at finalized, then confirmed: the first found,
// and its commitment; nil when neither has it; an error when a read failed.
func landedAt(r Reader, signature string) (*Landed, string, error) {
	for _, c := range []string{CommitmentFinalized, CommitmentConfirmed} {
		l, err := r.Transaction(signature, c)
		if err != nil {
			return nil, "", err
		}
		if l != nil {
			return l, c, nil
		}
	}
	return nil, "", nil
}

// isSignature reports whether s is a base58 64-byte signature.
func isSignature(s string) bool {
	if len(s) > 90 {
		return false
	}
	b, ok := DecodeBase58(s)
	return ok && len(b) == 64
}

// SettledBy is the shared settlement read of ref's transaction: a reader
// of another network, a failed read, or a reference or answer it cannot
// read is pending unreadable; a transaction neither finalized nor
// confirmed is pending not-found; a message whose SHA-256 is not the
// reference's digest is failed not-this-instrument; meta.err is failed
// err; then check names a failure ("" when the transaction is the
// payment). Settled carries the commitment it was found at. A durable-nonce
// transaction not found, once its nonce has moved on (NonceMoved, through
// a NonceReader) and the node holds fromSlot, is read once more at
// finalized and, still not found, failed nonce-moved. At most two reads,
// or five for a durable-nonce reference.
func SettledBy(ref *jsonv.Object, r Reader, check func(tx *Tx, l *Landed) string) Status {
	network, _ := ref.GetString("network")
	signature, _ := ref.GetString("transaction")
	digest, _ := ref.GetString("digest")
	want, err := hex.DecodeString(strings.TrimPrefix(strings.ToLower(digest), "0x"))
	if r == nil || network == "" || network != r.Network() || !isSignature(signature) ||
		!strings.HasPrefix(strings.ToLower(digest), "0x") || err != nil || len(want) != sha256.Size {
		return pendingStatus(WhyUnreadable)
	}
	l, commitment, err := landedAt(r, signature)
	if err != nil {
		return pendingStatus(WhyUnreadable)
	}
	if _, durable := ref.Get("nonce"); l == nil && durable && nonceLapsed(ref, r) {
		// The nonce moved on: one last read at finalized, since the
		// transaction that moved it may be this one, landed meanwhile.
		l, err = r.Transaction(signature, CommitmentFinalized)
		if err != nil {
			return pendingStatus(WhyUnreadable)
		}
		if l == nil {
			return failedStatus(WhyNonceMoved)
		}
		commitment = CommitmentFinalized
	}
	if l == nil {
		return pendingStatus(WhyNotFound)
	}
	tx, ok, _ := DecodeTx(l.Wire)
	if !ok {
		return pendingStatus(WhyUnreadable)
	}
	if got := sha256.Sum256(tx.Message); string(got[:]) != string(want) {
		return failedStatus(WhyNotThisInstrument)
	}
	if l.Err != nil {
		return failedStatus(WhyErr)
	}
	if why := check(tx, l); why != "" {
		return failedStatus(why)
	}
	return Status{State: StateSettled, Commitment: commitment}
}

// TransferStatus is x402/exact/solana's settlement: SettledBy, where the
// transaction must move value: a top-level or inner token TransferChecked
// (Token or Token-2022, data 0x0c) or System transfer (data 02000000). A
// transaction that only carries the payment's memo is failed no-transfer.
func TransferStatus(ref *jsonv.Object, r Reader) Status {
	return SettledBy(ref, r, func(tx *Tx, l *Landed) string {
		if movesValue(tx, l) {
			return ""
		}
		return WhyNoTransfer
	})
}

// movesValue reports whether a top-level or inner instruction of tx is a
// token TransferChecked or a System transfer.
func movesValue(tx *Tx, l *Landed) bool {
	keyAt := func(i uint8) (Key, bool) {
		if int(i) < len(tx.Keys) {
			return tx.Keys[i], true
		}
		if j := int(i) - len(tx.Keys); j < len(l.Loaded) {
			return l.Loaded[j], true
		}
		return Key{}, false
	}
	moves := func(ix Instruction) bool {
		p, ok := keyAt(ix.Program)
		switch {
		case !ok:
			return false
		case p == TokenProgram || p == Token2022Program:
			return len(ix.Data) > 0 && ix.Data[0] == 0x0c
		case p == SystemProgram:
			return len(ix.Data) >= 4 && string(ix.Data[:4]) == "\x02\x00\x00\x00"
		}
		return false
	}
	for _, ix := range tx.Instructions {
		if moves(ix) {
			return true
		}
	}
	for _, ix := range l.Inner {
		if moves(ix) {
			return true
		}
	}
	return false
}

// ChannelStatus is x402/batch-settlement/solana's settlement of a channel
// payment: SettledBy, where the transaction must carry exactly one
// top-level payment-channels instruction, an open (1) or a top-up (3).
func ChannelStatus(ref *jsonv.Object, r Reader) Status {
	return SettledBy(ref, r, func(tx *Tx, _ *Landed) string {
		n, kind := 0, byte(0)
		for _, ix := range tx.Instructions {
			if p, ok := tx.ProgramOf(ix); ok && p == ChannelProgram {
				n++
				if len(ix.Data) > 0 {
					kind = ix.Data[0]
				}
			}
		}
		if n == 1 && (kind == 1 || kind == 3) {
			return ""
		}
		return WhyNoChannelInstruction
	})
}

// The session channel program's close instructions, by discriminator, and
// the position of the channel among each one's accounts.
const (
	settleAndSealDiscriminator = 4 // channel at account 1
	sealDiscriminator          = 6 // channel at account 0
)

// CloseStatus reads a reported session close, ref {network, program,
// channel, transaction}: no digest, since the seller signed the close. Read
// at finalized, then confirmed: a failed read or a reference it cannot read
// is pending unreadable, none found pending not-found, meta.err failed
// err; a top-level instruction of program whose data starts settleAndSeal
// (4, channel at account 1) or seal (6, channel at account 0) naming the
// channel is settled; anything else failed not-a-close. At most two reads.
func CloseStatus(ref *jsonv.Object, r Reader) Status {
	network, _ := ref.GetString("network")
	signature, _ := ref.GetString("transaction")
	ps, _ := ref.GetString("program")
	cs, _ := ref.GetString("channel")
	program, okProgram := ParseKey(ps)
	channel, okChannel := ParseKey(cs)
	if r == nil || network == "" || network != r.Network() || !isSignature(signature) {
		return pendingStatus(WhyUnreadable)
	}
	l, commitment, err := landedAt(r, signature)
	if err != nil {
		return pendingStatus(WhyUnreadable)
	}
	if l == nil {
		return pendingStatus(WhyNotFound)
	}
	if l.Err != nil {
		return failedStatus(WhyErr)
	}
	tx, ok, _ := DecodeTx(l.Wire)
	if !ok {
		return pendingStatus(WhyUnreadable)
	}
	if !okProgram || !okChannel {
		return failedStatus(WhyNotAClose)
	}
	for _, ix := range tx.Instructions {
		if p, ok := tx.ProgramOf(ix); !ok || p != program || len(ix.Data) == 0 {
			continue
		}
		at := -1
		switch ix.Data[0] {
		case settleAndSealDiscriminator:
			at = 1
		case sealDiscriminator:
			at = 0
		}
		if at >= 0 && at < len(ix.Accounts) && int(ix.Accounts[at]) < len(tx.Keys) && tx.Keys[ix.Accounts[at]] == channel {
			return Status{State: StateSettled, Commitment: commitment}
		}
	}
	return failedStatus(WhyNotAClose)
}

// Refusals of Recover.
const (
	CodeWrongReader = "svm/wrong-reader" // the reader serves another network
	CodeUnreadable  = "svm/unreadable"   // the read failed or its answer is not a transaction
	CodeNotFound    = "svm/not-found"    // neither finalized nor confirmed
	CodeErr         = "svm/err"          // it landed and failed
)

// Recover is zero-party recovery of H from the landed transaction ref
// names ({network, transaction}): its one top-level memo, which must spell
// the carrier exactly as issued (lcp:sha256:0x and 64 lowercase hex). A
// reader of another network, a failed read, none found, a failed
// transaction, a wire that does not decode and each memo fault are
// refusals with their codes. At most two reads.
func Recover(ref *jsonv.Object, r Reader) (string, error) {
	network, _ := ref.GetString("network")
	signature, _ := ref.GetString("transaction")
	if r == nil || network == "" || network != r.Network() {
		return "", rails.Refuse(CodeWrongReader)
	}
	if !isSignature(signature) {
		return "", rails.Refuse(CodeUnreadable)
	}
	l, _, err := landedAt(r, signature)
	switch {
	case err != nil:
		return "", rails.Refuse(CodeUnreadable)
	case l == nil:
		return "", rails.Refuse(CodeNotFound)
	case l.Err != nil:
		return "", rails.Refuse(CodeErr)
	}
	tx, ok, _ := DecodeTx(l.Wire)
	if !ok {
		return "", rails.Refuse(CodeTxMalformed)
	}
	memo, h, err := MemoCarrier(tx)
	if err != nil {
		return "", err
	}
	if memo != lcpPrefix+h {
		return "", rails.Refuse(CodeCarrierNotCanon)
	}
	return h, nil
}
