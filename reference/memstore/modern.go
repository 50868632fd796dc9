package memstore

import (
	"context"
	"fmt"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/modern"
)

// Modern is the modern era of a Store (SPEC.md 2.1).
type Modern struct {
	s *Store
	// rows point to immutable rows: a write stores a new one, so a reader clones the
	// row it found once, outside the lock, instead of copying it out and then cloning.
	rows table[*modernRow]
}

// modernRow is a stored task and the two numbers its TTL and PollInterval point to, in
// one allocation: a write makes one object where a normalised copy (modern.Task.Normalize)
// and a pointer to it made three.
type modernRow struct {
	modern.Task
	ttl, poll int64
}

// newModernRow is modern.Task.Normalize into a fresh row: every JSON-valued field
// normalised into a private deep copy (jsonvalue.Normalize copies, so there is no clone
// first), IssuedKeys copied, the two pointers aimed into the row.
func newModernRow(t *modern.Task) (*modernRow, error) {
	r := &modernRow{Task: *t}
	if t.TTL != nil {
		r.ttl = *t.TTL
		r.TTL = &r.ttl
	}
	if t.PollInterval != nil {
		r.poll = *t.PollInterval
		r.PollInterval = &r.poll
	}
	for _, f := range [...]*map[string]any{&r.Result, &r.Error, &r.InputRequests, &r.StagedResponses, &r.InputResponses} {
		if *f == nil {
			continue
		}
		v, err := jsonvalue.Normalize(*f)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", reference.ErrInvalid, err)
		}
		*f = v.(map[string]any)
	}
	if t.IssuedKeys != nil {
		r.IssuedKeys = append([]string{}, t.IssuedKeys...)
	}
	return r, nil
}

// out is modern.Task.Clone of the row with the two numbers in one allocation (S-VAL-4:
// nothing returned aliases the row).
func (r *modernRow) out() modern.Task {
	c := r.Task
	switch {
	case r.TTL != nil && r.PollInterval != nil:
		n := &[2]int64{r.ttl, r.poll}
		c.TTL, c.PollInterval = &n[0], &n[1]
	case r.TTL != nil:
		c.TTL = new(r.ttl)
	case r.PollInterval != nil:
		c.PollInterval = new(r.poll)
	}
	c.Result = jsonvalue.CloneObject(r.Result)
	c.Error = jsonvalue.CloneObject(r.Error)
	c.InputRequests = jsonvalue.CloneObject(r.InputRequests)
	c.StagedResponses = jsonvalue.CloneObject(r.StagedResponses)
	c.InputResponses = jsonvalue.CloneObject(r.InputResponses)
	if r.IssuedKeys != nil {
		c.IssuedKeys = append([]string{}, r.IssuedKeys...)
	}
	return c
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
	row, err := newModernRow(&task)
	if err != nil {
		return modern.Task{}, err
	}
	row.Version = 1
	if !m.rows.insert(row.TaskID, row) {
		return modern.Task{}, reference.ErrorFor(reference.ErrExists, row.TaskID)
	}
	return row.out(), nil
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
	return row.out(), nil
}

// Swap replaces the task atomically when it is visible to caller and at expectedVersion
// (M-SWAP-1..3), storing version expectedVersion + 1.
func (m *Modern) Swap(ctx context.Context, caller reference.Caller, expectedVersion int64, next modern.Task) (modern.Task, error) {
	if err := live(ctx); err != nil {
		return modern.Task{}, err
	}
	row, err := newModernRow(&next)
	if err != nil {
		return modern.Task{}, err
	}
	row.Version = expectedVersion + 1
	now := m.s.now()
	// The check reads the current row and the new one in place: no task is copied.
	_, err = m.rows.update(row.TaskID, func(cur *modernRow, ok bool) (*modernRow, error) {
		var c *modern.Task
		if ok {
			c = &cur.Task
		}
		if err := modern.CheckSwapRow(c, caller, expectedVersion, &row.Task, now); err != nil {
			return nil, err
		}
		return row, nil
	})
	if err != nil {
		return modern.Task{}, err
	}
	return row.out(), nil
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
	return m.rows.purge(func(t *modernRow) bool { return t.Expired(now) }), nil
}
