package ledger

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Postgres is the store of a fleet: every process that opens the same
// database shares its budgets and its journal.
//
// Concurrency rests on PostgreSQL's row locks, not on serializable
// transactions: a reservation is one UPDATE of the budget's row whose WHERE
// clause holds the ceiling, so concurrent reservations of one budget queue
// on that row and each re-reads the sum the one before it left (READ
// COMMITTED re-checks the clause after the wait). No transaction is ever
// retried, and reservations of different budgets do not wait for each
// other.
type Postgres struct {
	pool *pgxpool.Pool
	// lazy sends the changes whose loss in a crash of the database is
	// safe, with synchronous_commit off: a commit lost leaves its
	// reservation counted as spent; an answer lost gets the payment
	// presented again, which settles nothing twice.
	lazy  *pgxpool.Pool
	cfg   *pgx.ConnConfig
	where string
	now   func() time.Time

	known sync.Map // Key → true: its budget row exists
	held  held

	// owner is this store's id in the payments it holds; while it runs it
	// holds the session advisory lock of that number on ownerConn, so that
	// other processes can tell its payments from those of a dead process.
	owner      int64
	ownerMu    sync.Mutex
	ownerConn  *pgx.Conn
	ownerCheck time.Time
}

var _ Store = (*Postgres)(nil)

// migrationLock is the advisory lock key that serialises migrations of
// processes starting together ("termsgat" in ASCII).
const migrationLock = 0x7465726d73676174

// postgresMigrations[v] brings a version-v database to version v+1; each
// runs in the migration's transaction.
var postgresMigrations = []string{
	0: `
CREATE TABLE termsgate_budgets (
	network text NOT NULL,
	asset   text NOT NULL,
	spent   numeric(78,0) NOT NULL DEFAULT 0 CHECK (spent >= 0),
	PRIMARY KEY (network, asset)
);
CREATE TABLE termsgate_reservations (
	id        text PRIMARY KEY,
	network   text NOT NULL,
	asset     text NOT NULL,
	amount    numeric(78,0) NOT NULL,
	committed boolean NOT NULL DEFAULT false,
	created   timestamptz NOT NULL
);
CREATE TABLE termsgate_payments (
	id            text PRIMARY KEY,
	reservation   text NOT NULL,
	created       timestamptz NOT NULL,
	pairing       text NOT NULL,
	protocol      text NOT NULL,
	h             text NOT NULL,
	url           text NOT NULL,
	header_name   text NOT NULL,
	header        text NOT NULL,
	signed        bytea,
	payment_id    text NOT NULL,
	atr           bytea,
	network       text NOT NULL,
	asset         text NOT NULL,
	payer         text NOT NULL,
	payee         text NOT NULL,
	amount        numeric(78,0),
	payable_until timestamptz NOT NULL,
	answered      timestamptz,
	status        integer NOT NULL DEFAULT 0,
	owner         bigint NOT NULL DEFAULT 0
);
CREATE INDEX termsgate_payments_pending ON termsgate_payments (url, id) WHERE answered IS NULL;
`,
	1: `
CREATE TABLE termsgate_channels (
	pairing    text NOT NULL,
	network    text NOT NULL,
	channel    text NOT NULL,
	hold       bytea NOT NULL,
	cumulative numeric(78,0) NOT NULL CHECK (cumulative >= 0),
	PRIMARY KEY (pairing, network, channel)
);
`,
	2: `
ALTER TABLE termsgate_payments ADD COLUMN settlement text;
`,
}

// OpenPostgres connects to the database at connString (a postgres:// URL or
// a libpq key=value string) and migrates its schema.
func OpenPostgres(ctx context.Context, connString string) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("ledger: the PostgreSQL connection string is unreadable: %w", err)
	}
	where := fmt.Sprintf("postgres://%s@%s:%d/%s", cfg.ConnConfig.User, cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	if u, err := url.Parse(connString); err == nil && u.Scheme != "" {
		where = u.Redacted()
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("ledger: %s: %w", where, err)
	}
	lazyCfg := cfg.Copy()
	lazyCfg.ConnConfig.RuntimeParams["synchronous_commit"] = "off"
	lazy, err := pgxpool.NewWithConfig(ctx, lazyCfg)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("ledger: %s: %w", where, err)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	owner := int64(binary.BigEndian.Uint64(b[:]) >> 2) // positive, never 0 in practice
	p := &Postgres{pool: pool, lazy: lazy, cfg: cfg.ConnConfig, where: where, now: time.Now, owner: owner | 1}
	if err := p.migrate(ctx); err != nil {
		pool.Close()
		lazy.Close()
		return nil, err
	}
	return p, nil
}

