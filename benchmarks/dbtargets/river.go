package dbtargets

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/storecheck/storecheck/adapters/riverstore"
	"github.com/storecheck/storecheck/benchmarks"
	"github.com/storecheck/storecheck/internal/pgschema"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// The River targets: adapters/riverstore's stores against the plainest code that keeps a task
// row next to its River job on the same tables: a transaction inserting the job (River's
// InsertTx) and the row, a plain UPDATE by primary key, a plain SELECT.
func init() {
	benchmarks.Register(benchmarks.Target{
		Name: "river-sqlite",
		Summary: "the River store on SQLite (riversqlite, modernc.org/sqlite) vs raw SQL on the same file: " +
			"row+job insert in one transaction, plain update and select by primary key",
		Start: startRiverSQLite,
	})
	benchmarks.Register(benchmarks.Target{
		Name: "river-postgres",
		Summary: "the River store on PostgreSQL (riverpgxv5) vs raw pgx on the same schema: " +
			"row+job insert in one transaction, plain update and select by primary key",
		Start: startRiverPostgres,
	})
}

func startRiverSQLite(ctx context.Context, _ benchmarks.Env) (*benchmarks.Backend, error) {
	dir, err := os.MkdirTemp("", "storecheck-bench-river-")
	if err != nil {
		return nil, err
	}
	n := 0
	open := func(ctx context.Context) (*sql.DB, func(context.Context) error, error) {
		n++
		path := filepath.Join(dir, "bench-"+strconv.Itoa(n)+".db")
		db, err := riverstore.OpenSQLite(path)
		if err == nil {
			err = riverstore.MigrateSQLite(ctx, db)
		}
		if err != nil {
			return nil, nil, err
		}
		return db, func(context.Context) error {
			err := db.Close()
			for _, p := range []string{path, path + "-wal", path + "-shm"} {
				_ = os.Remove(p)
			}
			return err
		}, nil
	}
	return riverBackend("river store (sqlite)", "raw SQL + River InsertTx (sqlite)", open, riverstore.NewSQLite, sqliteRaw,
		func(context.Context) error { return os.RemoveAll(dir) }), nil
}

func startRiverPostgres(ctx context.Context, env benchmarks.Env) (*benchmarks.Backend, error) {
	dsn, admin, stop, err := postgresServer(ctx, env, "river-postgres")
	if err != nil {
		return nil, err
	}
	open := func(ctx context.Context) (*pgxpool.Pool, func(context.Context) error, error) {
		return pgschema.Fresh(ctx, admin, dsn, "storecheck_bench_river_", pgConns, nil, riverstore.MigratePostgres)
	}
	return riverBackend("river store (postgres)", "raw pgx + River InsertTx (postgres)", open, riverstore.NewPostgres, pgRiverRaw, stop), nil
}

// riverBackend is a River target's store and baseline, each Space a database of its own
// from open: the store is newBackend's, the baseline newRaw's statements with a Backend
// of their own for River's InsertTx (its client), on the same tables.
func riverBackend[TTx, DB any](storeWhat, baseWhat string, open func(context.Context) (DB, func(context.Context) error, error),
	newBackend func(DB, ...riverstore.Option) (*riverstore.Backend[TTx], error),
	newRaw func(*river.Client[TTx], DB) *riverRaw[TTx], stop func(context.Context) error,
) *benchmarks.Backend {
	store := benchmarks.Subject{Label: "store", What: storeWhat, Open: func(ctx context.Context) (*benchmarks.Space, error) {
		db, closeDB, err := open(ctx)
		if err != nil {
			return nil, err
		}
		clock, set := benchmarks.ManualClock()
		b, err := newBackend(db, riverstore.WithClock(clock))
		if err != nil {
			return nil, errors.Join(err, closeDB(ctx))
		}
		raw := newRaw(b.Client(), db)
		return &benchmarks.Space{
			Legacy: benchmarks.StoreLegacy(b.Legacy(), set, raw.Seed),
			Modern: benchmarks.StoreModern(b.Modern(), clock),
			Close:  closeDB,
		}, nil
	}}
	base := benchmarks.Subject{Label: "baseline", What: baseWhat, Open: func(ctx context.Context) (*benchmarks.Space, error) {
		db, closeDB, err := open(ctx)
		if err != nil {
			return nil, err
		}
		b, err := newBackend(db)
		if err != nil {
			return nil, errors.Join(err, closeDB(ctx))
		}
		r := newRaw(b.Client(), db)
		return &benchmarks.Space{Legacy: r, Modern: rawModern{(*riverRawModern[TTx])(r)}, Close: closeDB}, nil
	}}
	return &benchmarks.Backend{Store: store, Baseline: base, Stop: stop}
}

