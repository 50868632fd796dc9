package riverstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/adapters/internal/taskrow"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Legacy is the legacy-era store (docs/spec.md 1.1) of a Backend: every task row has its
// River job, inserted in the same transaction.
type Legacy[TTx any] struct{ b *Backend[TTx] }

// The legacy store implements every optional operation.
var (
	_ legacy.Store              = (*Legacy[any])(nil)
	_ legacy.Canceler           = (*Legacy[any])(nil)
	_ legacy.Cleaner            = (*Legacy[any])(nil)
	_ legacy.ConditionalUpdater = (*Legacy[any])(nil)
)

// Create stores meta stamped with task_id, status working and created_at from the store's
// clock (L-CREATE-1) and inserts its job, in one transaction: the guide's create_with_job
// (the row, the job, the link). An existing id fails with reference.ErrExists, and
// neither a row nor a job is left behind.
func (l *Legacy[TTx]) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	b := l.b
	row, r, err := taskrow.NewLegacyRow(id, meta, b.cfg.now())
	if err != nil {
		return nil, err
	}
	err = b.db.inTx(ctx, func(tx TTx, c conn) error {
		n, err := c.exec(ctx, b.db.sql.createLegacy, id, nullBytes(r.Owner), r.Status, r.CreatedAt, r.Body)
		if err != nil {
			return err
		}
		if n == 0 {
			return reference.ErrorFor(reference.ErrExists, id)
		}
		return b.insertJob(ctx, tx, c, b.db.sql.linkLegacy, id, EraLegacy)
	})
	if err != nil {
		return nil, b.db.dbError(ctx, "create", err)
	}
	return row, nil // NewRow's copy is private: nothing else holds it
}

// Get returns the task, or reference.ErrNotFound (L-GET-1).
func (l *Legacy[TTx]) Get(ctx context.Context, id string) (legacy.Task, error) {
	if err := reference.ValidateID(id); err != nil {
		return nil, err
	}
	var body string
	err := l.b.db.pool.queryRow(ctx, l.b.db.sql.getLegacy, id).Scan(&body)
	if errors.Is(err, errNoRows) {
		return nil, reference.NotFound(id)
	}
	if err != nil {
		return nil, l.b.db.dbError(ctx, "get", err)
	}
	return taskrow.DecodeLegacy(body)
}

// Update shallow-merges changes into the task (L-UPDATE-1); a missing id is
// reference.ErrNotFound and creates nothing (L-UPDATE-2). The read and the write are one
// transaction holding the row (FOR UPDATE; SQLite's write lock), unlike the guide's
// worker, whose update_task reads, then writes.
func (l *Legacy[TTx]) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	return l.modify(ctx, "update", id, nil, changes, false)
}

// UpdateIf is Update applied only when the task's status (working when absent) is one of
// allowed; otherwise reference.ErrConflict and nothing is written (L-F-FIN-2).
func (l *Legacy[TTx]) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	if allowed == nil {
		allowed = []reference.Status{} // nil would mean "any status" to modify
	}
	return l.modify(ctx, "update-if", id, allowed, changes, false)
}

// Cancel sets status cancelled, cancels the task's job through River in the same
// transaction, and returns the task (L-CANCEL-1). A job that already finished (or was
// pruned) is no error. Finality is the facade's: it claims the task with UpdateIf first.
func (l *Legacy[TTx]) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	return l.modify(ctx, "cancel", id, nil, legacy.Task{legacy.KeyStatus: string(reference.StatusCancelled)}, true)
}