func (p *Postgres) migrate(ctx context.Context) error {
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS termsgate_schema (
			one boolean PRIMARY KEY DEFAULT true CHECK (one), version integer NOT NULL)`); err != nil {
			return err
		}
		have := 0
		err := tx.QueryRow(ctx, `SELECT version FROM termsgate_schema`).Scan(&have)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if have > SchemaVersion {
			return schemaNewer(p.where, have)
		}
		for v := have; v < SchemaVersion; v++ {
			if _, err := tx.Exec(ctx, postgresMigrations[v]); err != nil {
				return fmt.Errorf("ledger: %s: migrating from schema %d: %w", p.where, v, err)
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO termsgate_schema (version) VALUES ($1)
			ON CONFLICT (one) DO UPDATE SET version = excluded.version`, SchemaVersion)
		return err
	})
	if err != nil && !errors.Is(err, ErrSchemaNewer) {
		return fmt.Errorf("ledger: %s: %w", p.where, err)
	}
	return err
}

// Where is the database's URL without its password.
func (p *Postgres) Where() string { return p.where }

// Close closes the connections.
func (p *Postgres) Close() error {
	p.ownerMu.Lock()
	if p.ownerConn != nil {
		p.ownerConn.Close(context.Background())
		p.ownerConn = nil
	}
	p.ownerMu.Unlock()
	p.pool.Close()
	p.lazy.Close()
	return nil
}

// ownerCheckEvery is how often the owner lock's connection is checked to be
// alive (a restart of the database ends it, and with it the lock).
const ownerCheckEvery = 2 * time.Second

// ensureOwner makes sure this store holds its owner lock.
func (p *Postgres) ensureOwner(ctx context.Context) error {
	p.ownerMu.Lock()
	defer p.ownerMu.Unlock()
	if c := p.ownerConn; c != nil && !c.IsClosed() {
		if time.Since(p.ownerCheck) < ownerCheckEvery {
			return nil
		}
		if c.Ping(ctx) == nil {
			p.ownerCheck = time.Now()
			return nil
		}
		c.Close(ctx)
		p.ownerConn = nil
	}
	c, err := pgx.ConnectConfig(ctx, p.cfg.Copy())
	if err != nil {
		return p.unavailable(err)
	}
	if _, err := c.Exec(ctx, `SELECT pg_advisory_lock($1)`, p.owner); err != nil {
		c.Close(ctx)
		return p.unavailable(err)
	}
	p.ownerConn, p.ownerCheck = c, time.Now()
	return nil
}

func (p *Postgres) unavailable(err error) error {
	if err == nil || errors.Is(err, ErrBudgetExhausted) || errors.Is(err, ErrNotFound) {
		return err
	}
	return &Unavailable{Err: fmt.Errorf("%s: %w", p.where, err)}
}

// Reserve implements Store: one UPDATE of the budget's row, which holds
// the row lock until the reservation is inserted by the same statement.
func (p *Postgres) Reserve(ctx context.Context, k Key, amount, budget *big.Int) (string, error) {
	if err := checkAmount(amount, budget); err != nil {
		return "", err
	}
	if _, ok := p.known.Load(k); !ok {
		if _, err := p.pool.Exec(ctx, `INSERT INTO termsgate_budgets (network, asset) VALUES ($1, $2)
			ON CONFLICT DO NOTHING`, k.Network, k.Asset); err != nil {
			return "", p.unavailable(err)
		}
		p.known.Store(k, true)
	}
	var ceiling *string
	if budget != nil {
		s := budget.String()
		ceiling = &s
	}
	now := p.now()
	id := newID(now)
	tag, err := p.pool.Exec(ctx, `
WITH b AS (
	UPDATE termsgate_budgets SET spent = spent + $3::text::numeric
	WHERE network = $1 AND asset = $2 AND ($4::text IS NULL OR spent + $3::text::numeric <= $4::text::numeric)
	RETURNING 1)
INSERT INTO termsgate_reservations (id, network, asset, amount, created)
SELECT $5, $1, $2, $3::text::numeric, $6 FROM b`, k.Network, k.Asset, amount.String(), ceiling, id, now)
	if err != nil {
		return "", p.unavailable(err)
	}
	if tag.RowsAffected() == 0 {
		return "", ErrBudgetExhausted
	}
	return id, nil
}

