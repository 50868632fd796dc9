package etslike

import (
	"context"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// Modern is the modern era of the table (docs/spec.md 2.1). Its rows count toward MaxRows.
type Modern struct{ s *Store }

var _ modern.Store = (*Modern)(nil)

// Create stores task with version 1 (M-CREATE-1); an existing id, expired or not until
// swept, fails with reference.ErrExists, a full table with reference.ErrLimitReached.
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
	if err := insert(m.s, m.s.modernRows, row.TaskID, row); err != nil {
		return modern.Task{}, err
	}
	return row.Clone(), nil
}

// Get returns a copy of the task, or reference.NotFound when it is missing, expired or
// not visible to caller (M-GET-1).
func (m *Modern) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	if err := live(ctx); err != nil {
		return modern.Task{}, err
	}
	row, ok := get(m.s, m.s.modernRows, id)
	if !ok || !row.VisibleAt(caller, m.s.now()) {
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
	stored, err := update(m.s, m.s.modernRows, row.TaskID, func(cur modern.Task, ok bool) (modern.Task, error) {
		if err := modern.CheckSwap(cur, ok, caller, expectedVersion, row, now); err != nil {
			return modern.Task{}, err
		}
		return row, nil
	})
	if err != nil {
		return modern.Task{}, err
	}
	return stored.Clone(), nil
}

// Delete removes the task and frees its slot; it is idempotent (M-DELETE-1).
func (m *Modern) Delete(ctx context.Context, id string) error {
	if err := live(ctx); err != nil {
		return err
	}
	remove(m.s, m.s.modernRows, id)
	return nil
}

// Sweep deletes, in one pass, every task expired by the store clock and returns the count
// (M-SWEEP-1).
func (m *Modern) Sweep(ctx context.Context) (int, error) {
	if err := live(ctx); err != nil {
		return 0, err
	}
	now := m.s.now()
	return purge(m.s, m.s.modernRows, func(t modern.Task) bool { return t.Expired(now) }), nil
}
