package riverstore

import (
	"context"
	"errors"

	"github.com/storecheck/storecheck/adapters/internal/taskrow"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// Modern is the modern-era store (docs/spec.md 2.1) of a Backend: compare-and-swap on a
// version column, every task row with its River job.
type Modern[TTx any] struct{ b *Backend[TTx] }

var _ modern.Store = (*Modern[any])(nil)

// Create stores task with version 1 (M-CREATE-1) and inserts its job, in one
// transaction; an existing id, expired or not until swept, fails with
// reference.ErrExists and leaves no job behind. The commit is durable before Create
// returns (M-CREATE-2).
func (m *Modern[TTx]) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	b := m.b
	row, r, err := taskrow.NewModernRow(task, 1)
	if err != nil {
		return modern.Task{}, err
	}
	err = b.db.inTx(ctx, func(tx TTx, c conn) error {
		n, err := c.exec(ctx, b.db.sql.createModern,
			row.TaskID, nullBytes(r.Owner), row.CreatedAt, r.TTL, r.ExpiresAt, row.Version, r.Body)
		if err != nil {
			return err
		}
		if n == 0 {
			return reference.ErrorFor(reference.ErrExists, row.TaskID)
		}
		return b.insertJob(ctx, tx, c, b.db.sql.linkModern, row.TaskID, EraModern)
	})
	if err != nil {
		return modern.Task{}, b.db.dbError(ctx, "create", err)
	}
	return row, nil // Normalize's copy is private
}

// Get returns the task, or reference.NotFound when it is missing, expired by the store's
// clock, or not visible to caller (M-GET-1).
func (m *Modern[TTx]) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	if err := reference.ValidateID(id); err != nil {
		return modern.Task{}, err
	}
	now := m.b.cfg.now()
	t, found, err := m.load(ctx, m.b.db.pool, id, &now)
	if err != nil {
		return modern.Task{}, m.b.db.dbError(ctx, "get", err)
	}
	if !found || !t.VisibleAt(caller, now) {
		return modern.Task{}, reference.NotFound(id)
	}
	return t, nil
}

// load reads a task; with now set, an expired task reads as missing (expiry in SQL).
func (m *Modern[TTx]) load(ctx context.Context, c conn, id string, now *int64) (modern.Task, bool, error) {
	return taskrow.ScanModern(id, c.queryRow(ctx, m.b.db.sql.loadModern, id, now).Scan, errNoRows)
}

// Swap replaces the task iff it exists, is unexpired, visible to caller and at
// expectedVersion, with owner and created_at unchanged (M-SWAP-1..3): one conditional
// UPDATE on the version column. A swap to cancelled also cancels the task's job through
// River, in the same transaction. When the UPDATE matches no row, a read of the row says
// why (modern.CheckSwap); if it finds nothing wrong, the row changed in between (or the
// ttl did, see below) and the UPDATE is tried again.
func (m *Modern[TTx]) Swap(ctx context.Context, caller reference.Caller, expectedVersion int64, next modern.Task) (modern.Task, error) {
	b := m.b
	s, err := taskrow.NewSwap(caller, expectedVersion, next)
	if err != nil {
		return modern.Task{}, err
	}
	id, row, r := next.TaskID, s.Next, s.Row
	cancel := row.Status == reference.StatusCancelled
	for attempt := 0; ; attempt++ {
		now := b.cfg.now()
		// A caller that cannot see next's owner cannot see a row it may swap either
		// (the owner is immutable): only the read below can answer it.
		if reference.CanSee(row.Owner, caller, false) {
			swapped := false
			swap := func(tx TTx, c conn) error {
				var (
					job *int64
					err error
				)
				// Most swaps keep the ttl, and naming expires_at in SET rewrites its
				// index entry even to the same value (SQLite: one more fsynced WAL
				// page). The first try leaves it alone and matches only a row whose ttl
				// is unchanged; a retry, after the read below found nothing wrong, sets
				// the whole row. A refused swap costs what it did: one UPDATE, one read.
				if attempt == 0 {
					err = c.queryRow(ctx, b.db.sql.swapModernBody, id, expectedVersion, row.Version, r.TTL,
						r.Body, now, nullBytes(r.Owner), row.CreatedAt).Scan(&job)
				} else {
					err = c.queryRow(ctx, b.db.sql.swapModern, id, expectedVersion, row.Version, r.TTL, r.ExpiresAt,
						r.Body, now, nullBytes(r.Owner), row.CreatedAt).Scan(&job)
				}
				if errors.Is(err, errNoRows) {
					return nil
				}
				if err != nil {
					return err
				}
				swapped = true
				if cancel {
					return b.cancelJob(ctx, tx, job)
				}
				return nil
			}
			if cancel {
				err = b.db.inTx(ctx, swap)
			} else {
				var zero TTx // one statement: no transaction needed, and no job touched
				err = swap(zero, b.db.pool)
			}
			if err != nil {
				return modern.Task{}, b.db.dbError(ctx, "swap", err)
			}
			if swapped {
				return row, nil
			}
		}
		cur, found, err := m.load(ctx, b.db.pool, id, nil)
		if err != nil {
			return modern.Task{}, b.db.dbError(ctx, "swap", err)
		}
		if err := s.Missed(ctx, b.db.name, attempt, cur, found, now); err != nil {
			return modern.Task{}, err
		}
	}
}

// Delete removes the task; it is idempotent (M-DELETE-1).
func (m *Modern[TTx]) Delete(ctx context.Context, id string) error {
	return m.b.db.deleteTask(ctx, m.b.db.sql.deleteModern, id)
}

// Sweep deletes every task expired by the store's clock (now ≥ created_at + ttl) and
// returns the count (M-SWEEP-1).
func (m *Modern[TTx]) Sweep(ctx context.Context) (int, error) {
	n, err := m.b.db.pool.exec(ctx, m.b.db.sql.sweep, m.b.cfg.now())
	if err != nil {
		return 0, m.b.db.dbError(ctx, "sweep", err)
	}
	return int(n), nil
}
