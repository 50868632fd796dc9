package riverstore

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"net/url"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	_ "modernc.org/sqlite" // the pure-Go SQLite (no cgo): database/sql driver "sqlite"
)

//go:embed schema_sqlite.sql
var sqliteSchema string

// OpenSQLite opens the SQLite database file at path (created if absent) as one client:
// a database/sql pool of one connection, as River's SQLite driver asks (SQLite runs one
// writer at a time; a second connection of the same process would only meet
// SQLITE_BUSY), in WAL mode, with transactions that begin IMMEDIATE (taking the write
// lock before their first read, so two clients' read-modify-writes queue rather than
// deadlock) and a busy timeout for the other clients of the file.
func OpenSQLite(path string) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(30000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)") // a commit is on disk when it returns (M-CREATE-2)
	q.Add("_pragma", "foreign_keys(ON)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("river-sqlite: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// NewSQLite returns a Backend on db (from OpenSQLite) through River's SQLite driver.
func NewSQLite(sqlDB *sql.DB, opts ...Option) (*Backend[*sql.Tx], error) {
	cfg := newConfig(opts)
	client, err := river.NewClient(riversqlite.New(sqlDB), cfg.river)
	if err != nil {
		return nil, fmt.Errorf("river-sqlite: %w", err)
	}
	d := &db[*sql.Tx]{pool: sqlConn{sqlDB}, sql: &sqliteQueries, name: "river-sqlite"}
	d.inTx = func(ctx context.Context, fn func(tx *sql.Tx, c conn) error) error {
		tx, err := sqlDB.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := fn(tx, sqlConn{tx}); err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	}
	return &Backend[*sql.Tx]{db: d, client: client, cfg: cfg}, nil
}

// MigrateSQLite applies River's migrations (rivermigrate) and the task tables to db, in
// one transaction. It is idempotent.
func MigrateSQLite(ctx context.Context, db *sql.DB) error {
	migrator, err := rivermigrate.New(riversqlite.New(db), nil)
	if err != nil {
		return fmt.Errorf("river-sqlite: migrate: %w", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("river-sqlite: migrate: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := migrator.MigrateTx(ctx, tx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river-sqlite: river's migrations: %w", err)
	}
	if _, err := tx.ExecContext(ctx, sqliteSchema); err != nil {
		return fmt.Errorf("river-sqlite: migrate: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("river-sqlite: migrate: %w", err)
	}
	return nil
}

// sqlQuerier is what a sql.DB and a sql.Tx share.
type sqlQuerier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

type sqlConn struct{ q sqlQuerier }

func (c sqlConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := c.q.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (c sqlConn) queryRow(ctx context.Context, q string, args ...any) row {
	return sqlRow{c.q.QueryRowContext(ctx, q, args...)}
}

func (c sqlConn) queryStrings(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := c.q.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

type sqlRow struct{ r *sql.Row }

func (r sqlRow) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return errNoRows
	}
	return err
}
