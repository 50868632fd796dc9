package riverstore

import (
	"context"
	_ "embed"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/storecheck/storecheck/internal/pgschema"
)

//go:embed schema_postgres.sql
var postgresSchema string

// NewPostgres returns a Backend on pool through River's pgx v5 driver. River's tables and
// the task tables are those of the pool's search_path (MigratePostgres creates them).
func NewPostgres(pool *pgxpool.Pool, opts ...Option) (*Backend[pgx.Tx], error) {
	cfg := newConfig(opts)
	client, err := river.NewClient(riverpgxv5.New(pool), cfg.river)
	if err != nil {
		return nil, fmt.Errorf("river-postgres: %w", err)
	}
	d := &db[pgx.Tx]{pool: pgxConn{pool}, sql: &postgresQueries, name: "river-postgres"}
	d.inTx = func(ctx context.Context, fn func(tx pgx.Tx, c conn) error) error {
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return fn(tx, pgxConn{tx}) })
	}
	return &Backend[pgx.Tx]{db: d, client: client, cfg: cfg}, nil
}

// migrateLockClass is the first key of the advisory lock MigratePostgres holds; the
// second is derived from the schema name (adapters/postgres uses 0x5c0c).
const migrateLockClass = 0x5c0d

// MigratePostgres applies River's migrations (rivermigrate, up to the newest) and the
// task tables to the first schema of the pool's search_path. River's migrations cannot
// share one transaction (one adds an enum value that a later one uses), so they run in
// two, the second with the task tables. It is idempotent and
// safe to run from several nodes at once: they serialise on a session advisory lock
// keyed by the schema name, held on a connection of its own (the pool needs two).
func MigratePostgres(ctx context.Context, pool *pgxpool.Pool) error {
	if err := migratePostgres(ctx, pool); err != nil {
		return fmt.Errorf("river-postgres: migrate: %w", err)
	}
	return nil
}

func migratePostgres(ctx context.Context, pool *pgxpool.Pool) error {
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return err
	}
	lock, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer lock.Release()
	schema, err := pgschema.Current(ctx, lock)
	if err != nil {
		return err
	}
	if _, err := lock.Exec(ctx, `SELECT pg_advisory_lock($1, hashtext($2))`, migrateLockClass, schema); err != nil {
		return err
	}
	defer func() {
		// A connection whose unlock failed must not go back to the pool holding the lock.
		if _, err := lock.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, hashtext($2))`, migrateLockClass, schema); err != nil {
			_ = lock.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	// Two transactions rather than one per version (each commit is an fsync, and the
	// battery migrates a schema per spec): up to the version that adds the enum value,
	// then the rest with the task tables.
	existing, err := migrator.ExistingVersions(ctx)
	if err != nil {
		return fmt.Errorf("river's migrations: %w", err)
	}
	if len(existing) == 0 || existing[len(existing)-1].Version < enumVersion {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			_, err := migrator.MigrateTx(ctx, tx, rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{TargetVersion: enumVersion})
			return err
		})
		if err != nil {
			return fmt.Errorf("river's migrations: %w", err)
		}
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := migrator.MigrateTx(ctx, tx, rivermigrate.DirectionUp, nil); err != nil {
			return fmt.Errorf("river's migrations: %w", err)
		}
		_, err := tx.Exec(ctx, postgresSchema, pgx.QueryExecModeSimpleProtocol)
		return err
	})
}

// enumVersion is River's migration that adds a value to river_job_state; a later one
// uses it, which Postgres refuses in the transaction that added it.
const enumVersion = 4

// pgxQuerier is what a pgxpool.Pool and a pgx.Tx share.
type pgxQuerier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

type pgxConn struct{ q pgxQuerier }

func (c pgxConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := c.q.Exec(ctx, q, args...)
	return tag.RowsAffected(), err
}

func (c pgxConn) queryRow(ctx context.Context, q string, args ...any) row {
	return pgxRow{c.q.QueryRow(ctx, q, args...)}
}

func (c pgxConn) queryStrings(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := c.q.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

type pgxRow struct{ r pgx.Row }

func (r pgxRow) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return errNoRows
	}
	return err
}
