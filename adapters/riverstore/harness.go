package riverstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/storecheck/storecheck/adapters/internal/opened"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/internal/pgschema"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// capabilities of both flavours: both eras, the store's clock, and every Legacy or
// Modern call of a namespace is a distinct client of one database (S-SHARE-1).
var capabilities = harness.Capabilities{Legacy: true, Modern: true, Clock: true, Shared: true}

// eras are a namespace's stores of both eras, each on a new Backend from backend.
type eras[TTx any] struct {
	backend func(context.Context) (*Backend[TTx], error)
}

func (e eras[TTx]) Legacy(ctx context.Context) (legacy.Store, error) {
	b, err := e.backend(ctx)
	if err != nil {
		return nil, err
	}
	return b.Legacy(), nil
}

func (e eras[TTx]) Modern(ctx context.Context) (modern.Store, error) {
	b, err := e.backend(ctx)
	if err != nil {
		return nil, err
	}
	return b.Modern(), nil
}

func randomName(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// ---- Postgres ----

// PostgresHarness puts the River stores under the battery on the Postgres server at a
// DSN. Every namespace is a fresh schema, migrated (River's tables and the task tables)
// on Open and dropped on Close (B-ISO-1); each Legacy or Modern call opens a new pool and
// River client on it.
type PostgresHarness struct {
	dsn string

	admin pgschema.Admin
}

var _ harness.Harness = (*PostgresHarness)(nil)

// NewPostgresHarness returns a harness on the server at dsn. Call Close when done.
func NewPostgresHarness(dsn string) *PostgresHarness {
	return &PostgresHarness{dsn: dsn, admin: pgschema.Admin{DSN: dsn, What: "river-postgres harness"}}
}

func (h *PostgresHarness) Name() string                       { return "river-postgres" }
func (h *PostgresHarness) Capabilities() harness.Capabilities { return capabilities }

// Close closes the administrative pool.
func (h *PostgresHarness) Close() { h.admin.Close() }

// Open creates and migrates a schema with a random name.
func (h *PostgresHarness) Open(ctx context.Context, clock reference.Clock) (harness.Namespace, error) {
	schema, err := h.admin.NewSchema(ctx, "storecheck_river_")
	if err != nil {
		return nil, err
	}
	ns := &pgNamespace{h: h, schema: schema, clock: clock}
	ns.eras = eras[pgx.Tx]{ns.backend}
	pool, err := ns.newPool(ctx, 2) // MigratePostgres holds one for its lock
	if err != nil {
		return nil, errors.Join(err, ns.Close(ctx))
	}
	if err := MigratePostgres(ctx, pool); err != nil {
		return nil, errors.Join(err, ns.Close(ctx))
	}
	return ns, nil
}

type pgNamespace struct {
	eras[pgx.Tx]
	h      *PostgresHarness
	schema string
	clock  reference.Clock

	pools opened.Set[*pgxpool.Pool]
	kept  bool // a named schema (cluster.go): Close leaves it
}

// newPool opens a pool whose connections all land in the namespace's schema.
func (n *pgNamespace) newPool(ctx context.Context, maxConns int32) (*pgxpool.Pool, error) {
	return n.pools.Add(func() (*pgxpool.Pool, error) {
		cfg, err := pgschema.PoolConfig(n.h.dsn, n.schema, maxConns)
		if err != nil {
			return nil, fmt.Errorf("river-postgres harness: %w", err)
		}
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("river-postgres harness: %w", err)
		}
		return pool, nil
	}, harness.ErrClosed)
}

func (n *pgNamespace) backend(ctx context.Context) (*Backend[pgx.Tx], error) {
	pool, err := n.newPool(ctx, 16)
	if err != nil {
		return nil, err
	}
	return NewPostgres(pool, WithClock(n.clock))
}

// Close closes the namespace's pools and drops its schema with everything in it.
func (n *pgNamespace) Close(ctx context.Context) error {
	for _, p := range n.pools.Close() {
		p.Close()
	}
	if n.kept {
		return nil
	}
	return n.h.admin.DropSchema(ctx, n.schema)
}