// rowScanner is one row of a query.
type rowScanner interface{ Scan(dest ...any) error }

// riverRaw is the baseline over either driver: statements written in Postgres's
// spelling, rewritten for SQLite by sqlite.
type riverRaw[TTx any] struct {
	client    *river.Client[TTx]
	inTx      func(ctx context.Context, fn func(tx TTx, exec func(q string, args ...any) error) error) error
	exec      func(ctx context.Context, q string, args ...any) (int64, error)
	queryRow  func(ctx context.Context, q string, args ...any) rowScanner
	count     func(ctx context.Context, q string, args ...any) (int, error)
	sql       func(string) string
	createdAt int64
}

var dollarParam = regexp.MustCompile(`\$(\d+)`)

func sqliteRaw(client *river.Client[*sql.Tx], db *sql.DB) *riverRaw[*sql.Tx] {
	return &riverRaw[*sql.Tx]{
		client: client,
		inTx: func(ctx context.Context, fn func(tx *sql.Tx, exec func(q string, args ...any) error) error) error {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			err = fn(tx, func(q string, args ...any) error { _, err := tx.ExecContext(ctx, q, args...); return err })
			if err != nil {
				_ = tx.Rollback()
				return err
			}
			return tx.Commit()
		},
		exec: func(ctx context.Context, q string, args ...any) (int64, error) {
			res, err := db.ExecContext(ctx, q, args...)
			if err != nil {
				return 0, err
			}
			return res.RowsAffected()
		},
		queryRow: func(ctx context.Context, q string, args ...any) rowScanner {
			return db.QueryRowContext(ctx, q, args...)
		},
		count: func(ctx context.Context, q string, args ...any) (int, error) {
			rows, err := db.QueryContext(ctx, q, args...)
			if err != nil {
				return 0, err
			}
			defer rows.Close()
			n := 0
			for rows.Next() {
				var body string
				if err := rows.Scan(&body); err != nil {
					return n, err
				}
				n++
			}
			return n, rows.Err()
		},
		sql:       func(q string) string { return dollarParam.ReplaceAllString(q, "?$1") },
		createdAt: time.Now().UnixMilli(),
	}
}

func pgRiverRaw(client *river.Client[pgx.Tx], pool *pgxpool.Pool) *riverRaw[pgx.Tx] {
	return &riverRaw[pgx.Tx]{
		client: client,
		inTx: func(ctx context.Context, fn func(tx pgx.Tx, exec func(q string, args ...any) error) error) error {
			return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				return fn(tx, func(q string, args ...any) error { _, err := tx.Exec(ctx, q, args...); return err })
			})
		},
		exec: func(ctx context.Context, q string, args ...any) (int64, error) {
			tag, err := pool.Exec(ctx, q, args...)
			return tag.RowsAffected(), err
		},
		queryRow: func(ctx context.Context, q string, args ...any) rowScanner { return pool.QueryRow(ctx, q, args...) },
		count: func(ctx context.Context, q string, args ...any) (int, error) {
			rows, err := pool.Query(ctx, q, args...)
			if err != nil {
				return 0, err
			}
			bodies, err := pgx.CollectRows(rows, pgx.RowTo[string])
			return len(bodies), err
		},
		sql:       func(q string) string { return q },
		createdAt: time.Now().UnixMilli(),
	}
}

// insertJob is River's job insert in tx: the part of a create no River store can skip.
func (r *riverRaw[TTx]) insertJob(ctx context.Context, tx TTx, id, era string) (int64, error) {
	res, err := r.client.InsertTx(ctx, tx, riverstore.TaskArgs{TaskID: id, Era: era},
		&river.InsertOpts{Queue: riverstore.Queue, MaxAttempts: riverstore.MaxAttempts})
	if err != nil {
		return 0, err
	}
	return res.Job.ID, nil
}

func (r *riverRaw[TTx]) Create(ctx context.Context, id, owner string) error {
	return r.inTx(ctx, func(tx TTx, exec func(q string, args ...any) error) error {
		job, err := r.insertJob(ctx, tx, id, riverstore.EraLegacy)
		if err != nil {
			return err
		}
		return exec(r.sql(`INSERT INTO storecheck_river_legacy_tasks (task_id, job_id, owner, status, created_at, body)
			VALUES ($1, $2, $3, $4, $5, $6)`), id, job, []byte(owner), []byte("working"), r.createdAt, legacyBody(id, owner, 0))
	})
}

