package postgres

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/storecheck/storecheck/adapters/internal/legacywrite"
	"github.com/storecheck/storecheck/adapters/internal/taskrow"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Legacy is the legacy-era store (docs/spec.md 1.1) on the tables of Migrate in the pool's
// search_path.
type Legacy struct {
	pool *pgxpool.Pool
	cfg  config
	legacywrite.Writes
}

var (
	_ legacy.Store              = (*Legacy)(nil)
	_ legacy.Canceler           = (*Legacy)(nil)
	_ legacy.Cleaner            = (*Legacy)(nil)
	_ legacy.ConditionalUpdater = (*Legacy)(nil)
	_ legacy.Pager              = (*Legacy)(nil)
)

// NewLegacy returns the legacy store on pool. Run Migrate once before first use.
func NewLegacy(pool *pgxpool.Pool, opts ...Option) *Legacy {
	l := &Legacy{pool: pool, cfg: newConfig(opts)}
	l.Writes = legacywrite.Writes{Modify: l.modify}
	return l
}

// Create stores meta stamped with task_id, status working and created_at from the store's
// clock (L-CREATE-1); an existing id fails with reference.ErrExists and is untouched.
func (l *Legacy) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	row, r, err := taskrow.NewLegacyRow(id, meta, l.cfg.now())
	if err != nil {
		return nil, err
	}
	tag, err := l.pool.Exec(ctx,
		`INSERT INTO storecheck_legacy_tasks (task_id, owner, status, created_at, body)
		 SELECT $1::text, $2::bytea, $3::bytea, $4::bigint, $5::text `+durable+`
		 ON CONFLICT (task_id) DO NOTHING`,
		id, r.Owner, r.Status, r.CreatedAt, r.Body)
	if err != nil {
		return nil, dbError(ctx, "create", err)
	}
	if tag.RowsAffected() == 0 {
		return nil, reference.ErrorFor(reference.ErrExists, id)
	}
	return row, nil // NewRow's copy is private: nothing else holds it
}

// Get returns the task, or reference.ErrNotFound (L-GET-1).
func (l *Legacy) Get(ctx context.Context, id string) (legacy.Task, error) {
	if err := reference.ValidateID(id); err != nil {
		return nil, err
	}
	var body string
	err := l.pool.QueryRow(ctx, `SELECT body FROM storecheck_legacy_tasks WHERE task_id = $1`, id).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, reference.NotFound(id)
	}
	if err != nil {
		return nil, dbError(ctx, "get", err)
	}
	return taskrow.DecodeLegacy(body)
}

