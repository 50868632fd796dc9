package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/storecheck/storecheck/adapters/internal/taskrow"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// Modern is the modern-era store (docs/spec.md 2.1) on the tables of Migrate in the pool's
// search_path.
type Modern struct {
	pool *pgxpool.Pool
	cfg  config
}

var _ modern.Store = (*Modern)(nil)

// NewModern returns the modern store on pool. Run Migrate once before first use.
func NewModern(pool *pgxpool.Pool, opts ...Option) *Modern {
	return &Modern{pool: pool, cfg: newConfig(opts)}
}

// Create stores task with version 1 (M-CREATE-1); an existing id, expired or not until
// swept, fails with reference.ErrExists. It commits with synchronous_commit on before it
// returns, so any instance on the database finds the task at once (M-CREATE-2).
func (m *Modern) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	row, r, err := taskrow.NewModernRow(task, 1)
	if err != nil {
		return modern.Task{}, err
	}
	tag, err := m.pool.Exec(ctx,
		`INSERT INTO storecheck_modern_tasks (task_id, owner, created_at, ttl, expires_at, version, body)
		 SELECT $1::text, $2::bytea, $3::bigint, $4::bigint, $5::bigint, $6::bigint, $7::text `+durable+`
		 ON CONFLICT (task_id) DO NOTHING`,
		row.TaskID, r.Owner, row.CreatedAt, r.TTL, r.ExpiresAt, row.Version, r.Body)
	if err != nil {
		return modern.Task{}, dbError(ctx, "create", err)
	}
	if tag.RowsAffected() == 0 {
		return modern.Task{}, reference.ErrorFor(reference.ErrExists, row.TaskID)
	}
	return row, nil // Normalize's copy is private
}

// Get returns the task, or reference.NotFound when it is missing, expired by the store's
// clock, or not visible to caller (M-GET-1).
func (m *Modern) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	if err := reference.ValidateID(id); err != nil {
		return modern.Task{}, err
	}
	now := m.cfg.now()
	t, found, err := m.load(ctx, id, &now)
	if err != nil {
		return modern.Task{}, dbError(ctx, "get", err)
	}
	if !found || !t.VisibleAt(caller, now) {
		return modern.Task{}, reference.NotFound(id)
	}
	return t, nil
}

// load reads a task; with now set, an expired task reads as missing (expiry in SQL).
func (m *Modern) load(ctx context.Context, id string, now *int64) (modern.Task, bool, error) {
	return taskrow.ScanModern(id, m.pool.QueryRow(ctx,
		`SELECT owner, created_at, ttl, version, body FROM storecheck_modern_tasks
		 WHERE task_id = $1 AND ($2::bigint IS NULL OR expires_at IS NULL OR expires_at > $2)`,
		id, now).Scan, pgx.ErrNoRows)
}

// Swap replaces the task iff it exists, is unexpired, visible to caller and at
// expectedVersion, with owner and created_at unchanged (M-SWAP-1..3): one conditional
// UPDATE. When it matches no row, a read of the row says why (modern.CheckSwap); if the
// read finds nothing wrong, the row changed in between and the UPDATE is tried again.
func (m *Modern) Swap(ctx context.Context, caller reference.Caller, expectedVersion int64, next modern.Task) (modern.Task, error) {
	s, err := taskrow.NewSwap(caller, expectedVersion, next)
	if err != nil {
		return modern.Task{}, err
	}
	id, row, r := next.TaskID, s.Next, s.Row
	for attempt := 0; ; attempt++ {
		now := m.cfg.now()
		// A caller that cannot see next's owner cannot see a row it may swap either
		// (the owner is immutable): only the read below can answer it.
		if reference.CanSee(row.Owner, caller, false) {
			tag, err := m.pool.Exec(ctx,
				`UPDATE storecheck_modern_tasks SET version = $3, ttl = $4, expires_at = $5, body = $6
				 WHERE task_id = $1 AND version = $2 AND (expires_at IS NULL OR expires_at > $7)
				   AND owner IS NOT DISTINCT FROM $8 AND created_at = $9`,
				id, expectedVersion, row.Version, r.TTL, r.ExpiresAt, r.Body, now, r.Owner, row.CreatedAt)
			if err != nil {
				return modern.Task{}, dbError(ctx, "swap", err)
			}
			if tag.RowsAffected() == 1 {
				return row, nil
			}
		}
		cur, found, err := m.load(ctx, id, nil)
		if err != nil {
			return modern.Task{}, dbError(ctx, "swap", err)
		}
		if err := s.Missed(ctx, backend, attempt, cur, found, now); err != nil {
			return modern.Task{}, err
		}
	}
}

// Delete removes the task; it is idempotent (M-DELETE-1).
func (m *Modern) Delete(ctx context.Context, id string) error {
	return deleteTask(ctx, m.pool, `DELETE FROM storecheck_modern_tasks WHERE task_id = $1`, id)
}

// Sweep deletes every task expired by the store's clock (now ≥ created_at + ttl) and
// returns the count (M-SWEEP-1).
func (m *Modern) Sweep(ctx context.Context) (int, error) {
	tag, err := m.pool.Exec(ctx, `DELETE FROM storecheck_modern_tasks WHERE expires_at <= $1`, m.cfg.now())
	if err != nil {
		return 0, dbError(ctx, "sweep", err)
	}
	return int(tag.RowsAffected()), nil
}
