package mutants

import (
	"context"
	"sort"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Natural races: ordinary code that reads under the shared lock, works outside it, and
// writes under the exclusive lock, where the honest store holds the exclusive lock
// throughout. No sleep or yield widens the window; only the battery's concurrency can
// show it, so a run kills them only when its racers land in it (Mutant.NaturalRace).

// raceMutants are the natural races.
var raceMutants = []mutant.Mutant[Build]{
	{Name: "lost-update", Breaks: []string{"L-CONC-1", "S-CONC-1"}, Defect: "Update reads under a read lock, merges, then writes the merged task under the write lock (natural race: no sleep)", Build: Build{legacyOnly, &wrapper{legacy: func(st legacyStore, _ *wrapState) legacy.Store { return lostUpdate{st} }, race: true}}},
	{Name: "check-then-act", Breaks: []string{"L-F-FIN-2"}, Defect: "UpdateIf checks the status under a read lock, then writes under the write lock (natural race: no sleep)", Build: Build{legacyOnly, &wrapper{legacy: func(st legacyStore, _ *wrapState) legacy.Store { return checkThenAct{st} }, race: true}}},
	{Name: "toctou-cas", Breaks: []string{"M-SWAP-4", "M-SWAP-1", "S-CONC-1", "M-F-FIN-2"}, Defect: "Swap checks the version under a read lock, then writes under the write lock (natural race: no sleep)", Build: Build{modernOnly, &wrapper{modern: func(st modernStore, _ *wrapState) modern.Store { return toctouCAS{st} }, race: true}}},
	{Name: "check-then-insert", Breaks: []string{"M-CREATE-1", "L-CREATE-2"}, Defect: "Create looks for the id under a read lock, then inserts under the write lock: concurrent Creates of one id both succeed (natural race)", Build: Build{both, &wrapper{legacy: func(st legacyStore, _ *wrapState) legacy.Store { return legacyCheckThenInsert{st} }, modern: func(st modernStore, _ *wrapState) modern.Store { return modernCheckThenInsert{st} }, race: true}}},
	{Name: "torn-update", Breaks: []string{"S-CONC-1"}, Defect: "Update writes the merged task key by key, each key under its own lock acquisition: a concurrent Get or List sees half of one write (natural race: no sleep)", Build: Build{legacyOnly, &wrapper{legacy: func(st legacyStore, _ *wrapState) legacy.Store { return tornUpdate{st} }, race: true}}},
	{Name: "update-resurrects", Breaks: []string{"L-CONC-1", "S-CONC-1"}, Defect: "read-modify-write calls hold their own lock, Delete only the map lock: a task deleted mid-update is written back (natural race)", Build: Build{both, &wrapper{legacy: func(st legacyStore, x *wrapState) legacy.Store { return legacyResurrects{st, x} }, modern: func(st modernStore, x *wrapState) modern.Store { return modernResurrects{st, x} }, race: true}}},
}

// inSteps is how a read-modify-write call of a natural race runs.
type inSteps struct {
	serialised bool // its own lock serialises these calls among themselves (update-resurrects)
	recheck    bool // the write merges into the task as it is then (check-then-act)
}

var cancelChanges = legacy.Task{legacy.KeyStatus: string(reference.StatusCancelled)}

// lostUpdate: the merged task is computed from the read and written back, so an Update
// that ran in between is lost.
type lostUpdate struct{ legacyStore }

func (s lostUpdate) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	return s.updateInSteps(ctx, nil, inSteps{}, id, nil, changes)
}

func (s lostUpdate) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	return s.updateInSteps(ctx, nil, inSteps{}, id, orNone(allowed), changes)
}

func (s lostUpdate) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	return s.updateInSteps(ctx, nil, inSteps{}, id, nil, cancelChanges)
}

// checkThenAct: UpdateIf checks the status on the read, then merges into the task as it
// is at the write, so a racing status change slips past the check.
type checkThenAct struct{ legacyStore }

func (s checkThenAct) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	return s.updateInSteps(ctx, nil, inSteps{recheck: true}, id, orNone(allowed), changes)
}

// legacyResurrects: read-modify-write calls are serialised among themselves by their own
// lock (no update is lost), but Delete takes only the map lock, so a task deleted
// between the read and the write is written back.
type legacyResurrects struct {
	legacyStore
	x *wrapState
}

func (s legacyResurrects) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	return s.updateInSteps(ctx, s.x, inSteps{serialised: true}, id, nil, changes)
}

func (s legacyResurrects) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	return s.updateInSteps(ctx, s.x, inSteps{serialised: true}, id, orNone(allowed), changes)
}

func (s legacyResurrects) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	return s.updateInSteps(ctx, s.x, inSteps{serialised: true}, id, nil, cancelChanges)
}

// updateInSteps is the update of the natural race mutants (allowed nil for Update).
func (s legacyStore) updateInSteps(ctx context.Context, x *wrapState, how inSteps, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return nil, err
	}
	if how.serialised {
		x.wmu.Lock()
		defer x.wmu.Unlock()
	}
	k := s.key(id)
	s.b.mu.RLock()
	cur, ok := s.b.legacy[k]
	s.b.mu.RUnlock()
	if !ok {
		return nil, reference.NotFound(id)
	}
	if allowed != nil && !statusIn(cur.Status(), allowed) {
		return nil, reference.ErrorFor(reference.ErrConflict, id)
	}
	c, err := s.in(changes)
	if err != nil {
		return nil, err
	}
	next := legacy.Merge(cur, c)
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if how.recheck {
		if cur, ok = s.b.legacy[k]; !ok {
			return nil, reference.NotFound(id)
		}
		next = legacy.Merge(cur, c)
	}
	s.b.legacy[k] = next
	return s.out(next), nil
}

