// Package riverstore is a task store of both eras of docs/spec.md backed by River
// (github.com/riverqueue/river), the Go twin of the Oban guide "Using Oban for MCP Tasks" (its code is
// transcribed in conformance/mutants/oban_guide.go): every task row
// lives next to its River job, in the same database.
//
// Two flavours share one implementation (the SQL differs only in spelling, queries.go):
//
//   - Postgres through River's pgx v5 driver (NewPostgres, MigratePostgres): several
//     nodes on one database;
//   - SQLite through River's riversqlite driver on modernc.org/sqlite, a pure-Go SQLite
//     (no cgo): OpenSQLite, NewSQLite, MigrateSQLite. It needs no server, so it can serve
//     as an embedded durable store.
//
// A Backend is one client of the database: a River client and the stores over it.
// Create inserts the task row and its job (TaskArgs, queue Queue) in one transaction and
// links them (the guide's create_with_job): a task never lacks its job, a refused Create
// leaves no job. The legacy store's Cancel, and a modern Swap to cancelled, cancel the job
// through River (JobCancelTx) in the transaction of the write; a job that already
// finished or was pruned is no error (L-CANCEL-1). The modern store is compare-and-swap
// on a version column; the legacy store's read-modify-writes hold the row (FOR UPDATE on
// Postgres, an IMMEDIATE transaction on SQLite).
//
// River's schema comes from River's own migrator (rivermigrate); the task tables
// (schema_postgres.sql, schema_sqlite.sql) follow it. The row layout, values as JSON text
// and owners and statuses as byte-exact blobs, is adapters/postgres's, shared through
// adapters/internal/taskrow. The stores read the clock they are given, never the
// database's (River's own job timestamps use the real clock).
//
// README.md maps task statuses to River job states and says what the Oban guide's own
// store gets wrong; examples/river-worker is the worker.
package riverstore
