// Package ledger keeps what a paying process must not forget across a crash
// or share with the other processes of a fleet: the spend budgets (reserved
// before a signature, committed once it exists, released when none was
// made) and the journal of signed payments (recorded before they are sent,
// marked answered after), so that a payment signed but never answered is
// presented again instead of being signed anew.
//
// Two stores implement Store: an embedded one in a single file (OpenFile,
// on go.etcd.io/bbolt), for one machine's processes taking turns, and
// PostgreSQL (OpenPostgres, on github.com/jackc/pgx/v5), for a fleet sharing
// one budget. Open picks by the spelling of its argument. Both keep a schema
// version, migrate an older one on open and refuse a newer one
// (ErrSchemaNewer). See docs/paying-client.md.
package ledger

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"
)

// SchemaVersion is the schema this build writes (2: shared channels; 3:
// settlement reads kept with the payments). Opening a store whose schema is
// newer fails with ErrSchemaNewer; an older one is migrated.
const SchemaVersion = 3

var (
	// ErrBudgetExhausted: the reservation would take the budget's spent sum
	// past its ceiling. Nothing was reserved.
	ErrBudgetExhausted = errors.New("ledger: the budget would be exceeded")
	// ErrSchemaNewer: the store was written by a newer termsgate.
	ErrSchemaNewer = errors.New("ledger: the store's schema is newer than this termsgate knows")
	// ErrNotFound: no reservation or payment has that id (or the reservation
	// is no longer open).
	ErrNotFound = errors.New("ledger: no such entry")
)

// Unavailable wraps an error of the store itself (the database went away,
// the disk failed): whether an operation took effect is not known to the
// caller, so a payment waiting on it must not be signed.
type Unavailable struct{ Err error }

func (e *Unavailable) Error() string { return "ledger: the store is unavailable: " + e.Err.Error() }
func (e *Unavailable) Unwrap() error { return e.Err }

// Key names one budget: an asset on a network, compared as plain strings
// (the caller spells them one way: pay.Policy lowercases EVM addresses and
// keeps other chains' case-sensitive spellings).
type Key struct {
	Network string // CAIP-2
	Asset   string
}

// Payment is one signed payment in the journal.
type Payment struct {
	ID          string    // set by Record when empty; sorts by creation time
	Reservation string    // the reservation it spends; committed by Record
	Created     time.Time // set by Record when zero
	Pairing     string
	Protocol    string // "x402" or "mpp"
	H           string // the terms' SHA-256, 0x and 64 hex digits
	URL         string // where it was (or is to be) sent
	HeaderName  string // the request header it is sent in
	Header      string // the header's value: the payment
	Signed      []byte // the payment as JSON (x402: the payload; MPP: the credential)
	PaymentID   string // the x402 payment identifier, if any
	ATR         []byte // the terms, exactly as fetched

	Network, Asset, Payer, Payee string
	Amount                       *big.Int
	PayableUntil                 time.Time

	// Answered is when a seller answered it (or it was given up), zero while
	// unanswered; Status is the HTTP status of that answer, 0 when it was
	// given up without one (it expired before it could be presented again).
	Answered time.Time
	Status   int
	// Settlement is the buyer's last read of the chain for it (the
	// Transport's Verifier, through Journal's pay.SettlementJournal); nil
	// when it was not read.
	Settlement *Settlement
}

// Pending reports whether the payment waits for an answer.
func (p *Payment) Pending() bool { return p.Answered.IsZero() }

// Store is a durable budget and journal. Implementations are safe for
// concurrent use; every method is atomic, and durable when it returns nil,
// except Commit and Answer, which a store may write lazily because losing
// them in a crash is safe: an uncommitted reservation still counts as
// spent, and an unanswered payment is presented again, which settles
// nothing twice. A failure of the store itself is an *Unavailable.
type Store interface {
	// Reserve adds amount to k's spent sum if that stays within budget (nil:
	// no ceiling) and returns the reservation's id; ErrBudgetExhausted when
	// it would not. The sum counts open and committed reservations.
	Reserve(ctx context.Context, k Key, amount, budget *big.Int) (string, error)
	// Commit marks a reservation spent: a signature exists. An unknown id
	// may be refused (ErrNotFound) or ignored.
	Commit(ctx context.Context, id string) error
	// Release gives an open (uncommitted) reservation back.
	Release(ctx context.Context, id string) error
	// Spent is k's spent sum.
	Spent(ctx context.Context, k Key) (*big.Int, error)

	// Record journals p before it is sent, committing p.Reservation (if
	// any) in the same transaction.
	Record(ctx context.Context, p *Payment) error
	// Answer marks payment id answered with an HTTP status (0: given up).
	Answer(ctx context.Context, id string, status int) error
	// Unanswered lists the payments that wait for an answer, oldest first;
	// url, when not empty, keeps only those sent to it.
	Unanswered(ctx context.Context, url string) ([]*Payment, error)
	// Claim takes, to present it again, the oldest payment sent to url
	// that waits for an answer and that no live sender holds; nil when
	// there is none. A store holds each payment it recorded or claimed
	// until Answer or Unhold; PostgreSQL also skips those that other live
	// processes hold (each holds a session lock while it runs).
	Claim(ctx context.Context, url string) (*Payment, error)
	// Unhold lets go of a payment without an answer (its sending failed),
	// so that it can be claimed again.
	Unhold(id string)
	// Payments lists the journal, newest first, at most limit (≤ 0: all).
	Payments(ctx context.Context, limit int) ([]*Payment, error)

	// Where names the store for messages (a path, or the database without
	// its password).
	Where() string
	Close() error
}

// held is the set of payments a store's own process is sending.
type held struct {
	mu sync.Mutex
	m  map[string]bool
}

func (h *held) hold(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m[id] {
		return false
	}
	if h.m == nil {
		h.m = map[string]bool{}
	}
	h.m[id] = true
	return true
}

func (h *held) unhold(id string) {
	h.mu.Lock()
	delete(h.m, id)
	h.mu.Unlock()
}

func (h *held) list() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, 0, len(h.m))
	for id := range h.m {
		out = append(out, id)
	}
	return out
}

// newID is 16 hex digits of the time in nanoseconds and 16 random ones:
// unique across processes, and sorted by creation.
func newID(now time.Time) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixNano()))
	_, _ = rand.Read(b[8:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// Open opens the store named by spec: a postgres:// or postgresql:// URL
// (OpenPostgres), else a file path (OpenFile).
func Open(ctx context.Context, spec string) (Store, error) {
	if spec == "" {
		return nil, errors.New("ledger: no store named")
	}
	if strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://") {
		return OpenPostgres(ctx, spec)
	}
	return OpenFile(spec, nil)
}

func schemaNewer(where string, have int) error {
	return fmt.Errorf("%w: %s has schema version %d, this termsgate knows up to %d; upgrade termsgate (nothing was changed)",
		ErrSchemaNewer, where, have, SchemaVersion)
}

// checkAmount refuses what no budget can hold.
func checkAmount(amount, budget *big.Int) error {
	if amount == nil || amount.Sign() < 0 {
		return errors.New("ledger: the amount must be a number ≥ 0")
	}
	if budget != nil && budget.Sign() < 0 {
		return errors.New("ledger: the budget must be ≥ 0")
	}
	return nil
}