// tornUpdate: Update writes the changes one key at a time, each under its own
// acquisition of the exclusive lock (as a store writing one column or hash field per
// statement would). No key is lost and the end state is right, but between two of its
// writes a concurrent Get or List reads a task with some of the changes and not the
// others.
type tornUpdate struct{ legacyStore }

func (s tornUpdate) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	return s.updateKeyByKey(ctx, id, changes)
}

func (s tornUpdate) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	return s.updateKeyByKey(ctx, id, cancelChanges)
}

func (s tornUpdate) updateKeyByKey(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return nil, err
	}
	c, err := s.in(changes)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(c))
	for key := range c {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	k := s.key(id)
	var next legacy.Task
	write := func(key string, some bool) error {
		s.b.mu.Lock()
		defer s.b.mu.Unlock()
		cur, ok := s.b.legacy[k]
		if !ok {
			return reference.NotFound(id)
		}
		part := legacy.Task{}
		if some {
			part[key] = c[key]
		}
		next = legacy.Merge(cur, part) // a fresh map: readers hold the old one
		s.b.legacy[k] = next
		return nil
	}
	if len(keys) == 0 { // nothing to change: the task must still exist
		if err := write("", false); err != nil {
			return nil, err
		}
	}
	for _, key := range keys {
		if err := write(key, true); err != nil {
			return nil, err
		}
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	return s.out(next), nil
}

// toctouCAS: two Swaps with the same expected version can both pass the check, and
// both succeed.
type toctouCAS struct{ modernStore }

func (s toctouCAS) Swap(ctx context.Context, caller reference.Caller, expected int64, next modern.Task) (modern.Task, error) {
	return s.swapInSteps(ctx, nil, caller, expected, next)
}

// modernResurrects: Swaps are serialised among themselves by their own lock (the
// compare-and-swap holds), but Delete takes only the map lock, so a task deleted between
// the check and the write is written back.
type modernResurrects struct {
	modernStore
	x *wrapState
}

func (s modernResurrects) Swap(ctx context.Context, caller reference.Caller, expected int64, next modern.Task) (modern.Task, error) {
	return s.swapInSteps(ctx, s.x, caller, expected, next)
}

// swapInSteps checks the version under the shared lock, prepares the new row outside it
// and stores it under the exclusive lock; with x, x.wmu serialises the Swaps.
func (s modernStore) swapInSteps(ctx context.Context, x *wrapState, caller reference.Caller, expected int64, next modern.Task) (modern.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return modern.Task{}, err
	}
	if x != nil {
		x.wmu.Lock()
		defer x.wmu.Unlock()
	}
	s.b.mu.RLock()
	cur, err := s.find(next.TaskID, caller)
	s.b.mu.RUnlock()
	if err != nil {
		return modern.Task{}, err
	}
	if cur.Version != expected {
		return modern.Task{}, reference.ErrorFor(reference.ErrConflict, next.TaskID)
	}
	if next.Owner != cur.Owner || next.CreatedAt != cur.CreatedAt {
		return modern.Task{}, reference.ErrorFor(reference.ErrInvalid, next.TaskID)
	}
	n, err := s.inTask(next)
	if err != nil {
		return modern.Task{}, err
	}
	n.Version = expected + 1
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.b.modern[s.key(n.TaskID)] = n
	return s.outTask(n), nil
}

// legacyCheckThenInsert: a cheap existence check first, under the read lock; the insert
// takes the write lock without looking again, so two Creates of one id can both find it
// absent and both succeed.
type legacyCheckThenInsert struct{ legacyStore }

func (s legacyCheckThenInsert) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return nil, err
	}
	if err := s.checkID(id); err != nil {
		return nil, err
	}
	s.b.mu.RLock()
	_, exists := s.b.legacy[s.key(id)]
	s.b.mu.RUnlock()
	if exists {
		return nil, reference.ErrorFor(reference.ErrExists, id)
	}
	t, err := s.stamp(ctx, id, meta, s.now())
	if err != nil {
		return nil, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.b.legacy[s.key(id)] = t
	return s.out(t), nil
}

// modernCheckThenInsert is legacyCheckThenInsert for the modern era.
type modernCheckThenInsert struct{ modernStore }

func (s modernCheckThenInsert) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return modern.Task{}, err
	}
	if err := s.checkID(task.TaskID); err != nil {
		return modern.Task{}, err
	}
	s.b.mu.RLock()
	_, exists := s.b.modern[s.key(task.TaskID)]
	s.b.mu.RUnlock()
	if exists {
		return modern.Task{}, reference.ErrorFor(reference.ErrExists, task.TaskID)
	}
	t, err := s.newTask(ctx, task)
	if err != nil {
		return modern.Task{}, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.b.modern[s.key(t.TaskID)] = t
	return s.outTask(t), nil
}