// modify is the read-merge-write of Update, UpdateIf (allowed non-nil) and Cancel
// (legacywrite.Writes): a compare-and-swap of the task's body, or, when another write
// came first, one transaction holding the row lock, so UpdateIf's check and write are one
// atomic step.
func (l *Legacy) modify(ctx context.Context, op, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	ch, err := taskrow.LegacyChanges(id, changes)
	if err != nil {
		return nil, err
	}
	// Read, merge in Go, then write only if the body is still the one read: two
	// statements in autocommit instead of BEGIN, SELECT … FOR UPDATE, UPDATE, COMMIT
	// (four round trips; the bench's 0.52× of one raw UPDATE). The body is the task's
	// whole text, so an unchanged body is an unchanged task and the compare is a
	// compare-and-swap. The merge stays in Go because the stored text must stay
	// byte-exact (jsonb would reformat numbers).
	var body string
	err = l.pool.QueryRow(ctx, `SELECT body FROM storecheck_legacy_tasks WHERE task_id = $1`, id).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, dbError(ctx, op, reference.NotFound(id))
	}
	if err != nil {
		return nil, dbError(ctx, op, err)
	}
	_, next, r, err := taskrow.MergeLegacy(id, body, allowed, ch)
	if err != nil {
		return nil, dbError(ctx, op, err) // a sentinel (ErrConflict) passes as it is
	}
	tag, err := l.pool.Exec(ctx,
		`UPDATE storecheck_legacy_tasks SET owner = $2, status = $3, created_at = $4, body = $5
		 WHERE task_id = $1 AND body = $6`, id, r.Owner, r.Status, r.CreatedAt, r.Body, body)
	if err != nil {
		return nil, dbError(ctx, op, err)
	}
	if tag.RowsAffected() == 1 {
		return next, nil
	}
	// Another write (or a delete) came between the read and the write: the task is
	// contended, and retrying the compare would race the same writers again (n writers
	// of one row make O(n²) attempts). Queue on the row lock instead, which no write
	// passes: the merge is redone on what the other writes left (L-CONC-1: no update
	// is lost).
	err = pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT body FROM storecheck_legacy_tasks WHERE task_id = $1 FOR UPDATE`, id).Scan(&body); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return reference.NotFound(id)
			}
			return err
		}
		_, next, r, err = taskrow.MergeLegacy(id, body, allowed, ch)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx,
			`UPDATE storecheck_legacy_tasks SET owner = $2, status = $3, created_at = $4, body = $5 WHERE task_id = $1`,
			id, r.Owner, r.Status, r.CreatedAt, r.Body)
		return err
	})
	if err != nil {
		return nil, dbError(ctx, op, err)
	}
	return next, nil
}

// Delete removes the task; a missing id is not an error (L-DELETE-1).
func (l *Legacy) Delete(ctx context.Context, id string) error {
	return deleteTask(ctx, l.pool, `DELETE FROM storecheck_legacy_tasks WHERE task_id = $1`, id)
}

// listQueries are the list queries, one per owner scope: status, owner and limit all in
// SQL (L-LIST-1..4). $1 is the status filter (NULL: any), $2 the limit (NULL: unbounded),
// $3 the principal.
var listQueries = taskrow.ListQueries{
	Any: `SELECT body FROM storecheck_legacy_tasks
		WHERE ($1::bytea IS NULL OR status = $1) ORDER BY task_id LIMIT $2`,
	Unowned: `SELECT body FROM storecheck_legacy_tasks
		WHERE ($1::bytea IS NULL OR status = $1) AND owner IS NULL ORDER BY task_id LIMIT $2`,
	Principal: `SELECT body FROM storecheck_legacy_tasks
		WHERE ($1::bytea IS NULL OR status = $1) AND (owner = $3 OR owner IS NULL) ORDER BY task_id LIMIT $2`,
	PrincipalOnly: `SELECT body FROM storecheck_legacy_tasks
		WHERE ($1::bytea IS NULL OR status = $1) AND owner = $3 ORDER BY task_id LIMIT $2`,
}

// List returns the tasks matching opts, each once, ordered by id (L-LIST-1..4). Status,
// owner scope and limit are one query.
func (l *Legacy) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	return l.list(ctx, "list", listQueries, opts)
}

// pageQueries are listQueries in the order of L-LIST-5, after a position: $3 its
// created_at (NULL: from the start), $4 its task_id, $5 the principal. A row's created_at
// column is NULL when the task's is not an integer, which the order reads as 0; task_id
// is compared byte by byte (COLLATE "C"), as Go compares strings.
var pageQueries = taskrow.ListQueries{
	Any:           pageQuery(`TRUE`),
	Unowned:       pageQuery(`owner IS NULL`),
	Principal:     pageQuery(`(owner = $5 OR owner IS NULL)`),
	PrincipalOnly: pageQuery(`owner = $5`),
}

func pageQuery(scope string) string {
	return `SELECT body FROM storecheck_legacy_tasks
		WHERE ($1::bytea IS NULL OR status = $1) AND ` + scope + `
		AND ($3::bigint IS NULL OR (COALESCE(created_at, 0), task_id COLLATE "C") > ($3, $4::text COLLATE "C"))
		ORDER BY COALESCE(created_at, 0), task_id COLLATE "C" LIMIT $2`
}

// ListAfter is the ordered page of L-LIST-5: status, owner scope, position and limit in
// one query, so that only the page crosses the connection.
func (l *Legacy) ListAfter(ctx context.Context, opts legacy.ListOptions, after *legacy.Position) ([]legacy.Task, error) {
	var created *int64
	var id string
	if after != nil {
		created, id = new(after.CreatedAt), after.ID
	}
	return l.list(ctx, "list after", pageQueries, opts, created, id)
}

// list runs the query of qs for opts' owner scope with the status filter and the limit
// as $1 and $2, then more, then the principal.
func (l *Legacy) list(ctx context.Context, op string, qs taskrow.ListQueries, opts legacy.ListOptions, more ...any) ([]legacy.Task, error) {
	if opts.Limit != nil && *opts.Limit <= 0 {
		return []legacy.Task{}, nil
	}
	var status []byte
	if opts.Status != nil {
		status = append([]byte{}, *opts.Status...)
	}
	var limit *int64
	if opts.Limit != nil {
		limit = new(int64(*opts.Limit))
	}
	q, principal, ok := qs.Pick(opts)
	if !ok {
		return []legacy.Task{}, nil
	}
	rows, err := l.pool.Query(ctx, q, slices.Concat([]any{status, limit}, more, principal)...)
	if err != nil {
		return nil, dbError(ctx, op, err)
	}
	bodies, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, dbError(ctx, op, err)
	}
	return taskrow.DecodeLegacies(bodies)
}

// Cleanup removes the terminal tasks whose age now − created_at is strictly greater than
// ttl (L-CLEAN-1), now being the store's clock, and returns how many it removed.
func (l *Legacy) Cleanup(ctx context.Context, ttl time.Duration) (int, error) {
	bound, ok := taskrow.CleanupBound(l.cfg.now(), ttl)
	if !ok {
		return 0, ctx.Err() // no created_at is that old
	}
	tag, err := l.pool.Exec(ctx,
		`DELETE FROM storecheck_legacy_tasks WHERE status = ANY($1) AND created_at <= $2`,
		taskrow.TerminalStatuses(), bound)
	if err != nil {
		return 0, dbError(ctx, "cleanup", err)
	}
	return int(tag.RowsAffected()), nil
}

// durable is the FROM clause of the INSERTs of Create: it turns synchronous_commit on
// for the statement's own transaction, whatever the server's or the session's setting,
// so the row is flushed to disk when the statement returns (M-CREATE-2), in one round
// trip. The commit reads the setting before transaction-local settings are undone.
const durable = `FROM (SELECT set_config('synchronous_commit', 'on', true)) AS durable`
