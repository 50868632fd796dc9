package memstore

import (
	"context"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// Modern is the modern era of a Store (docs/spec.md 2.1).
type Modern struct {
	s *Store
	// rows point to immutable tasks: a write stores a new one, so a reader clones the
	// row it found once, outside the lock, instead of copying it out and then cloning.
	rows table[*modern.Task]
}

var _ modern.Store = (*Modern)(nil)

// Create stores task with version 1 (M-CREATE-1); an existing id, expired or not until
// swept, fails with reference.ErrExists.
func (m *Modern) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	if err := live(ctx); err != nil {
		return modern.Task{}, err
	}
	if err := reference.ValidateID(task.TaskID); err != nil {
		return modern.Task{}, err
	}
	row, err := task.Normalize()
	if err != nil {
		return modern.Task{}, err
	}
	row.Version = 1
	if !m.rows.insert(row.TaskID, &row) {
		return modern.Task{}, reference.ErrorFor(reference.ErrExists, row.TaskID)
	}
	return row.Clone(), nil
}

// Get returns a copy of the task, or reference.NotFound when it is missing, expired or
// not visible to caller (M-GET-1): the three cases are indistinguishable.
func (m *Modern) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	if err := live(ctx); err != nil {
		return modern.Task{}, err
	}
	row, ok := m.rows.get(id)
	// row is immutable: it is read and cloned without the lock. This is row.VisibleAt
	// spelled out, which does not copy the whole task to call a method on it.
	if !ok || row.Expired(m.s.now()) || !reference.CanSee(row.Owner, caller, false) {
		return modern.Task{}, reference.NotFound(id)
	}
	return row.Clone(), nil
}

// Swap replaces the task atomically when it is visible to caller and at expectedVersion
// (M-SWAP-1..3), storing version expectedVersion + 1.
func (m *Modern) Swap(ctx context.Context, caller reference.Caller, expectedVersion int64, next modern.Task) (modern.Task, error) {
	if err := live(ctx); err != nil {
		return modern.Task{}, err
	}
	row, err := next.Normalize()
	if err != nil {
		return modern.Task{}, err
	}
	row.Version = expectedVersion + 1
	now := m.s.now()
	_, err = m.rows.update(row.TaskID, func(cur *modern.Task, ok bool) (*modern.Task, error) {
		var c modern.Task
		if ok {
			c = *cur
		}
		if err := modern.CheckSwap(c, ok, caller, expectedVersion, row, now); err != nil {
			return nil, err
		}
		return &row, nil
	})
	if err != nil {
		return modern.Task{}, err
	}
	return row.Clone(), nil
}

// Delete removes the task; it is idempotent (M-DELETE-1).
func (m *Modern) Delete(ctx context.Context, id string) error {
	if err := live(ctx); err != nil {
		return err
	}
	m.rows.delete(id)
	return nil
}

// Sweep deletes every task expired by the store clock and returns the count (M-SWEEP-1).
func (m *Modern) Sweep(ctx context.Context) (int, error) {
	if err := live(ctx); err != nil {
		return 0, err
	}
	now := m.s.now()
	return m.rows.purge(func(t *modern.Task) bool { return t.Expired(now) }), nil
}
