package riverstore

import (
	"regexp"
	"strings"

	"github.com/storecheck/storecheck/adapters/internal/taskrow"
)

// queries is one flavour's SQL. Each statement is written once, in Postgres's dialect;
// sqliteQueries rewrites the few spellings SQLite lacks (casts, FOR UPDATE,
// IS NOT DISTINCT FROM). Parameters are numbered, so SQLite's ?NNN binds them alike.
type queries struct {
	createLegacy, linkLegacy, getLegacy, lockLegacy, writeLegacy, writeLegacyBody, deleteLegacy, cleanup string

	// list are the List queries, one per owner scope.
	list taskrow.ListQueries

	createModern, linkModern, loadModern, swapModern, swapModernBody, deleteModern, sweep string

	jobLegacy, jobModern string

	// unbounded is the LIMIT parameter meaning "no limit".
	unbounded any
}

// durable is the FROM clause of Postgres's INSERTs of Create: synchronous_commit on for
// the statement's transaction, whatever the server's setting (M-CREATE-2); see
// adapters/postgres.
const durable = `FROM (SELECT set_config('synchronous_commit', 'on', true)) AS durable`

var postgresQueries = queries{
	createLegacy: `INSERT INTO storecheck_river_legacy_tasks (task_id, owner, status, created_at, body)
		SELECT $1::text, $2::bytea, $3::bytea, $4::bigint, $5::text ` + durable + `
		ON CONFLICT (task_id) DO NOTHING`,
	linkLegacy:      `UPDATE storecheck_river_legacy_tasks SET job_id = $2 WHERE task_id = $1`,
	getLegacy:       `SELECT body FROM storecheck_river_legacy_tasks WHERE task_id = $1`,
	lockLegacy:      `SELECT body, job_id FROM storecheck_river_legacy_tasks WHERE task_id = $1 FOR UPDATE`,
	writeLegacy:     `UPDATE storecheck_river_legacy_tasks SET owner = $2, status = $3, created_at = $4, body = $5 WHERE task_id = $1`,
	writeLegacyBody: `UPDATE storecheck_river_legacy_tasks SET body = $2 WHERE task_id = $1`,
	deleteLegacy:    `DELETE FROM storecheck_river_legacy_tasks WHERE task_id = $1`,
	// $1 status filter (NULL: any), $2 limit, $3 principal.
	list: taskrow.ListQueries{
		Any: `SELECT body FROM storecheck_river_legacy_tasks
		WHERE ($1::bytea IS NULL OR status = $1::bytea) ORDER BY task_id LIMIT $2::bigint`,
		Unowned: `SELECT body FROM storecheck_river_legacy_tasks
		WHERE ($1::bytea IS NULL OR status = $1::bytea) AND owner IS NULL ORDER BY task_id LIMIT $2::bigint`,
		Principal: `SELECT body FROM storecheck_river_legacy_tasks
		WHERE ($1::bytea IS NULL OR status = $1::bytea) AND (owner = $3::bytea OR owner IS NULL) ORDER BY task_id LIMIT $2::bigint`,
		PrincipalOnly: `SELECT body FROM storecheck_river_legacy_tasks
		WHERE ($1::bytea IS NULL OR status = $1::bytea) AND owner = $3::bytea ORDER BY task_id LIMIT $2::bigint`,
	},
	cleanup: `DELETE FROM storecheck_river_legacy_tasks
		WHERE status IN ($1::bytea, $2::bytea, $3::bytea) AND created_at <= $4::bigint`,

	createModern: `INSERT INTO storecheck_river_modern_tasks (task_id, owner, created_at, ttl, expires_at, version, body)
		SELECT $1::text, $2::bytea, $3::bigint, $4::bigint, $5::bigint, $6::bigint, $7::text ` + durable + `
		ON CONFLICT (task_id) DO NOTHING`,
	linkModern: `UPDATE storecheck_river_modern_tasks SET job_id = $2 WHERE task_id = $1`,
	// $2 now: NULL reads expired rows too.
	loadModern: `SELECT owner, created_at, ttl, version, body FROM storecheck_river_modern_tasks
		WHERE task_id = $1 AND ($2::bigint IS NULL OR expires_at IS NULL OR expires_at > $2::bigint)`,
	// The CAS: one conditional UPDATE on the version column.
	swapModern: `UPDATE storecheck_river_modern_tasks SET version = $3, ttl = $4, expires_at = $5, body = $6
		WHERE task_id = $1 AND version = $2 AND (expires_at IS NULL OR expires_at > $7::bigint)
		  AND owner IS NOT DISTINCT FROM $8::bytea AND created_at = $9
		RETURNING job_id`,
	// swapModern for a task whose ttl is unchanged: expires_at (created_at + ttl, both
	// unchanged) is not set, so its index is not rewritten.
	swapModernBody: `UPDATE storecheck_river_modern_tasks SET version = $3, body = $5
		WHERE task_id = $1 AND version = $2 AND ttl IS NOT DISTINCT FROM $4::bigint
		  AND (expires_at IS NULL OR expires_at > $6::bigint)
		  AND owner IS NOT DISTINCT FROM $7::bytea AND created_at = $8
		RETURNING job_id`,
	deleteModern: `DELETE FROM storecheck_river_modern_tasks WHERE task_id = $1`,
	sweep:        `DELETE FROM storecheck_river_modern_tasks WHERE expires_at <= $1`,

	jobLegacy: `SELECT job_id FROM storecheck_river_legacy_tasks WHERE task_id = $1`,
	jobModern: `SELECT job_id FROM storecheck_river_modern_tasks WHERE task_id = $1`,
}

var (
	sqliteParam = regexp.MustCompile(`\$(\d+)(::[a-z]+)?`)
	sqliteCast  = regexp.MustCompile(`::[a-z]+`)
)

// sqliteQueries is postgresQueries in SQLite's spelling. SQLite has no FOR UPDATE: its
// transactions begin IMMEDIATE (the _txlock DSN parameter), taking the write lock first,
// which serialises read-modify-writes the same way.
var sqliteQueries = func() queries {
	q := postgresQueries
	rw := func(s string) string {
		s = sqliteParam.ReplaceAllString(s, "?$1")
		s = sqliteCast.ReplaceAllString(s, "")
		s = strings.ReplaceAll(s, " FOR UPDATE", "")
		s = strings.ReplaceAll(s, "IS NOT DISTINCT FROM", "IS")
		return s
	}
	for _, p := range []*string{&q.linkLegacy, &q.getLegacy, &q.lockLegacy, &q.writeLegacy, &q.writeLegacyBody, &q.deleteLegacy,
		&q.list.Any, &q.list.Unowned, &q.list.Principal, &q.list.PrincipalOnly, &q.cleanup,
		&q.linkModern, &q.loadModern, &q.swapModern, &q.swapModernBody, &q.deleteModern, &q.sweep, &q.jobLegacy, &q.jobModern} {
		*p = rw(*p)
	}
	// A transaction commit is durable in SQLite (synchronous=FULL): nothing to add.
	q.createLegacy = `INSERT INTO storecheck_river_legacy_tasks (task_id, owner, status, created_at, body)
		VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (task_id) DO NOTHING`
	q.createModern = `INSERT INTO storecheck_river_modern_tasks (task_id, owner, created_at, ttl, expires_at, version, body)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (task_id) DO NOTHING`
	q.unbounded = int64(-1) // SQLite: a negative LIMIT is no limit; NULL is an error
	return q
}()
