package etslike

import (
	"context"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Legacy is the legacy era of the table (docs/spec.md 1.1).
type Legacy struct{ s *Store }

var (
	_ legacy.Store              = (*Legacy)(nil)
	_ legacy.Canceler           = (*Legacy)(nil)
	_ legacy.Cleaner            = (*Legacy)(nil)
	_ legacy.ConditionalUpdater = (*Legacy)(nil)
)

// Create stores meta stamped with id, status working and created_at (L-CREATE-1). An
// existing id fails with reference.ErrExists, a full table with reference.ErrLimitReached;
// both change nothing.
func (l *Legacy) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	if err := live(ctx); err != nil {
		return nil, err
	}
	row, err := legacy.NewRow(id, meta, l.s.now())
	if err != nil {
		return nil, err
	}
	if err := insert(l.s, l.s.legacyRows, id, row); err != nil {
		return nil, err
	}
	return row.Clone(), nil
}

// Get returns a copy of the task, or reference.ErrNotFound.
func (l *Legacy) Get(ctx context.Context, id string) (legacy.Task, error) {
	if err := live(ctx); err != nil {
		return nil, err
	}
	row, ok := get(l.s, l.s.legacyRows, id)
	if !ok {
		return nil, reference.NotFound(id)
	}
	return row.Clone(), nil // rows are never mutated, so the copy needs no lock
}

// Update shallow-merges changes into the task (L-UPDATE-1).
func (l *Legacy) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	return l.UpdateIf(ctx, id, nil, changes)
}

// UpdateIf is Update applied only when the task's status (working when absent) is one of
// allowed, else reference.ErrConflict with nothing written; nil allowed admits any status.
func (l *Legacy) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	if err := live(ctx); err != nil {
		return nil, err
	}
	ch, err := legacy.Normalize(changes) // outside the lock: it is the costly part
	if err != nil {
		return nil, err
	}
	row, err := update(l.s, l.s.legacyRows, id, func(cur legacy.Task, ok bool) (legacy.Task, error) {
		return legacy.MergeIf(id, cur, ok, allowed, ch)
	})
	if err != nil {
		return nil, err
	}
	return row.Clone(), nil
}

// Cancel sets status cancelled (L-CANCEL-1); finality is the facade's (L-F-FIN-1).
func (l *Legacy) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	return l.UpdateIf(ctx, id, nil, legacy.Task{legacy.KeyStatus: string(reference.StatusCancelled)})
}

// Delete removes the task and frees its slot; a missing id is not an error (L-DELETE-1).
func (l *Legacy) Delete(ctx context.Context, id string) error {
	if err := live(ctx); err != nil {
		return err
	}
	remove(l.s, l.s.legacyRows, id)
	return nil
}

// List returns copies of the tasks matching opts (L-LIST-1..4) in one pass over the table
// that stops at the limit.
func (l *Legacy) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	if err := live(ctx); err != nil {
		return nil, err
	}
	match := compile(opts)
	limit := -1 // unbounded
	if opts.Limit != nil {
		limit = max(*opts.Limit, 0)
	}
	if match == nil || limit == 0 {
		return []legacy.Task{}, nil
	}
	var rows []legacy.Task
	l.s.mu.RLock()
	for _, t := range l.s.legacyRows {
		if match(t) {
			rows = append(rows, t)
			if len(rows) == limit {
				break
			}
		}
	}
	l.s.mu.RUnlock()
	out := make([]legacy.Task, len(rows))
	for i, r := range rows {
		out[i] = r.Clone()
	}
	return out, nil
}

// compile turns opts' status and owner filters into one predicate, the way EtsStore
// compiles them into one match spec; nil means no row can match.
func compile(opts legacy.ListOptions) func(legacy.Task) bool {
	var owner func(string) bool
	switch p, isPrincipal := opts.Owner.Principal(); {
	case opts.Owner.IsAny():
		owner = nil
	case isPrincipal && opts.RequireOwner:
		owner = func(o string) bool { return o == p }
	case isPrincipal:
		owner = func(o string) bool { return o == p || o == "" }
	case opts.RequireOwner: // anonymous may see only unowned rows, and require_owner denies those
		return nil
	default:
		owner = func(o string) bool { return o == "" }
	}
	if opts.Status == nil {
		if owner == nil {
			return func(legacy.Task) bool { return true }
		}
		return func(t legacy.Task) bool { return owner(t.Owner()) }
	}
	status := reference.Status(*opts.Status)
	return func(t legacy.Task) bool {
		return t.Status() == status && (owner == nil || owner(t.Owner()))
	}
}

// Cleanup removes, in one pass, the terminal tasks older than ttl by created_at
// (L-CLEAN-1) and returns how many; their slots are free again.
func (l *Legacy) Cleanup(ctx context.Context, ttl time.Duration) (int, error) {
	if err := live(ctx); err != nil {
		return 0, err
	}
	now := l.s.now()
	return purge(l.s, l.s.legacyRows, func(t legacy.Task) bool { return t.CleanupDue(now, ttl) }), nil
}
