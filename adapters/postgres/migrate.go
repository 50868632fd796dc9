package postgres

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/storecheck/storecheck/internal/pgschema"
)

//go:embed schema.sql
var schemaSQL string

// Schema returns the SQL that Migrate applies (for review or for applying by hand).
func Schema() string { return schemaSQL }

// migrateLockClass is the first key of the advisory lock Migrate holds; the second is
// derived from the schema name, so migrations of different schemas do not wait on each
// other.
const migrateLockClass = 0x5c0c

// Beginner is what Migrate needs: *pgxpool.Pool and *pgx.Conn both are.
type Beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Migrate creates the adapter's tables and indexes in the current schema (the first
// schema of the connection's search_path). It is idempotent and safe to call from several
// nodes at once: concurrent CREATE … IF NOT EXISTS of one table can still collide in the
// catalogue, so callers serialise on an advisory lock held until the transaction ends.
func Migrate(ctx context.Context, db Beginner) error {
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		schema, err := pgschema.Current(ctx, tx)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, migrateLockClass, schema); err != nil {
			return err
		}
		// Simple protocol: the schema is several statements without parameters.
		_, err = tx.Exec(ctx, schemaSQL, pgx.QueryExecModeSimpleProtocol)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	return nil
}
