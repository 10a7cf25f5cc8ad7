package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// The embedded store's buckets. Budgets map network NUL asset to the spent
// sum in decimal; reservations and payments map an id to a JSON record;
// pending holds the ids of unanswered payments, so a restart finds them
// without reading the whole journal.
var (
	bucketMeta         = []byte("meta")
	bucketBudgets      = []byte("budgets")
	bucketReservations = []byte("reservations")
	bucketPayments     = []byte("payments")
	bucketPending      = []byte("pending")
	keySchema          = []byte("schema")
)

// FileOptions tune OpenFile; nil means the defaults.
type FileOptions struct {
	// LockTimeout is how long to wait for another process that holds the
	// file; 0 means DefaultLockTimeout.
	LockTimeout time.Duration
	// Exclusive keeps the file open and locked from OpenFile to Close,
	// rather than for each operation: no other process can use it
	// meanwhile (OpenFile waits LockTimeout, then fails), and each
	// operation saves opening and mapping the file (about 0.3–1 ms).
	Exclusive bool
}

// DefaultLockTimeout is how long an operation waits for the file while
// another process is in one.
const DefaultLockTimeout = 5 * time.Second

// File is the embedded store: one file, which several processes may share
// (the CLI's commands and a running MCP server, say). The file is opened
// and locked for each operation only, so processes take turns, each
// operation waiting up to FileOptions.LockTimeout for the others; a
// reservation checks the ceiling inside that lock, so processes sharing a
// file share its budget exactly. Every change is synced to disk before its
// method returns, except commits (see Commit).
type File struct {
	path    string
	timeout time.Duration
	now     func() time.Time
	held    held

	// mu keeps this process's operations in turn: bbolt waits for another
	// opener's lock by polling every 50 ms, which is for other processes.
	mu     sync.Mutex
	closed bool
	db     *bolt.DB // open from OpenFile to Close when Exclusive

	lazyMu  sync.Mutex
	commits []string // reservations committed, not yet written

	// groupMu guards the updates waiting to share a transaction (update).
	groupMu sync.Mutex
	queue   []*queuedUpdate
	leading bool
	synced  atomic.Int64 // write transactions committed (the tests count them)
}

var _ Store = (*File)(nil)

// OpenFile opens (creating it and its directory if need be) the embedded
// store at path, migrating an older schema.
func OpenFile(path string, o *FileOptions) (*File, error) {
	timeout := DefaultLockTimeout
	if o != nil && o.LockTimeout > 0 {
		timeout = o.LockTimeout
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	f := &File{path: path, timeout: timeout, now: time.Now}
	if o != nil && o.Exclusive {
		db, err := f.open()
		if err != nil {
			return nil, err
		}
		f.db = db
	}
	if err := f.migrate(); err != nil {
		if f.db != nil {
			f.db.Close()
		}
		return nil, err
	}
	return f, nil
}

func (f *File) open() (*bolt.DB, error) {
	db, err := bolt.Open(f.path, 0o600, &bolt.Options{Timeout: f.timeout, FreelistType: bolt.FreelistMapType})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, &Unavailable{Err: fmt.Errorf("%s stayed locked by another process for %s", f.path, f.timeout)}
	}
	if err != nil {
		return nil, &Unavailable{Err: fmt.Errorf("opening %s: %w", f.path, err)}
	}
	return db, nil
}

// errClosed: an operation on a closed File.
var errClosed = errors.New("the store is closed")

// withDB opens and locks the file for fn.
func (f *File) withDB(fn func(db *bolt.DB) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return &Unavailable{Err: errClosed}
	}
	if f.db != nil {
		return fn(f.db)
	}
	db, err := f.open()
	if err != nil {
		return err
	}
	err = fn(db)
	if cerr := db.Close(); err == nil && cerr != nil {
		err = &Unavailable{Err: cerr}
	}
	return err
}

// view runs fn in a read transaction.
func (f *File) view(fn func(tx *bolt.Tx) error) error {
	err := f.withDB(func(db *bolt.DB) error { return db.View(fn) })
	var u *Unavailable
	if err != nil && !errors.As(err, &u) {
		err = &Unavailable{Err: err}
	}
	return err
}

