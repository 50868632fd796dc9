package legacy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/storecheck/storecheck/reference"
)

// Tasks is the reference legacy facade (docs/spec.md 1.2): ConduitMCP's ConduitMcp.Tasks with
// owner scoping, a re-checked List and enforced finality. It is safe for concurrent use
// when its store is.
type Tasks struct {
	store        Store
	requireOwner bool
}

// Option configures a Tasks.
type Option func(*Tasks)

// WithRequireOwner turns on require_owner: unowned tasks are denied to every scoped caller
// (owner truth table, docs/spec.md section 0).
func WithRequireOwner(on bool) Option { return func(t *Tasks) { t.requireOwner = on } }

// New returns the facade over store.
func New(store Store, opts ...Option) *Tasks {
	t := &Tasks{store: store}
	for _, o := range opts {
		o(t)
	}
	return t
}

// Store returns the store the facade fronts.
func (t *Tasks) Store() Store { return t.store }

// nonTerminal is the allowed set of every conditional write: finality means a write may
// only land on a task that is still working or waiting for input.
var nonTerminal = []reference.Status{reference.StatusWorking, reference.StatusInputRequired}

// Create stores meta under id (L-F-CREATE-1). A non-empty owner is stamped as meta.owner,
// overriding one the caller supplied; with owner "" meta goes to the store unchanged.
func (t *Tasks) Create(ctx context.Context, id string, meta Task, owner string) (Task, error) {
	if owner != "" {
		// Copy the top level so that the caller's map is not changed behind its back.
		stamped := make(Task, len(meta)+1)
		for k, v := range meta {
			stamped[k] = v
		}
		stamped[KeyOwner] = owner
		meta = stamped
	}
	return t.store.Create(ctx, id, meta)
}

// Get returns the task when caller may see it; a denied task is reference.NotFound(id),
// exactly as a missing one (S-OWN-1/2).
func (t *Tasks) Get(ctx context.Context, id string, caller reference.Caller) (Task, error) {
	task, err := t.get(ctx, id)
	if err != nil {
		return nil, err
	}
	if !reference.CanSee(task.Owner(), caller, t.requireOwner) {
		return nil, reference.NotFound(id)
	}
	return task, nil
}

// get reads as the system and gives every not-found the one canonical error, so that a
// store's own wording cannot tell a denied task from a missing one.
func (t *Tasks) get(ctx context.Context, id string) (Task, error) {
	task, err := t.store.Get(ctx, id)
	if errors.Is(err, reference.ErrNotFound) {
		return nil, reference.NotFound(id)
	}
	if err != nil {
		return nil, err
	}
	return task, nil
}

// Update is the worker's write: unscoped. A write that carries status is checked
// (L-F-FIN-1): on a terminal task it is reference.ErrTerminal, to a status the table
// forbids (unknown, not a string) reference.ErrInvalidTransition, and nothing is written.
// Writes without status are not checked. With a ConditionalUpdater the check and the
// write are one atomic step (L-F-FIN-2).
func (t *Tasks) Update(ctx context.Context, id string, changes Task) (Task, error) {
	changes, err := Normalize(changes)
	if err != nil {
		return nil, err
	}
	raw, changesStatus := changes[KeyStatus]
	if !changesStatus {
		return t.store.Update(ctx, id, changes)
	}
	s, _ := raw.(string)
	return t.transition(ctx, id, reference.Status(s), changes)
}

// Cancel cancels the task when caller may see it (L-F-SCOPE-1, L-F-CANCEL-1, L-F-FIN-1).
// A denied task is reference.NotFound(id) and nothing is written; a terminal one is
// reference.ErrTerminal and nothing is written. The store's Cancel is used when it has
// one (for its side effects, such as cancelling a queued job), else Update.
func (t *Tasks) Cancel(ctx context.Context, id string, caller reference.Caller) (Task, error) {
	task, err := t.Get(ctx, id, caller)
	if err != nil {
		return nil, err
	}
	if task.Status().Terminal() {
		return nil, reference.ErrorFor(reference.ErrTerminal, id)
	}
	canceler, hasCancel := t.store.(Canceler)
	if _, conditional := t.store.(ConditionalUpdater); conditional {
		// Claim the task atomically first: only then may the store's Cancel, which
		// writes unconditionally, run without overwriting a racing completion.
		claimed, err := t.transition(ctx, id, reference.StatusCancelled, Task{KeyStatus: string(reference.StatusCancelled)})
		if err != nil || !hasCancel {
			return claimed, err
		}
		return t.storeCancel(ctx, canceler, id)
	}
	if hasCancel {
		return t.storeCancel(ctx, canceler, id)
	}
	return t.store.Update(ctx, id, Task{KeyStatus: string(reference.StatusCancelled)})
}

