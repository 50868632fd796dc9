package mutants

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// backend is the data of one namespace: a plain mutex and two maps. It is deliberately
// the simplest honest store there is, so that each mutant differs from an obviously
// correct store by its one defect, written beside it as a wrapper or a hook (the files
// by family: ids.go, owners.go, values.go, list.go, cleanup.go, writes.go, swap.go,
// races.go, context.go, outside.go).
type backend struct {
	// mu guards the maps. The honest store takes it exclusively for every call; the
	// natural race mutants (races.go) take it shared to read, then exclusively to write.
	mu     sync.RWMutex
	clock  reference.Clock
	legacy map[string]legacy.Task
	modern map[string]modern.Task

	// held, while not nil, holds back every call until it is closed: the hold of
	// harness.Blocker, a lock taken by someone else.
	holdMu sync.Mutex
	held   chan struct{}
}

func newBackend(clock reference.Clock) *backend {
	return &backend{clock: clock, legacy: map[string]legacy.Task{}, modern: map[string]modern.Task{}}
}

// hooks are the honest store's seams: each is nil (or false) in the honest store, and a
// mutant sets the one its defect needs. Only what a wrapper cannot reach from outside a
// call is a hook: how an id keys the map, how owners compare, how values are merged,
// when a task expires, whether a stored value is handed out.
type hooks struct {
	key           func(id string) string                     // the map key of an id
	checkID       func(id string) error                      // the ids Create accepts
	sameOwner     func(owner, principal string) bool         // an owner against a principal
	anonymousSees bool                                       // the anonymous caller sees owned tasks
	merge         func(cur, changes legacy.Task) legacy.Task // an Update's changes into the task
	expired       func(t modern.Task, now int64) bool        // a modern task's expiry
	shareStored   bool                                       // results are the stored values, not copies
}

// store is one instance over a backend, with the mutant's hooks.
type store struct {
	b *backend
	h hooks
}

func (s *store) now() int64 { return reference.NowMillis(s.b.clock) }

// ctxErr starts every call: it answers a context that has ended, then waits while the
// backend is held (harness.Blocker), giving up when the context ends.
func (s *store) ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mutant store: %w", err)
	}
	return s.waitHeld(ctx)
}

// waitHeld waits while the backend is held, or until ctx ends.
func (s *store) waitHeld(ctx context.Context) error {
	s.b.holdMu.Lock()
	held := s.b.held
	s.b.holdMu.Unlock()
	if held == nil {
		return nil
	}
	select {
	case <-held:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("mutant store: waiting on a lock: %w", ctx.Err())
	}
}

// hold holds back every later call of the backend until release.
func (b *backend) hold() (release func()) {
	ch := make(chan struct{})
	b.holdMu.Lock()
	b.held = ch
	b.holdMu.Unlock()
	return func() {
		b.holdMu.Lock()
		if b.held == ch {
			b.held = nil
		}
		b.holdMu.Unlock()
		close(ch)
	}
}

func (s *store) checkID(id string) error {
	if s.h.checkID != nil {
		return s.h.checkID(id)
	}
	return reference.ValidateID(id)
}

func (s *store) key(id string) string {
	if s.h.key != nil {
		return s.h.key(id)
	}
	return id
}

// ownerMatches compares an owner with a principal.
func (s *store) ownerMatches(owner, principal string) bool {
	if s.h.sameOwner != nil {
		return s.h.sameOwner(owner, principal)
	}
	return owner == principal
}

// in copies a value on the way in.
func (s *store) in(t legacy.Task) (legacy.Task, error) { return legacy.Normalize(t) }

// out copies a stored task on the way out.
func (s *store) out(t legacy.Task) legacy.Task {
	if s.h.shareStored {
		return t
	}
	return t.Clone()
}

func (s *store) merge(cur, changes legacy.Task) legacy.Task {
	if s.h.merge != nil {
		return s.h.merge(cur, changes)
	}
	return legacy.Merge(cur, changes)
}

// ---- legacy era ----

type legacyStore struct{ *store }