// ---- SQLite ----

// SQLiteHarness puts the River stores under the battery on SQLite database files in a
// directory: every namespace is a fresh file, a copy of one migrated once (River's
// migrations are the slow part of a fresh database), removed on Close (B-ISO-1); each
// Legacy or Modern call opens a new client (OpenSQLite) on the file.
type SQLiteHarness struct {
	dir     string
	ownsDir bool

	once     sync.Once
	template []byte
	err      error
}

var _ harness.Harness = (*SQLiteHarness)(nil)

// NewSQLiteHarness returns a harness keeping its files in dir; "" is a fresh temporary
// directory, removed by Close.
func NewSQLiteHarness(dir string) (*SQLiteHarness, error) {
	h := &SQLiteHarness{dir: dir}
	if dir == "" {
		d, err := os.MkdirTemp("", "storecheck-river-sqlite-")
		if err != nil {
			return nil, fmt.Errorf("river-sqlite harness: %w", err)
		}
		h.dir, h.ownsDir = d, true
	}
	return h, nil
}

func (h *SQLiteHarness) Name() string                       { return "river-sqlite" }
func (h *SQLiteHarness) Capabilities() harness.Capabilities { return capabilities }

// Close removes the temporary directory, if the harness made it.
func (h *SQLiteHarness) Close() {
	if h.ownsDir {
		_ = os.RemoveAll(h.dir)
	}
}

// migrated returns the bytes of a migrated, empty database file.
func (h *SQLiteHarness) migrated(ctx context.Context) ([]byte, error) {
	h.once.Do(func() {
		path := filepath.Join(h.dir, randomName("template-")+".db")
		// The template's own file: a failed removal leaves litter in h.dir, removed with it.
		defer func() { _ = removeSQLite(path) }()
		db, err := OpenSQLite(path)
		if err != nil {
			h.err = err
			return
		}
		err = MigrateSQLite(ctx, db)
		if err == nil {
			// Fold the WAL into the main file, so the file alone is the database.
			_, err = db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
		}
		if cerr := db.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			h.template, err = os.ReadFile(path)
		}
		h.err = err
	})
	return h.template, h.err
}

// Open copies the migrated template to a new file.
func (h *SQLiteHarness) Open(ctx context.Context, clock reference.Clock) (harness.Namespace, error) {
	tmpl, err := h.migrated(ctx)
	if err != nil {
		return nil, fmt.Errorf("river-sqlite harness: %w", err)
	}
	path := filepath.Join(h.dir, randomName("ns-")+".db")
	if err := os.WriteFile(path, tmpl, 0o600); err != nil {
		return nil, fmt.Errorf("river-sqlite harness: %w", err)
	}
	ns := &sqliteNamespace{path: path, clock: clock}
	ns.eras = eras[*sql.Tx]{ns.backend}
	return ns, nil
}

type sqliteNamespace struct {
	eras[*sql.Tx]
	path  string
	clock reference.Clock

	dbs opened.Set[*sql.DB]
}

func (n *sqliteNamespace) backend(context.Context) (*Backend[*sql.Tx], error) {
	db, err := n.dbs.Add(func() (*sql.DB, error) { return OpenSQLite(n.path) }, harness.ErrClosed)
	if err != nil {
		return nil, err
	}
	return NewSQLite(db, WithClock(n.clock))
}

// Close closes the namespace's clients and removes its file.
func (n *sqliteNamespace) Close(ctx context.Context) error {
	var errs []error
	for _, db := range n.dbs.Close() {
		errs = append(errs, db.Close())
	}
	return errors.Join(append(errs, removeSQLite(n.path))...)
}

// removeSQLite removes a database file and its WAL and shared-memory files.
func removeSQLite(path string) error {
	var errs []error
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// SchemaOf names the Postgres schema of a namespace opened by a PostgresHarness ("" for
// any other namespace), for tests that open their own clients on it.
func SchemaOf(ns harness.Namespace) string {
	if n, ok := ns.(*pgNamespace); ok {
		return n.schema
	}
	return ""
}