func (t *Tasks) storeCancel(ctx context.Context, c Canceler, id string) (Task, error) {
	task, err := c.Cancel(ctx, id)
	if errors.Is(err, reference.ErrNotFound) {
		return nil, reference.NotFound(id)
	}
	return task, err
}

// transition writes changes (which set status to) iff the task's current status may move
// to `to`. With a ConditionalUpdater the write is conditional on the task still being
// non-terminal and a lost race is re-judged against the status that won it.
func (t *Tasks) transition(ctx context.Context, id string, to reference.Status, changes Task) (Task, error) {
	cu, conditional := t.store.(ConditionalUpdater)
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("legacy: update %s: %w", id, err)
		}
		cur, err := t.get(ctx, id)
		if err != nil {
			return nil, err
		}
		from := cur.Status()
		switch {
		case from.Terminal():
			return nil, reference.ErrorFor(reference.ErrTerminal, id)
		case !reference.ValidTransition(from, to):
			return nil, fmt.Errorf("%w: %s: %q -> %q", reference.ErrInvalidTransition, id, from, to)
		}
		if !conditional {
			return t.store.Update(ctx, id, changes)
		}
		task, err := cu.UpdateIf(ctx, id, nonTerminal, changes)
		if errors.Is(err, reference.ErrNotFound) {
			return nil, reference.NotFound(id)
		}
		if !errors.Is(err, reference.ErrConflict) {
			return task, err
		}
		// The status moved between the read and the write: judge again.
	}
}

// Delete removes the task; it is unscoped, like the store's.
func (t *Tasks) Delete(ctx context.Context, id string) error { return t.store.Delete(ctx, id) }

// List returns the caller's visible tasks matching opts (L-F-LIST-1). The owner scope
// comes from caller (overriding opts.Owner) and require_owner from the facade; both are
// pushed down, and every returned row is checked again (visibility and status, keeping
// the store's order) before the facade applies Limit itself, so a store that ignores the
// scope or leaks rows can neither expose a foreign task nor exceed Limit.
func (t *Tasks) List(ctx context.Context, opts ListOptions, caller reference.Caller) ([]Task, error) {
	opts.Owner = ScopeOf(caller)
	opts.RequireOwner = t.requireOwner
	if opts.Limit != nil && *opts.Limit <= 0 {
		return []Task{}, nil
	}
	rows, err := t.store.List(ctx, opts)
	if err != nil {
		return nil, err
	}
	out := make([]Task, 0, len(rows))
	for _, row := range rows {
		if !opts.LimitAllows(len(out)) {
			break
		}
		if opts.Matches(row) {
			out = append(out, row)
		}
	}
	return out, nil
}

// ListAfter returns a page of what List returns: the caller's visible tasks matching
// opts.Status whose Position comes after after, oldest first, at most opts.Limit. A
// Pager store is asked for the page (L-LIST-5); any other store's List is read whole and
// sorted here. Either way every row is re-checked as List re-checks it, and the page
// sorted and cut again, so a store's page can neither leak a row nor break the order.
func (t *Tasks) ListAfter(ctx context.Context, opts ListOptions, after *Position, caller reference.Caller) ([]Task, error) {
	opts.Owner = ScopeOf(caller)
	opts.RequireOwner = t.requireOwner
	if opts.Limit != nil && *opts.Limit <= 0 {
		return []Task{}, nil
	}
	var rows []Task
	var err error
	if p, ok := t.store.(Pager); ok {
		rows, err = p.ListAfter(ctx, opts, after)
	} else {
		whole := opts
		whole.Limit = nil
		rows, err = t.store.List(ctx, whole)
	}
	if err != nil {
		return nil, err
	}
	return Page(rows, opts, after), nil
}

// Page is the page of rows that Pager.ListAfter(opts, after) answers: the rows opts
// matches that come after after, sorted by Position, at most opts.Limit of them.
func Page(rows []Task, opts ListOptions, after *Position) []Task {
	type row struct {
		pos Position
		t   Task
	}
	kept := make([]row, 0, len(rows))
	for _, t := range rows {
		if pos := PositionOf(t); pos.After(after) && opts.Matches(t) {
			kept = append(kept, row{pos, t})
		}
	}
	slices.SortFunc(kept, func(a, b row) int { return a.pos.Compare(b.pos) })
	n := len(kept)
	if opts.Limit != nil {
		n = max(0, min(n, *opts.Limit))
	}
	out := make([]Task, n)
	for i := range out {
		out[i] = kept[i].t
	}
	return out
}

// Cleanup removes old terminal tasks through the store's Cleanup, and returns 0 for a
// store without one (L-F-CLEAN-1): such stores expire tasks natively.
func (t *Tasks) Cleanup(ctx context.Context, ttl time.Duration) (int, error) {
	if c, ok := t.store.(Cleaner); ok {
		return c.Cleanup(ctx, ttl)
	}
	return 0, nil
}