// stamp is what Create stores for id: the metadata, normalised, stamped at now.
func (s legacyStore) stamp(ctx context.Context, id string, meta legacy.Task, now int64) (legacy.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return nil, err
	}
	if err := s.checkID(id); err != nil {
		return nil, err
	}
	m, err := s.in(meta)
	if err != nil {
		return nil, err
	}
	return legacy.Stamp(id, m, now), nil
}

func (s legacyStore) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	t, err := s.stamp(ctx, id, meta, s.now())
	if err != nil {
		return nil, err
	}
	return s.insert(id, t)
}

// insert stores t under id unless id is taken.
func (s legacyStore) insert(id string, t legacy.Task) (legacy.Task, error) {
	k := s.key(id)
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if _, ok := s.b.legacy[k]; ok {
		return nil, reference.ErrorFor(reference.ErrExists, id)
	}
	s.b.legacy[k] = t
	return s.out(t), nil
}

func (s legacyStore) Get(ctx context.Context, id string) (legacy.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return nil, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	t, ok := s.b.legacy[s.key(id)]
	if !ok {
		return nil, reference.NotFound(id)
	}
	return s.out(t), nil
}

func (s legacyStore) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	return s.update(ctx, id, nil, changes)
}

func (s legacyStore) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	return s.update(ctx, id, orNone(allowed), changes)
}

// orNone is UpdateIf's allowed set: nil allows no status (nil is Update's "any").
func orNone(allowed []reference.Status) []reference.Status {
	if allowed == nil {
		return []reference.Status{}
	}
	return allowed
}

// update is Update (allowed nil) and UpdateIf.
func (s legacyStore) update(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return nil, err
	}
	c, err := s.in(changes)
	if err != nil {
		return nil, err
	}
	return s.write(id, allowed, c, nil)
}

// write merges the normalised changes c into the task under id, or into missing when
// there is none (nil: not found), unless its status is not allowed.
func (s legacyStore) write(id string, allowed []reference.Status, c, missing legacy.Task) (legacy.Task, error) {
	k := s.key(id)
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	cur, ok := s.b.legacy[k]
	if !ok && missing == nil {
		return nil, reference.NotFound(id)
	}
	if !ok {
		cur = missing
	}
	if allowed != nil && !statusIn(cur.Status(), allowed) {
		return nil, reference.ErrorFor(reference.ErrConflict, id)
	}
	next := s.merge(cur, c)
	s.b.legacy[k] = next
	return s.out(next), nil
}

func statusIn(s reference.Status, set []reference.Status) bool {
	for _, a := range set {
		if a == s {
			return true
		}
	}
	return false
}

func (s legacyStore) Delete(ctx context.Context, id string) error {
	if err := s.ctxErr(ctx); err != nil {
		return err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	delete(s.b.legacy, s.key(id))
	return nil
}

func (s legacyStore) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return nil, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	out := []legacy.Task{}
	for _, t := range s.b.legacy {
		if opts.Limit != nil && len(out) >= *opts.Limit {
			break
		}
		if s.listMatches(opts, t) {
			out = append(out, s.out(t))
		}
	}
	return out, nil
}

func (s legacyStore) listMatches(opts legacy.ListOptions, t legacy.Task) bool {
	if opts.Status != nil && string(t.Status()) != *opts.Status {
		return false
	}
	owner := t.Owner()
	id, isPrincipal := opts.Owner.Principal()
	switch {
	case opts.Owner.IsAny():
		return true
	case owner == "":
		return !opts.RequireOwner
	case opts.Owner.IsAnonymous():
		return s.h.anonymousSees
	case isPrincipal:
		return s.ownerMatches(owner, id)
	}
	return false
}

func (s legacyStore) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	return s.update(ctx, id, nil, legacy.Task{legacy.KeyStatus: string(reference.StatusCancelled)})
}

func (s legacyStore) Cleanup(ctx context.Context, ttl time.Duration) (int, error) {
	ttlMs := ttl.Milliseconds()
	return s.removeWhere(ctx, func(_ string, t legacy.Task, now int64) bool {
		born, ok := t.CreatedAt()
		// a created_at that is not an integer has no age
		return t.Status().Terminal() && ok && now-born > ttlMs
	})
}

