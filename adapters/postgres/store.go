package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/storecheck/storecheck/adapters/internal/storeerr"
	"github.com/storecheck/storecheck/reference"
)

// cancelAfter is how long a statement whose context ended may still finish by itself
// before the server is asked to cancel it: one that is about to answer costs no cancel
// request (and none of pgx's pause after one).
const cancelAfter = 20 * time.Millisecond

// cancelWait bounds the wait for the server's answer to a cancel request; past it the
// connection is closed and the statement's outcome is unknown. With pgx's pause after a
// cancel request, a call returns at most about half a second after its context ended.
const cancelWait = 400 * time.Millisecond

// CancelOnServer makes the pool's connections end a statement on the server when its
// context ends, before the call returns: the connection sends the server a cancel
// request and waits for its answer (at most cancelWait), so when the call returns the
// statement is over, cancelled (nothing applied) or finished (its answer returned).
// pgx's default only closes the socket and asks for the cancel in the background after
// the call returned; a statement waiting on a lock meanwhile commits when the lock goes
// unless that cancel comes first, however long after the caller was told it failed (the
// server notices a client gone only when it answers). Apply it to the config of every
// pool given to the store (S-CTX-1); past cancelWait the outcome is unknown again.
func CancelOnServer(cfg *pgxpool.Config) {
	cfg.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, CancelRequestDelay: cancelAfter, DeadlineDelay: cancelWait}
	}
}

// Option configures a store.
type Option func(*config)

type config struct {
	clock reference.Clock
}

// WithClock makes the store read time from c (created_at, cleanup, expiry, sweep); the
// default is the real clock. The database's own clock is never read.
func WithClock(c reference.Clock) Option { return func(cfg *config) { cfg.clock = c } }

func newConfig(opts []Option) config {
	cfg := config{clock: reference.SystemClock{}}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.clock == nil {
		cfg.clock = reference.SystemClock{}
	}
	return cfg
}

func (c config) now() int64 { return reference.NowMillis(c.clock) }

// backend prefixes the store's errors (storeerr).
const backend = "postgres"

// dbError turns an error met during op into the store's error (storeerr.Wrap).
func dbError(ctx context.Context, op string, err error) error {
	return storeerr.Wrap(ctx, backend, op, err)
}

// deleteTask runs query, the era's DELETE by task_id, for id: a missing id is not an
// error in either era.
func deleteTask(ctx context.Context, pool *pgxpool.Pool, query, id string) error {
	if err := reference.ValidateID(id); err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, query, id); err != nil {
		return dbError(ctx, "delete", err)
	}
	return nil
}