func (r *riverRaw[TTx]) Get(ctx context.Context, id string) error {
	var body string
	return r.queryRow(ctx, r.sql(`SELECT body FROM storecheck_river_legacy_tasks WHERE task_id = $1`), id).Scan(&body)
}

func (r *riverRaw[TTx]) Update(ctx context.Context, id string, n int) error {
	rows, err := r.exec(ctx, r.sql(`UPDATE storecheck_river_legacy_tasks SET body = $2 WHERE task_id = $1`), id, legacyBody(id, "", n))
	if err == nil && rows != 1 {
		err = reference.NotFound(id)
	}
	return err
}

func (r *riverRaw[TTx]) List(ctx context.Context, owner string, limit int) (int, error) {
	return r.count(ctx, r.sql(`SELECT body FROM storecheck_river_legacy_tasks
		WHERE (owner = $1 OR owner IS NULL) ORDER BY task_id LIMIT $2`), []byte(owner), limit)
}

// Seed loads completed tasks in one transaction, rows as the store writes them (the
// cleanup case's setup, for both subjects; no jobs: Cleanup never reads them).
func (r *riverRaw[TTx]) Seed(ctx context.Context, ids []string, owner string, atMillis int64) error {
	return r.inTx(ctx, func(_ TTx, exec func(q string, args ...any) error) error {
		for _, id := range ids {
			meta := benchmarks.LegacyMeta(owner, 0)
			row, err := legacy.NewRow(id, meta, atMillis)
			if err != nil {
				return err
			}
			row[legacy.KeyStatus] = string(reference.StatusCompleted)
			body, err := json.Marshal(row)
			if err != nil {
				return err
			}
			if err := exec(r.sql(`INSERT INTO storecheck_river_legacy_tasks (task_id, owner, status, created_at, body)
				VALUES ($1, $2, $3, $4, $5)`), id, []byte(owner), []byte(reference.StatusCompleted), atMillis, string(body)); err != nil {
				return err
			}
		}
		return nil
	})
}

func (r *riverRaw[TTx]) Cleanup(ctx context.Context, nowMillis int64, ttl time.Duration) (int, error) {
	n, err := r.exec(ctx, r.sql(`DELETE FROM storecheck_river_legacy_tasks WHERE status IN ($1, $2, $3) AND created_at <= $4`),
		[]byte("completed"), []byte("failed"), []byte("cancelled"), nowMillis-ttl.Milliseconds()-1)
	return int(n), err
}

// riverRawModern is the modern half of the baseline.
type riverRawModern[TTx any] riverRaw[TTx]

func (r *riverRawModern[TTx]) raw() *riverRaw[TTx] { return (*riverRaw[TTx])(r) }

func (r *riverRawModern[TTx]) Create(ctx context.Context, id, owner string) error {
	ttl := benchmarks.TaskTTL.Milliseconds()
	return r.inTx(ctx, func(tx TTx, exec func(q string, args ...any) error) error {
		job, err := r.raw().insertJob(ctx, tx, id, riverstore.EraModern)
		if err != nil {
			return err
		}
		return exec(r.sql(`INSERT INTO storecheck_river_modern_tasks (task_id, job_id, owner, created_at, ttl, expires_at, version, body)
			VALUES ($1, $2, $3, $4, $5, $6, 1, $7)`), id, job, []byte(owner), r.createdAt, ttl, r.createdAt+ttl, modernBodyJSON)
	})
}

func (r *riverRawModern[TTx]) get(ctx context.Context, id string) (int64, error) {
	return scanVersion(r.queryRow(ctx, r.sql(`SELECT owner, created_at, ttl, version, body FROM storecheck_river_modern_tasks
		WHERE task_id = $1 AND (expires_at IS NULL OR expires_at > $2)`), id, time.Now().UnixMilli()))
}

func (r *riverRawModern[TTx]) swap(ctx context.Context, id string, version int64) (bool, error) {
	n, err := r.exec(ctx, r.sql(`UPDATE storecheck_river_modern_tasks SET version = $3, body = $4 WHERE task_id = $1 AND version = $2`),
		id, version, version+1, modernBodyJSON)
	return n == 1, err
}