// fileMigrations[v] brings a version-v store to version v+1.
var fileMigrations = []func(tx *bolt.Tx) error{
	0: func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketBudgets, bucketReservations, bucketPayments, bucketPending} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	1: func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucketChannels)
		return err
	},
	// 3 adds an optional member to the payment records (settlement):
	// nothing to rewrite.
	2: func(*bolt.Tx) error { return nil },
}

func (f *File) migrate() error {
	return f.withDB(func(db *bolt.DB) error {
		return db.Update(func(tx *bolt.Tx) error {
			meta, err := tx.CreateBucketIfNotExists(bucketMeta)
			if err != nil {
				return err
			}
			have := 0
			if v := meta.Get(keySchema); v != nil {
				if have, err = strconv.Atoi(string(v)); err != nil {
					return fmt.Errorf("ledger: %s: unreadable schema version %q", f.path, v)
				}
			}
			if have > SchemaVersion {
				return schemaNewer(f.path, have)
			}
			for v := have; v < SchemaVersion; v++ {
				if err := fileMigrations[v](tx); err != nil {
					return fmt.Errorf("ledger: %s: migrating from schema %d: %w", f.path, v, err)
				}
			}
			return meta.Put(keySchema, []byte(strconv.Itoa(SchemaVersion)))
		})
	})
}

// Where is the file's path.
func (f *File) Where() string { return f.path }

