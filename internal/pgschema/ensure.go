package pgschema

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ensureLockClass is the first key of the advisory lock under which Ensure makes a
// schema: concurrent CREATE SCHEMA IF NOT EXISTS of one name can collide in the
// catalogue.
const ensureLockClass = 0x5c0d

// Ensure creates the schema name unless it exists; several processes may call it at once.
func Ensure(ctx context.Context, admin *pgxpool.Pool, name string) error {
	return pgx.BeginFunc(ctx, admin, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, ensureLockClass, name); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{name}.Sanitize())
		return err
	})
}