// Commit implements Store.
func (p *Postgres) Commit(ctx context.Context, id string) error {
	tag, err := p.lazy.Exec(ctx, `UPDATE termsgate_reservations SET committed = true WHERE id = $1`, id)
	if err != nil {
		return p.unavailable(err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: reservation %s", ErrNotFound, id)
	}
	return nil
}

// Release implements Store.
func (p *Postgres) Release(ctx context.Context, id string) error {
	tag, err := p.pool.Exec(ctx, `
WITH r AS (DELETE FROM termsgate_reservations WHERE id = $1 AND NOT committed RETURNING network, asset, amount)
UPDATE termsgate_budgets b SET spent = greatest(b.spent - r.amount, 0)
FROM r WHERE b.network = r.network AND b.asset = r.asset`, id)
	if err != nil {
		return p.unavailable(err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: open reservation %s", ErrNotFound, id)
	}
	return nil
}

// Spent implements Store.
func (p *Postgres) Spent(ctx context.Context, k Key) (*big.Int, error) {
	var s string
	err := p.pool.QueryRow(ctx, `SELECT coalesce((SELECT spent::text FROM termsgate_budgets WHERE network = $1 AND asset = $2), '0')`,
		k.Network, k.Asset).Scan(&s)
	if err != nil {
		return nil, p.unavailable(err)
	}
	return readInt([]byte(s))
}

// Record implements Store: the reservation's commit and the payment's row
// are one statement.
func (p *Postgres) Record(ctx context.Context, pm *Payment) (err error) {
	if err := fill(pm, p.now()); err != nil {
		return err
	}
	if err := p.ensureOwner(ctx); err != nil {
		return err
	}
	// Held before it is visible, so that no Claim of this process takes it.
	if pm.Pending() && p.held.hold(pm.ID) {
		defer func() {
			if err != nil {
				p.held.unhold(pm.ID)
			}
		}()
	}
	var amount *string
	if pm.Amount != nil {
		s := pm.Amount.String()
		amount = &s
	}
	var answered *time.Time
	if !pm.Answered.IsZero() {
		answered = &pm.Answered
	}
	tag, err := p.pool.Exec(ctx, `
WITH c AS (UPDATE termsgate_reservations SET committed = true WHERE id = $2 AND $2 <> '' RETURNING 1)
INSERT INTO termsgate_payments (id, reservation, created, pairing, protocol, h, url, header_name, header,
	atr, network, asset, payer, payee, amount, payable_until, answered, status, signed, payment_id, owner)
SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::text::numeric, $16, $17, $18, $19, $20, $21
WHERE $2 = '' OR EXISTS (SELECT 1 FROM c)`,
		pm.ID, pm.Reservation, pm.Created, pm.Pairing, pm.Protocol, pm.H, pm.URL, pm.HeaderName, pm.Header,
		pm.ATR, pm.Network, pm.Asset, pm.Payer, pm.Payee, amount, pm.PayableUntil, answered, pm.Status, pm.Signed, pm.PaymentID, p.owner)
	if err != nil {
		return p.unavailable(err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: reservation %s", ErrNotFound, pm.Reservation)
	}
	return nil
}

// Answer implements Store.
func (p *Postgres) Answer(ctx context.Context, id string, status int) error {
	tag, err := p.lazy.Exec(ctx, `UPDATE termsgate_payments SET answered = $2, status = $3 WHERE id = $1`, id, p.now(), status)
	if err != nil {
		return p.unavailable(err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: payment %s", ErrNotFound, id)
	}
	p.held.unhold(id)
	return nil
}

// RecordSettlement implements SettlementStore: written with synchronous
// commit, since a read that did not hold must not be lost.
func (p *Postgres) RecordSettlement(ctx context.Context, id string, s *Settlement) error {
	rec, err := s.record()
	if err != nil {
		return err
	}
	tag, err := p.pool.Exec(ctx, `UPDATE termsgate_payments SET settlement = $2 WHERE id = $1`, id, string(rec))
	if err != nil {
		return p.unavailable(err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: payment %s", ErrNotFound, id)
	}
	return nil
}

const paymentColumns = `id, reservation, created, pairing, protocol, h, url, header_name, header,
	atr, network, asset, payer, payee, amount::text, payable_until, answered, status, signed, payment_id, settlement`

func (p *Postgres) query(ctx context.Context, sql string, args ...any) ([]*Payment, error) {
	rows, err := p.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, p.unavailable(err)
	}
	var out []*Payment
	for rows.Next() {
		var (
			pm         Payment
			amount     *string
			answered   *time.Time
			settlement *string
		)
		if err := rows.Scan(&pm.ID, &pm.Reservation, &pm.Created, &pm.Pairing, &pm.Protocol, &pm.H, &pm.URL,
			&pm.HeaderName, &pm.Header, &pm.ATR, &pm.Network, &pm.Asset, &pm.Payer, &pm.Payee, &amount,
			&pm.PayableUntil, &answered, &pm.Status, &pm.Signed, &pm.PaymentID, &settlement); err != nil {
			rows.Close()
			return nil, p.unavailable(err)
		}
		if amount != nil {
			pm.Amount, _ = new(big.Int).SetString(*amount, 10)
		}
		if answered != nil {
			pm.Answered = *answered
		}
		if settlement != nil {
			st, err := settlementFromRecord([]byte(*settlement))
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("ledger: payment %s: %w", pm.ID, err)
			}
			pm.Settlement = st
		}
		out = append(out, &pm)
	}
	if err := rows.Err(); err != nil {
		return nil, p.unavailable(err)
	}
	return out, nil
}

// Unanswered implements Store.
func (p *Postgres) Unanswered(ctx context.Context, url string) ([]*Payment, error) {
	return p.query(ctx, `SELECT `+paymentColumns+` FROM termsgate_payments
		WHERE answered IS NULL AND ($1 = '' OR url = $1) ORDER BY id`, url)
}

// Payments implements Store.
func (p *Postgres) Payments(ctx context.Context, limit int) ([]*Payment, error) {
	if limit <= 0 {
		return p.query(ctx, `SELECT `+paymentColumns+` FROM termsgate_payments ORDER BY id DESC`)
	}
	return p.query(ctx, `SELECT `+paymentColumns+` FROM termsgate_payments ORDER BY id DESC LIMIT $1`, limit)
}

// Claim implements Store: one UPDATE takes the oldest unanswered payment to
// url that this store does not hold and whose owner is this store or holds
// no lock (its process is gone), skipping rows another claim has locked.
func (p *Postgres) Claim(ctx context.Context, url string) (*Payment, error) {
	if err := p.ensureOwner(ctx); err != nil {
		return nil, err
	}
	for range 3 {
		list, err := p.query(ctx, `
UPDATE termsgate_payments SET owner = $2
WHERE id = (
	SELECT q.id FROM termsgate_payments q
	WHERE q.answered IS NULL AND q.url = $1 AND NOT (q.id = ANY($3::text[]))
		AND (q.owner = $2 OR NOT EXISTS (
			SELECT 1 FROM pg_locks l
			WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
				AND l.classid::bigint = (q.owner >> 32) AND l.objid::bigint = (q.owner & 4294967295)))
	ORDER BY q.id LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING `+paymentColumns, url, p.owner, p.held.list())
		if err != nil || len(list) == 0 {
			return nil, err
		}
		if p.held.hold(list[0].ID) {
			return list[0], nil
		}
		// Another goroutine of this process claimed it meanwhile: look again.
	}
	return nil, nil
}

// Unhold implements Store.
func (p *Postgres) Unhold(id string) { p.held.unhold(id) }