// modify is the read-merge-write of Update, UpdateIf (allowed non-nil) and Cancel
// (cancel: also cancel the job), in one transaction holding the row.
func (l *Legacy[TTx]) modify(ctx context.Context, op, id string, allowed []reference.Status, changes legacy.Task, cancel bool) (legacy.Task, error) {
	b := l.b
	ch, err := taskrow.LegacyChanges(id, changes)
	if err != nil {
		return nil, err
	}
	var out legacy.Task
	err = b.db.inTx(ctx, func(tx TTx, c conn) error {
		var (
			body string
			job  *int64
		)
		err := c.queryRow(ctx, b.db.sql.lockLegacy, id).Scan(&body, &job)
		if errors.Is(err, errNoRows) {
			return reference.NotFound(id)
		}
		if err != nil {
			return err
		}
		cur, next, r, err := taskrow.MergeLegacy(id, body, allowed, ch)
		if err != nil {
			return err
		}
		// Setting an indexed column rewrites its index entries even to the same value
		// (SQLite: one more WAL page per index, fsynced); most updates leave the
		// promoted columns as they were, so they write the body alone.
		if sameColumns(cur, next) {
			_, err = c.exec(ctx, b.db.sql.writeLegacyBody, id, r.Body)
		} else {
			_, err = c.exec(ctx, b.db.sql.writeLegacy, id, nullBytes(r.Owner), r.Status, r.CreatedAt, r.Body)
		}
		if err != nil {
			return err
		}
		if cancel {
			if err := b.cancelJob(ctx, tx, job); err != nil {
				return err
			}
		}
		out = next
		return nil
	})
	if err != nil {
		return nil, b.db.dbError(ctx, op, err)
	}
	return out, nil
}

// sameColumns reports whether a and b have the same promoted columns (owner, status,
// created_at): the row written from a already holds b's.
func sameColumns(a, b legacy.Task) bool {
	ac, aok := a.CreatedAt()
	bc, bok := b.CreatedAt()
	return a.Owner() == b.Owner() && a.Status() == b.Status() && aok == bok && ac == bc
}

// Delete removes the task; a missing id is not an error (L-DELETE-1). Its job is left to
// River: a worker that finds its task gone stops (examples/river-worker).
func (l *Legacy[TTx]) Delete(ctx context.Context, id string) error {
	return l.b.db.deleteTask(ctx, l.b.db.sql.deleteLegacy, id)
}

// List returns the tasks matching opts, each once, ordered by id (L-LIST-1..4). Status,
// owner scope and limit are one query.
func (l *Legacy[TTx]) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	q := l.b.db.sql
	if opts.Limit != nil && *opts.Limit <= 0 {
		return []legacy.Task{}, nil
	}
	var status any
	if opts.Status != nil {
		status = []byte(*opts.Status)
	}
	limit := q.unbounded
	if opts.Limit != nil {
		limit = int64(*opts.Limit)
	}
	query, principal, ok := q.list.Pick(opts)
	if !ok {
		return []legacy.Task{}, nil
	}
	bodies, err := l.b.db.pool.queryStrings(ctx, query, append([]any{status, limit}, principal...)...)
	if err != nil {
		return nil, l.b.db.dbError(ctx, "list", err)
	}
	return taskrow.DecodeLegacies(bodies)
}

// Cleanup removes the terminal tasks whose age now − created_at is strictly greater than
// ttl (L-CLEAN-1), now being the store's clock, and returns how many it removed.
func (l *Legacy[TTx]) Cleanup(ctx context.Context, ttl time.Duration) (int, error) {
	bound, ok := taskrow.CleanupBound(l.b.cfg.now(), ttl)
	if !ok {
		return 0, ctx.Err() // no created_at is that old
	}
	args := []any{}
	for _, s := range taskrow.TerminalStatuses() {
		args = append(args, s)
	}
	if len(args) != 3 {
		return 0, fmt.Errorf("%w: cleanup query expects 3 terminal statuses, have %d", reference.ErrInternal, len(args))
	}
	n, err := l.b.db.pool.exec(ctx, l.b.db.sql.cleanup, append(args, bound)...)
	if err != nil {
		return 0, l.b.db.dbError(ctx, "cleanup", err)
	}
	return int(n), nil
}

// nullBytes is a nullable column value: nil (SQL NULL) for nil bytes. database/sql
// drivers may bind a nil []byte as an empty blob, which is an owner.
func nullBytes(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}
