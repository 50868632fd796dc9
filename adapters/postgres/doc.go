// Package postgres is a task store on PostgreSQL (pgx v5, pgxpool) for both eras of
// docs/spec.md: Legacy implements legacy.Store plus the optional Canceler, Cleaner and
// ConditionalUpdater; Modern implements modern.Store.
//
// # Schema
//
// The schema (schema.sql, embedded) is applied by Migrate into the first schema of the
// connection's search_path. Migrate is idempotent and safe to run from several nodes at
// once: it holds a transaction-scoped advisory lock keyed by the schema name, and every
// statement is CREATE … IF NOT EXISTS. Two tables:
//
//	storecheck_legacy_tasks(task_id text PK, owner bytea, status bytea, created_at bigint, body text)
//	storecheck_modern_tasks(task_id text PK, owner bytea, created_at bigint, ttl bigint,
//	                        expires_at bigint, version bigint, body text)
//
// # Representation of values
//
// JSON lives in text columns holding JSON as encoded by Go, not in jsonb. jsonb cannot
// hold U+0000 (the write fails), and it rewrites numbers (1e-7 becomes 0.0000001, and a
// value's spelling is lost), drops duplicate keys and reorders keys. JSON text escapes
// U+0000 as \u0000, keeps every number's digits as written (values are json.Number, so an
// integer up to ±(2^63−1) never passes through float64), and keeps any Unicode text, so
// every value round-trips exactly (S-VAL-1, S-VAL-2). Go maps have no key order, so
// none is lost. The one thing JSON text cannot carry is a string that is not valid UTF-8:
// encoding/json would replace its bytes silently, so such a write is refused with
// reference.ErrInvalid instead.
//
// Owners and legacy statuses are compared in SQL, so they are promoted into bytea
// columns: byte-exact comparison with no collation, no case folding, no wildcards
// (S-OWN-3), and a NUL byte is an ordinary byte. A legacy task whose owner is present but
// not a string gets an owner no principal can match (legacy.Task.Owner), so only the
// system caller sees it. The legacy body keeps the whole task, owner and status included,
// so Get and List return the task exactly as written (L-OWNER-1); the promoted columns are
// rewritten from the merged task on every write, in the same statement.
//
// # Time
//
// The store never reads the database's clock (no now()): cleanup, expiry and sweep take
// the store's reference.Clock in milliseconds as a statement parameter, so tests can move
// time.
//
// # Writes
//
// Every statement is parameterised; ids and owners are ordinary values whatever they
// contain. Legacy List pushes status, owner scope and limit into one query. Legacy
// Update, UpdateIf and Cancel read the row FOR UPDATE, merge in Go and write it back in
// one transaction, so concurrent updates of disjoint keys all survive (L-CONC-1) and a
// deleted task is never resurrected. Modern Swap is one conditional UPDATE on the version
// column; when it matches no row, a read of the row decides which error to return. Create
// commits with synchronous_commit on before it returns (M-CREATE-2).
//
// # Contexts
//
// Build the pool with CancelOnServer: a statement whose context ends is then cancelled on
// the server before the call returns (pgx waits up to 400 ms for the server's answer), so
// a write that returned the context's error was not applied and cannot commit later, when
// a lock it waited on goes (S-CTX-1). pgx never sends a statement twice.
package postgres
