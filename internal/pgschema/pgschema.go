// Package pgschema brings up what every PostgreSQL-backed adapter gives a spec or a
// benchmark: a fresh schema with a random name, pools whose connections land in it and
// nowhere else, and its drop; and it tells the adapters' migrations which schema a
// connection creates tables in. The postgres and river adapters and the benchmark
// targets on PostgreSQL share it.
package pgschema

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// RandomName is prefix followed by 16 random hex digits.
func RandomName(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// AdminPool opens the small pool on dsn that creates and drops schemas, and checks the
// server answers.
func AdminPool(ctx context.Context, dsn string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// Admin is a harness's administrative pool, opened on first use (AdminPool) and kept
// until Close. Its zero value with DSN set is ready.
type Admin struct {
	DSN string
	// What names the harness in the errors of NewSchema and DropSchema ("postgres
	// harness").
	What string

	mu   sync.Mutex
	pool *pgxpool.Pool
}

// Pool returns the pool, opening it on first use.
func (a *Admin) Pool(ctx context.Context) (*pgxpool.Pool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pool != nil {
		return a.pool, nil
	}
	pool, err := AdminPool(ctx, a.DSN)
	if err != nil {
		return nil, err
	}
	a.pool = pool
	return pool, nil
}

// Close closes the pool; a later Pool opens another.
func (a *Admin) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pool != nil {
		a.pool.Close()
		a.pool = nil
	}
}

// NewSchema creates a schema named prefix followed by random digits and returns its name.
func (a *Admin) NewSchema(ctx context.Context, prefix string) (string, error) {
	admin, err := a.Pool(ctx)
	if err != nil {
		return "", fmt.Errorf("%s: %w", a.What, err)
	}
	name := RandomName(prefix)
	if err := Create(ctx, admin, name); err != nil {
		return "", fmt.Errorf("%s: create schema %s: %w", a.What, name, err)
	}
	return name, nil
}

// DropSchema drops the schema name with everything in it (Drop), even when ctx has
// ended.
func (a *Admin) DropSchema(ctx context.Context, name string) error {
	admin, err := a.Pool(context.WithoutCancel(ctx))
	if err != nil {
		return fmt.Errorf("%s: %w", a.What, err)
	}
	if err := Drop(ctx, admin, name); err != nil {
		return fmt.Errorf("%s: drop schema %s: %w", a.What, name, err)
	}
	return nil
}

// Create creates the schema name.
func Create(ctx context.Context, admin *pgxpool.Pool, name string) error {
	_, err := admin.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize())
	return err
}

// Drop drops the schema name with everything in it. A spec's context may already be
// over when its namespace closes; the schema must go all the same, so Drop runs on its
// own 30-second bound.
func Drop(ctx context.Context, admin *pgxpool.Pool, name string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_, err := admin.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE")
	return err
}

// PoolConfig is dsn's pool configuration with at most maxConns connections, each landing
// in the schema name: search_path is a startup parameter, so no statement can reach
// another schema's tables.
func PoolConfig(dsn, name string, maxConns int32) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = maxConns
	cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{name}.Sanitize()
	return cfg, nil
}

// Fresh creates a schema named prefix plus random digits, opens a pool of maxConns on
// it (configure, when set, adjusts its configuration first) and runs migrate on the
// pool. It returns the pool and the function that closes it and drops the schema; on
// an error nothing is left behind.
func Fresh(ctx context.Context, admin *pgxpool.Pool, dsn, prefix string, maxConns int32,
	configure func(*pgxpool.Config), migrate func(context.Context, *pgxpool.Pool) error,
) (*pgxpool.Pool, func(context.Context) error, error) {
	name := RandomName(prefix)
	if err := Create(ctx, admin, name); err != nil {
		return nil, nil, fmt.Errorf("create schema %s: %w", name, err)
	}
	drop := func(ctx context.Context) error { return Drop(ctx, admin, name) }
	cfg, err := PoolConfig(dsn, name, maxConns)
	if err != nil {
		return nil, nil, errors.Join(err, drop(ctx))
	}
	if configure != nil {
		configure(cfg)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err == nil {
		err = migrate(ctx, pool)
	}
	if err != nil {
		if pool != nil {
			pool.Close()
		}
		return nil, nil, errors.Join(err, drop(ctx))
	}
	return pool, func(ctx context.Context) error { pool.Close(); return drop(ctx) }, nil
}

// RowQuerier is what Current reads through: a connection, a pool or a transaction.
type RowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Current is the schema q creates tables in: the first schema of its search_path that
// exists. Its error says so when there is none.
func Current(ctx context.Context, q RowQuerier) (string, error) {
	var schema *string
	if err := q.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return "", err
	}
	if schema == nil {
		return "", errors.New("no schema to create tables in: the search_path names no existing schema")
	}
	return *schema, nil
}