// Close writes the commits still waiting; the File is not used after.
func (f *File) Close() error {
	f.lazyMu.Lock()
	n := len(f.commits)
	f.lazyMu.Unlock()
	var err error
	if n > 0 {
		err = f.update(func(*bolt.Tx) error { return nil })
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	if f.db != nil {
		err = errors.Join(err, f.db.Close())
		f.db = nil
	}
	return err
}

func budgetKey(k Key) []byte { return []byte(k.Network + "\x00" + k.Asset) }

type fileReservation struct {
	Network string `json:"network"`
	Asset   string `json:"asset"`
	Amount  string `json:"amount"`
	State   string `json:"state"` // "open" or "committed"
	Created int64  `json:"created"`
}

// update runs fn in a write transaction synced to disk before it returns.
// Concurrent updates share one transaction and one sync (group commit): the
// first caller leads, running what queued up meanwhile together with its
// own; those that arrive while it syncs queue for the next. A caller alone
// waits for nobody. Each still returns only once its change is on disk.
func (f *File) update(fn func(tx *bolt.Tx) error) error {
	u := &queuedUpdate{fn: fn, wake: make(chan bool, 1)}
	f.groupMu.Lock()
	f.queue = append(f.queue, u)
	lead := !f.leading
	f.leading = true
	f.groupMu.Unlock()
	if !lead && !<-u.wake { // false: a leader ran it; true: lead now
		return u.err
	}
	f.groupMu.Lock()
	n := min(len(f.queue), maxGroup)
	group := f.queue[:n:n]
	f.queue = f.queue[n:]
	f.groupMu.Unlock()

	f.runGroup(group)
	for _, o := range group {
		if o != u {
			o.wake <- false
		}
	}
	// The leader's own caller goes back to its payment; the oldest waiting
	// update leads the next group.
	f.groupMu.Lock()
	if len(f.queue) > 0 {
		f.queue[0].wake <- true
	} else {
		f.leading = false
	}
	f.groupMu.Unlock()
	return u.err
}

// maxGroup bounds the updates that share a transaction.
const maxGroup = 256

// queuedUpdate is one caller's change waiting for a group's transaction.
type queuedUpdate struct {
	fn   func(tx *bolt.Tx) error
	err  error
	wake chan bool
}

// runGroup runs the group's changes in one transaction, setting each one's
// error. A change refused with ErrBudgetExhausted or ErrNotFound has
// written nothing (each change checks before it writes), so the others go
// on in the same transaction. Any other failure rolls the transaction back:
// that change then runs alone, its error its own, and the others run again
// together. A change is a function of the transaction it runs in, so
// running it again after a rollback decides afresh.
func (f *File) runGroup(group []*queuedUpdate) {
	for len(group) > 0 {
		if len(group) == 1 {
			group[0].err = f.commitTx(group[0].fn)
			return
		}
		failed := -1
		refused := make([]error, len(group))
		err := f.commitTx(func(tx *bolt.Tx) error {
			for i, u := range group {
				err := u.fn(tx)
				if refusedCleanly(err) {
					refused[i] = err
				} else if err != nil {
					failed = i
					return err
				}
			}
			return nil
		})
		if failed < 0 { // committed, or the store failed: the same for all
			for i, u := range group {
				u.err = err
				if err == nil {
					u.err = refused[i]
				}
			}
			return
		}
		group[failed].err = f.commitTx(group[failed].fn)
		rest := make([]*queuedUpdate, 0, len(group)-1)
		rest = append(append(rest, group[:failed]...), group[failed+1:]...)
		group = rest
	}
}

// refusedCleanly reports whether err is a refusal a change returns before
// writing anything.
func refusedCleanly(err error) bool {
	return errors.Is(err, ErrBudgetExhausted) || errors.Is(err, ErrNotFound) || errors.Is(err, ErrChannelMoved)
}

// commitTx runs fn in one synced write transaction, with the commits
// waiting to be written.
func (f *File) commitTx(fn func(tx *bolt.Tx) error) error {
	f.lazyMu.Lock()
	commits := f.commits
	f.commits = nil
	f.lazyMu.Unlock()
	err := f.withDB(func(db *bolt.DB) error {
		return db.Update(func(tx *bolt.Tx) error {
			for _, id := range commits {
				if err := commitIn(tx, id); err != nil && !errors.Is(err, ErrNotFound) {
					return err
				}
			}
			return fn(tx)
		})
	})
	if err == nil {
		f.synced.Add(1)
	}
	if err != nil && len(commits) > 0 {
		f.lazyMu.Lock()
		f.commits = append(commits, f.commits...)
		f.lazyMu.Unlock()
	}
	var u *Unavailable
	if err == nil || refusedCleanly(err) || errors.As(err, &u) {
		return err
	}
	return &Unavailable{Err: err} // a failed write or sync, unreadable data
}

// Reserve implements Store.
func (f *File) Reserve(_ context.Context, k Key, amount, budget *big.Int) (string, error) {
	if err := checkAmount(amount, budget); err != nil {
		return "", err
	}
	now := f.now()
	id := newID(now)
	rec, _ := json.Marshal(fileReservation{k.Network, k.Asset, amount.String(), "open", now.UnixNano()})
	err := f.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketBudgets)
		spent, err := readInt(b.Get(budgetKey(k)))
		if err != nil {
			return err
		}
		spent.Add(spent, amount)
		if budget != nil && spent.Cmp(budget) > 0 {
			return ErrBudgetExhausted
		}
		if err := b.Put(budgetKey(k), []byte(spent.String())); err != nil {
			return err
		}
		if err := putCeiling(tx, k, budget); err != nil { // termsgate budget shows it
			return err
		}
		return tx.Bucket(bucketReservations).Put([]byte(id), rec)
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

func readInt(v []byte) (*big.Int, error) {
	n := new(big.Int)
	if v == nil {
		return n, nil
	}
	if _, ok := n.SetString(string(v), 10); !ok {
		return nil, fmt.Errorf("ledger: unreadable amount %q", v)
	}
	return n, nil
}

func getReservation(tx *bolt.Tx, id string) (*fileReservation, error) {
	v := tx.Bucket(bucketReservations).Get([]byte(id))
	if v == nil {
		return nil, fmt.Errorf("%w: reservation %s", ErrNotFound, id)
	}
	var r fileReservation
	if err := json.Unmarshal(v, &r); err != nil {
		return nil, fmt.Errorf("ledger: reservation %s is unreadable: %w", id, err)
	}
	return &r, nil
}

func commitIn(tx *bolt.Tx, id string) error {
	r, err := getReservation(tx, id)
	if err != nil {
		return err
	}
	if r.State == "committed" {
		return nil
	}
	r.State = "committed"
	v, _ := json.Marshal(r)
	return tx.Bucket(bucketReservations).Put([]byte(id), v)
}

// Commit implements Store. The commit is written with the next change (or
// on Close) rather than synced on its own: lost in a crash, it leaves the
// reservation open, which counts as spent all the same. This halves the
// syncs of a payment.
func (f *File) Commit(_ context.Context, id string) error {
	f.lazyMu.Lock()
	f.commits = append(f.commits, id)
	f.lazyMu.Unlock()
	return nil
}

// Release implements Store.
func (f *File) Release(_ context.Context, id string) error {
	return f.update(func(tx *bolt.Tx) error {
		r, err := getReservation(tx, id)
		if err != nil {
			return err
		}
		if r.State != "open" {
			return fmt.Errorf("%w: reservation %s is committed", ErrNotFound, id)
		}
		amount, err := readInt([]byte(r.Amount))
		if err != nil {
			return err
		}
		b := tx.Bucket(bucketBudgets)
		k := budgetKey(Key{r.Network, r.Asset})
		spent, err := readInt(b.Get(k))
		if err != nil {
			return err
		}
		if spent.Sub(spent, amount).Sign() < 0 {
			spent.SetInt64(0)
		}
		if err := b.Put(k, []byte(spent.String())); err != nil {
			return err
		}
		return tx.Bucket(bucketReservations).Delete([]byte(id))
	})
}

// Spent implements Store.
func (f *File) Spent(_ context.Context, k Key) (*big.Int, error) {
	var n *big.Int
	err := f.view(func(tx *bolt.Tx) error {
		var err error
		n, err = readInt(tx.Bucket(bucketBudgets).Get(budgetKey(k)))
		return err
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// filePayment is Payment as stored.
type filePayment struct {
	ID           string `json:"id"`
	Reservation  string `json:"reservation,omitempty"`
	Created      int64  `json:"created"`
	Pairing      string `json:"pairing"`
	Protocol     string `json:"protocol"`
	H            string `json:"h"`
	URL          string `json:"url"`
	HeaderName   string `json:"headerName"`
	Header       string `json:"header"`
	Signed       []byte `json:"signed,omitempty"`
	PaymentID    string `json:"paymentId,omitempty"`
	ATR          []byte `json:"atr,omitempty"`
	Network      string `json:"network"`
	Asset        string `json:"asset"`
	Payer        string `json:"payer"`
	Payee        string `json:"payee"`
	Amount       string `json:"amount"`
	PayableUntil int64  `json:"payableUntil"`
	Answered     int64  `json:"answered,omitempty"`
	Status       int    `json:"status,omitempty"`
	// Settlement is a settlementRecord (schema 3), absent until read.
	Settlement json.RawMessage `json:"settlement,omitempty"`
}

func toFile(p *Payment) filePayment {
	fp := filePayment{
		ID: p.ID, Reservation: p.Reservation, Created: p.Created.UnixNano(), Pairing: p.Pairing, Protocol: p.Protocol,
		H: p.H, URL: p.URL, HeaderName: p.HeaderName, Header: p.Header, Signed: p.Signed, PaymentID: p.PaymentID, ATR: p.ATR,
		Network: p.Network, Asset: p.Asset, Payer: p.Payer, Payee: p.Payee, PayableUntil: p.PayableUntil.Unix(),
		Status: p.Status,
	}
	if p.Amount != nil {
		fp.Amount = p.Amount.String()
	}
	if !p.Answered.IsZero() {
		fp.Answered = p.Answered.UnixNano()
	}
	return fp
}

func (fp *filePayment) payment() *Payment {
	p := &Payment{
		ID: fp.ID, Reservation: fp.Reservation, Created: time.Unix(0, fp.Created), Pairing: fp.Pairing, Protocol: fp.Protocol,
		H: fp.H, URL: fp.URL, HeaderName: fp.HeaderName, Header: fp.Header, Signed: fp.Signed, PaymentID: fp.PaymentID, ATR: fp.ATR,
		Network: fp.Network, Asset: fp.Asset, Payer: fp.Payer, Payee: fp.Payee, PayableUntil: time.Unix(fp.PayableUntil, 0),
		Status: fp.Status,
	}
	if fp.Amount != "" {
		p.Amount, _ = new(big.Int).SetString(fp.Amount, 10)
	}
	if fp.Answered != 0 {
		p.Answered = time.Unix(0, fp.Answered)
	}
	return p
}

// fill sets what Record assigns.
func fill(p *Payment, now time.Time) error {
	if p.Header == "" || p.HeaderName == "" || p.URL == "" {
		return errors.New("ledger: a payment needs its URL, header name and header")
	}
	if p.Created.IsZero() {
		p.Created = now
	}
	if p.ID == "" {
		p.ID = newID(p.Created)
	}
	return nil
}

// Record implements Store.
func (f *File) Record(_ context.Context, p *Payment) error {
	if err := fill(p, f.now()); err != nil {
		return err
	}
	v, err := json.Marshal(toFile(p))
	if err != nil {
		return err
	}
	// Held before it is visible, so that no Claim takes it meanwhile.
	pending := p.Pending() && f.held.hold(p.ID)
	err = f.update(func(tx *bolt.Tx) error {
		if p.Reservation != "" {
			if err := commitIn(tx, p.Reservation); err != nil {
				return err
			}
		}
		if err := tx.Bucket(bucketPayments).Put([]byte(p.ID), v); err != nil {
			return err
		}
		if p.Pending() {
			return tx.Bucket(bucketPending).Put([]byte(p.ID), nil)
		}
		return nil
	})
	if err != nil && pending {
		f.held.unhold(p.ID)
	}
	return err
}

// Claim implements Store. It skips only the payments this store holds: a
// process sharing the file cannot see another's, and may present one that
// process is still sending, which settles it once all the same.
func (f *File) Claim(ctx context.Context, url string) (*Payment, error) {
	list, err := f.Unanswered(ctx, url)
	if err != nil {
		return nil, err
	}
	for _, p := range list {
		if !f.held.hold(p.ID) {
			continue
		}
		// It may have been answered since the list was read.
		var still bool
		err := f.view(func(tx *bolt.Tx) error {
			still = tx.Bucket(bucketPending).Get([]byte(p.ID)) != nil
			return nil
		})
		if err == nil && still {
			return p, nil
		}
		f.held.unhold(p.ID)
	}
	return nil, nil
}

// Unhold implements Store.
func (f *File) Unhold(id string) { f.held.unhold(id) }

// Answer implements Store.
func (f *File) Answer(_ context.Context, id string, status int) error {
	now := f.now()
	err := f.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketPayments)
		v := b.Get([]byte(id))
		if v == nil {
			return fmt.Errorf("%w: payment %s", ErrNotFound, id)
		}
		var fp filePayment
		if err := json.Unmarshal(v, &fp); err != nil {
			return fmt.Errorf("ledger: payment %s is unreadable: %w", id, err)
		}
		fp.Answered, fp.Status = now.UnixNano(), status
		nv, _ := json.Marshal(fp)
		if err := b.Put([]byte(id), nv); err != nil {
			return err
		}
		return tx.Bucket(bucketPending).Delete([]byte(id))
	})
	if err == nil {
		f.held.unhold(id)
	}
	return err
}

// Unanswered implements Store.
func (f *File) Unanswered(_ context.Context, url string) ([]*Payment, error) {
	var out []*Payment
	err := f.view(func(tx *bolt.Tx) error {
		payments := tx.Bucket(bucketPayments)
		return tx.Bucket(bucketPending).ForEach(func(id, _ []byte) error {
			p, err := decodePayment(payments.Get(id))
			if err != nil {
				return err
			}
			if url == "" || p.URL == url {
				out = append(out, p)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func decodePayment(v []byte) (*Payment, error) {
	var fp filePayment
	if err := json.Unmarshal(v, &fp); err != nil {
		return nil, fmt.Errorf("ledger: a journaled payment is unreadable: %w", err)
	}
	p := fp.payment()
	if len(fp.Settlement) > 0 {
		s, err := settlementFromRecord(fp.Settlement)
		if err != nil {
			return nil, fmt.Errorf("ledger: payment %s: %w", fp.ID, err)
		}
		p.Settlement = s
	}
	return p, nil
}

// RecordSettlement implements SettlementStore, synced before it returns.
func (f *File) RecordSettlement(_ context.Context, id string, s *Settlement) error {
	rec, err := s.record()
	if err != nil {
		return err
	}
	return f.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketPayments)
		v := b.Get([]byte(id))
		if v == nil {
			return fmt.Errorf("%w: payment %s", ErrNotFound, id)
		}
		var fp filePayment
		if err := json.Unmarshal(v, &fp); err != nil {
			return fmt.Errorf("ledger: payment %s is unreadable: %w", id, err)
		}
		fp.Settlement = rec
		nv, _ := json.Marshal(fp)
		return b.Put([]byte(id), nv)
	})
}

// Payments implements Store.
func (f *File) Payments(_ context.Context, limit int) ([]*Payment, error) {
	var out []*Payment
	err := f.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketPayments).Cursor()
		for k, v := c.Last(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Prev() {
			p, err := decodePayment(v)
			if err != nil {
				return err
			}
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
