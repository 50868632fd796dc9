package memstore

import (
	"context"
	"fmt"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/modern"
)

// Modern is the modern era of a Store (docs/spec.md 2.1).
type Modern struct {
	s *Store
	// rows hold tasks by value, like the mutex+map baseline: a Swap overwrites the map
	// slot in place. What a stored task points to (maps, the two numbers) is never
	// mutated once stored, so a reader copies the task struct under the shard lock and
	// deep-copies what it points to after Unlock.
	rows table[modern.Task]
}

// normalize is modern.Task.Normalize with fewer allocations: every JSON-valued field
// normalised into a private deep copy (jsonvalue.Normalize copies, so there is no clone
// first), IssuedKeys copied, and TTL and PollInterval pointing into one new [2]int64.
func normalize(t *modern.Task) (modern.Task, error) {
	c := *t
	c.TTL, c.PollInterval = twoNumbers(t.TTL, t.PollInterval)
	for _, f := range [...]*map[string]any{&c.Result, &c.Error, &c.InputRequests, &c.StagedResponses, &c.InputResponses} {
		if *f == nil {
			continue
		}
		v, err := jsonvalue.Normalize(*f)
		if err != nil {
			return modern.Task{}, fmt.Errorf("%w: %v", reference.ErrInvalid, err)
		}
		*f = v.(map[string]any)
	}
	if t.IssuedKeys != nil {
		c.IssuedKeys = append([]string{}, t.IssuedKeys...)
	}
	return c, nil
}

// twoNumbers copies *a and *b (nil stays nil) into one allocation.
func twoNumbers(a, b *int64) (*int64, *int64) {
	switch {
	case a != nil && b != nil:
		n := &[2]int64{*a, *b}
		return &n[0], &n[1]
	case a != nil:
		return new(*a), nil
	case b != nil:
		return nil, new(*b)
	}
	return nil, nil
}

// out is modern.Task.Clone of a stored task with its two numbers in one allocation
// (S-VAL-4: nothing returned aliases the store).
func out(t *modern.Task) modern.Task {
	c := t.CloneValues()
	c.TTL, c.PollInterval = twoNumbers(t.TTL, t.PollInterval)
	return c
}

// Create stores task with version 1 (M-CREATE-1); an existing id, expired or not until
// swept, fails with reference.ErrExists.
func (m *Modern) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	if err := live(ctx); err != nil {
		return modern.Task{}, err
	}
	if err := reference.ValidateID(task.TaskID); err != nil {
		return modern.Task{}, err
	}
	row, err := normalize(&task)
	if err != nil {
		return modern.Task{}, err
	}
	row.Version = 1
	if !m.rows.insert(row.TaskID, row) {
		return modern.Task{}, reference.ErrorFor(reference.ErrExists, row.TaskID)
	}
	return out(&row), nil
}

// Get returns a copy of the task, or reference.NotFound when it is missing, expired or
// not visible to caller (M-GET-1): the three cases are indistinguishable.
func (m *Modern) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	if err := live(ctx); err != nil {
		return modern.Task{}, err
	}
	row, ok := m.rows.get(id)
	// What row points to is never mutated: it is deep-copied without the lock. This is
	// row.VisibleAt spelled out, which does not copy the whole task to call a method on it.
	if !ok || row.Expired(m.s.now()) || !reference.CanSee(row.Owner, caller, false) {
		return modern.Task{}, reference.NotFound(id)
	}
	return out(&row), nil
}

// Swap replaces the task atomically when it is visible to caller and at expectedVersion
// (M-SWAP-1..3), storing version expectedVersion + 1.
func (m *Modern) Swap(ctx context.Context, caller reference.Caller, expectedVersion int64, next modern.Task) (modern.Task, error) {
	if err := live(ctx); err != nil {
		return modern.Task{}, err
	}
	row, err := normalize(&next)
	if err != nil {
		return modern.Task{}, err
	}
	row.Version = expectedVersion + 1
	now := m.s.now()
	// The map slot is read and overwritten in place, and the check reads both tasks
	// through pointers: no row is allocated and no task is copied but the one read.
	sh := m.rows.shard(row.TaskID)
	sh.mu.Lock()
	cur, ok := sh.rows[row.TaskID]
	c := &cur
	if !ok {
		c = nil
	}
	if err := modern.CheckSwapRow(c, caller, expectedVersion, &row, now); err != nil {
		sh.mu.Unlock()
		return modern.Task{}, err
	}
	sh.rows[row.TaskID] = row
	sh.mu.Unlock()
	return out(&row), nil
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
	return m.rows.purge(func(t modern.Task) bool { return t.Expired(now) }), nil
}