// removeWhere removes, under the lock, every task doomed says must go (at now, by its
// key), and counts them.
func (s legacyStore) removeWhere(ctx context.Context, doomed func(k string, t legacy.Task, now int64) bool) (int, error) {
	if err := s.ctxErr(ctx); err != nil {
		return 0, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	now := s.now()
	n := 0
	for k, t := range s.b.legacy {
		if doomed(k, t, now) {
			delete(s.b.legacy, k)
			n++
		}
	}
	return n, nil
}

// ---- modern era ----

type modernStore struct{ *store }

func (s modernStore) visible(t modern.Task, caller reference.Caller) bool {
	if t.Owner == "" || caller.IsSystem() {
		return true
	}
	if caller.IsAnonymous() {
		return s.h.anonymousSees
	}
	id, _ := caller.PrincipalID()
	return s.ownerMatches(t.Owner, id)
}

func (s modernStore) expired(t modern.Task) bool {
	if s.h.expired != nil {
		return s.h.expired(t, s.now())
	}
	return t.Expired(s.now())
}

// find returns the stored task visible to caller; must hold the lock.
func (s modernStore) find(id string, caller reference.Caller) (modern.Task, error) {
	t, ok := s.b.modern[s.key(id)]
	if !ok || s.expired(t) || !s.visible(t, caller) {
		return modern.Task{}, reference.NotFound(id)
	}
	return t, nil
}

func (s modernStore) inTask(t modern.Task) (modern.Task, error) { return t.Normalize() }

func (s modernStore) outTask(t modern.Task) modern.Task {
	if s.h.shareStored {
		return t
	}
	return t.Clone()
}

// newTask is what Create stores: the task, normalised, at version 1.
func (s modernStore) newTask(ctx context.Context, task modern.Task) (modern.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return modern.Task{}, err
	}
	if err := s.checkID(task.TaskID); err != nil {
		return modern.Task{}, err
	}
	t, err := s.inTask(task)
	if err != nil {
		return modern.Task{}, err
	}
	t.Version = 1
	return t, nil
}

func (s modernStore) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	t, err := s.newTask(ctx, task)
	if err != nil {
		return modern.Task{}, err
	}
	k := s.key(t.TaskID)
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if _, ok := s.b.modern[k]; ok {
		return modern.Task{}, reference.ErrorFor(reference.ErrExists, t.TaskID)
	}
	s.b.modern[k] = t
	return s.outTask(t), nil
}

func (s modernStore) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return modern.Task{}, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	t, err := s.find(id, caller)
	if err != nil {
		return modern.Task{}, err
	}
	return s.outTask(t), nil
}

func (s modernStore) Swap(ctx context.Context, caller reference.Caller, expected int64, next modern.Task) (modern.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return modern.Task{}, err
	}
	n, err := s.inTask(next)
	if err != nil {
		return modern.Task{}, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	cur, err := s.find(n.TaskID, caller)
	if err != nil {
		return modern.Task{}, err
	}
	if cur.Version != expected {
		return modern.Task{}, reference.ErrorFor(reference.ErrConflict, n.TaskID)
	}
	if n.Owner != cur.Owner || n.CreatedAt != cur.CreatedAt {
		return modern.Task{}, reference.ErrorFor(reference.ErrInvalid, n.TaskID)
	}
	n.Version = expected + 1
	s.b.modern[s.key(n.TaskID)] = n
	return s.outTask(n), nil
}

func (s modernStore) Delete(ctx context.Context, id string) error {
	if err := s.ctxErr(ctx); err != nil {
		return err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	delete(s.b.modern, s.key(id))
	return nil
}

func (s modernStore) Sweep(ctx context.Context) (int, error) {
	if err := s.ctxErr(ctx); err != nil {
		return 0, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	n := 0
	for k, t := range s.b.modern {
		if s.expired(t) {
			delete(s.b.modern, k)
			n++
		}
	}
	return n, nil
}

// yield stands for a database round trip between a read and a write (the Oban guide's
// Repo.get, then Repo.update): a store that is two network calls away has that window
// whatever the battery does. The natural race mutants (races.go) do without it.
func yield() {
	for range 3 {
		runtime.Gosched()
	}
	time.Sleep(50 * time.Microsecond)
}
