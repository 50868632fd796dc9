package memstore

import (
	"container/heap"
	"context"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Legacy is the legacy era of a Store (docs/spec.md 1.1).
type Legacy struct {
	s    *Store
	rows table[placed]
}

var (
	_ legacy.Store              = (*Legacy)(nil)
	_ legacy.Canceler           = (*Legacy)(nil)
	_ legacy.Cleaner            = (*Legacy)(nil)
	_ legacy.ConditionalUpdater = (*Legacy)(nil)
	_ legacy.Pager              = (*Legacy)(nil)
)

// Create stores meta stamped with id, status working and the store clock's created_at
// (L-CREATE-1); an existing id fails with reference.ErrExists and is left as it was.
func (l *Legacy) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	if err := live(ctx); err != nil {
		return nil, err
	}
	row, err := legacy.NewRow(id, meta, l.s.now())
	if err != nil {
		return nil, err
	}
	if !l.rows.insert(id, place(row)) {
		return nil, reference.ErrorFor(reference.ErrExists, id)
	}
	return row.Clone(), nil
}

// Get returns a copy of the task, or reference.ErrNotFound.
func (l *Legacy) Get(ctx context.Context, id string) (legacy.Task, error) {
	if err := live(ctx); err != nil {
		return nil, err
	}
	row, ok := l.rows.get(id)
	if !ok {
		return nil, reference.NotFound(id)
	}
	return row.t.Clone(), nil // rows are immutable: copying outside the lock is safe
}

// Update shallow-merges changes into the task (L-UPDATE-1); a missing id is
// reference.ErrNotFound and creates nothing.
func (l *Legacy) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	return l.UpdateIf(ctx, id, nil, changes)
}

// UpdateIf is Update applied only when the task's status (working when absent) is one of
// allowed; otherwise reference.ErrConflict and nothing is written. A nil allowed admits
// every status (that is Update).
func (l *Legacy) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	if err := live(ctx); err != nil {
		return nil, err
	}
	// Normalise before taking the lock: it is the expensive part and needs no lock.
	ch, err := legacy.Normalize(changes)
	if err != nil {
		return nil, err
	}
	row, err := l.rows.update(id, func(cur placed, ok bool) (placed, error) {
		t, err := legacy.MergeIf(id, cur.t, ok, allowed, ch)
		return place(t), err
	})
	if err != nil {
		return nil, err
	}
	return row.t.Clone(), nil
}

// Cancel sets status cancelled (L-CANCEL-1). It is a plain write: finality is the
// facade's (L-F-FIN-1), which claims the task with UpdateIf first.
func (l *Legacy) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	return l.UpdateIf(ctx, id, nil, legacy.Task{legacy.KeyStatus: string(reference.StatusCancelled)})
}

// Delete removes the task; a missing id is not an error (L-DELETE-1).
func (l *Legacy) Delete(ctx context.Context, id string) error {
	if err := live(ctx); err != nil {
		return err
	}
	l.rows.delete(id)
	return nil
}

// List returns copies of the tasks matching opts (L-LIST-1..4): it honours Status, Owner
// and Limit, one shard at a time, so each task appears once.
func (l *Legacy) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	if err := live(ctx); err != nil {
		return nil, err
	}
	if opts.Limit != nil && *opts.Limit <= 0 {
		return []legacy.Task{}, nil
	}
	n := 0
	rows, err := l.rows.scan(ctx, func(r placed) (bool, bool) {
		if !opts.Matches(r.t) {
			return false, false
		}
		n++
		return true, !opts.LimitAllows(n)
	})
	if err != nil {
		return nil, err
	}
	out := make([]legacy.Task, len(rows))
	for i, r := range rows {
		out[i] = r.t.Clone()
	}
	return out, nil
}

// ListAfter is the ordered page of L-LIST-5. It copies only the page: the scan keeps the
// opts.Limit first positions after after in a bounded heap (rows are immutable, so
// holding them past the shard's lock is safe), and a row that cannot enter a full page
// is passed over on its position alone, before its filters are read.
func (l *Legacy) ListAfter(ctx context.Context, opts legacy.ListOptions, after *legacy.Position) ([]legacy.Task, error) {
	if err := live(ctx); err != nil {
		return nil, err
	}
	if opts.Limit != nil && *opts.Limit <= 0 {
		return []legacy.Task{}, nil
	}
	var page lastFirst
	full := func() bool { return opts.Limit != nil && len(page) == *opts.Limit }
	_, err := l.rows.scan(ctx, func(r placed) (bool, bool) {
		if !r.pos.After(after) || full() && r.pos.Compare(page[0].pos) > 0 || !opts.Matches(r.t) {
			return false, false
		}
		heap.Push(&page, r)
		if opts.Limit != nil && len(page) > *opts.Limit {
			heap.Pop(&page)
		}
		return false, false
	})
	if err != nil {
		return nil, err
	}
	out := make([]legacy.Task, len(page))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&page).(placed).t.Clone()
	}
	return out, nil
}

// placed is a stored row with its position, worked out once when the row is written so
// that a page's scan compares positions without reading each row's map; lastFirst is a
// heap of them whose top is the one that comes last: the row a full page gives up first.
type placed struct {
	pos legacy.Position
	t   legacy.Task
}

func place(t legacy.Task) placed { return placed{legacy.PositionOf(t), t} }

type lastFirst []placed

func (h lastFirst) Len() int           { return len(h) }
func (h lastFirst) Less(i, j int) bool { return h[i].pos.Compare(h[j].pos) > 0 }
func (h lastFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *lastFirst) Push(x any)        { *h = append(*h, x.(placed)) }
func (h *lastFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Cleanup removes the terminal tasks older than ttl by created_at (L-CLEAN-1) and returns
// how many it removed.
func (l *Legacy) Cleanup(ctx context.Context, ttl time.Duration) (int, error) {
	if err := live(ctx); err != nil {
		return 0, err
	}
	now := l.s.now()
	return l.rows.purge(func(r placed) bool { return r.t.CleanupDue(now, ttl) }), nil
}
