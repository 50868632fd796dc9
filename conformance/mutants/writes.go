package mutants

import (
	"context"
	"errors"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Defects of single writes and reads: Create, Update, Get, Delete, Cancel, Sweep and a
// modern task's expiry, each a layer over the honest call (the merge and the expiry are
// hooks: a layer cannot reach inside a call's lock).

// writeMutants are the write and read defects.
var writeMutants = []mutant.Mutant[Build]{
	{Name: "update-keeps-stamps", Breaks: []string{"L-UPDATE-1", "L-CLEAN-1"}, Defect: "Update ignores created_at and task_id in the changes (the values Create stamped stay)", Build: Build{legacyOnly, legacyLayer(func(st legacyStore) legacy.Store { return stampsKept{st} })}},
	{Name: "deep-merge", Breaks: []string{"L-UPDATE-1"}, Defect: "Update merges nested objects instead of replacing them", Build: Build{legacyOnly, &wrapper{hooks: hooks{merge: deepMerged}}}},
	{Name: "update-creates", Breaks: []string{"L-UPDATE-2"}, Defect: "Update of a missing id creates the task (an upsert)", Build: Build{legacyOnly, legacyLayer(func(st legacyStore) legacy.Store { return upserting{st} })}},
	{Name: "create-merges", Breaks: []string{"L-CREATE-3", "L-CREATE-2"}, Defect: "Create of an existing id merges the new metadata into the old task", Build: Build{legacyOnly, legacyLayer(func(st legacyStore) legacy.Store { return createMerging{st} })}},
	{Name: "create-keeps-meta-keys", Breaks: []string{"L-CREATE-1"}, Defect: "Create lets status and created_at from the metadata override its own", Build: Build{legacyOnly, legacyLayer(func(st legacyStore) legacy.Store { return metaKeysKept{st} })}},
	{Name: "delete-missing-fails", Breaks: []string{"L-DELETE-1", "M-DELETE-1"}, Defect: "Delete of a missing id fails with not found", Build: Build{both, &wrapper{legacy: func(st legacyStore, _ *wrapState) legacy.Store { return legacyDeleteStrict{st} }, modern: func(st modernStore, _ *wrapState) modern.Store { return modernDeleteStrict{st} }}}},
	{Name: "get-missing-empty", Breaks: []string{"L-GET-1"}, Defect: "Get of a missing id returns an empty task and no error", Build: Build{legacyOnly, legacyLayer(func(st legacyStore) legacy.Store { return missingEmpty{st} })}},
	{Name: "cancel-missing-succeeds", Breaks: []string{"L-CANCEL-1"}, Defect: "Cancel of a missing id answers success", Build: Build{legacyOnly, legacyLayer(func(st legacyStore) legacy.Store { return cancelMissing{st} })}},
	{Name: "create-version-zero", Breaks: []string{"M-CREATE-1"}, Defect: "Create stores version 0", Build: Build{modernOnly, modernLayer(func(st modernStore) modern.Store { return versionZero{st} })}},
	{Name: "create-overwrites", Breaks: []string{"M-CREATE-1"}, Defect: "Create of an existing id overwrites it", Build: Build{modernOnly, modernLayer(func(st modernStore) modern.Store { return overwriting{st} })}},
	{Name: "delete-keeps-owner", Breaks: []string{"M-CREATE-1", "M-DELETE-1", "M-GET-1", "M-SWAP-1", "M-SWAP-2"}, Defect: "Delete leaves the task's owner in an owner index, and a later Create of the id takes the owner from there: another owner's task of a reused id belongs to the first", Build: Build{modernOnly, &wrapper{modern: func(st modernStore, x *wrapState) modern.Store { return formerOwners{st, x} }}}},
	{Name: "get-caches-misses", Breaks: []string{"M-CREATE-1"}, Defect: "Get remembers the ids it did not find and answers not found for them ever after: a task created after a Get of its id is never found", Build: Build{modernOnly, &wrapper{modern: func(st modernStore, x *wrapState) modern.Store { return missesCached{st, x} }, machines: true}}},
	{Name: "sweep-removes-live", Breaks: []string{"M-SWEEP-1"}, Defect: "Sweep removes every task with a ttl, expired or not", Build: Build{modernOnly, modernLayer(func(st modernStore) modern.Store { return sweepsLive{st} })}},
	{Name: "expired-visible", Breaks: []string{"M-GET-1", "M-F-TTL-1", "M-SWAP-2"}, Defect: "expired tasks stay visible until swept", Build: Build{modernOnly, &wrapper{hooks: hooks{expired: neverExpired}}}},
	{Name: "expiry-off-by-one", Breaks: []string{"M-GET-1", "M-F-TTL-1"}, Defect: "a task expires one millisecond late (now > created_at + ttl)", Build: Build{modernOnly, &wrapper{hooks: hooks{expired: expiresLate}}}},
	{Name: "expiry-double", Breaks: []string{"M-GET-1"}, Defect: "created_at + ttl summed in a double: past 2^53 ms the expiry instant is off by a millisecond", Build: Build{modernOnly, &wrapper{hooks: hooks{expired: expiresInDouble}}}},
}

// stampsKept ignores task_id and created_at in an Update's changes.
type stampsKept struct{ legacyStore }

func withoutStamps(changes legacy.Task) legacy.Task {
	c := legacy.Task{}
	for k, v := range changes {
		if k != legacy.KeyTaskID && k != legacy.KeyCreatedAt {
			c[k] = v
		}
	}
	return c
}

func (s stampsKept) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	return s.legacyStore.Update(ctx, id, withoutStamps(changes))
}

func (s stampsKept) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	return s.legacyStore.UpdateIf(ctx, id, allowed, withoutStamps(changes))
}

// deepMerged merges nested objects instead of replacing them.
func deepMerged(cur, changes legacy.Task) legacy.Task {
	return legacy.Task(deepMergeObjects(cur, changes))
}

func deepMergeObjects(a, b map[string]any) map[string]any {
	out := jsonvalue.CloneObject(a)
	for k, v := range b {
		am, ok1 := out[k].(map[string]any)
		bm, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			out[k] = deepMergeObjects(am, bm)
			continue
		}
		out[k] = jsonvalue.Clone(v)
	}
	return out
}

// upserting creates the task an Update, UpdateIf or Cancel does not find, from the
// changes alone.
type upserting struct{ legacyStore }

func (s upserting) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	t, err := s.legacyStore.Update(ctx, id, changes)
	return s.orCreate(id, nil, changes, t, err)
}

func (s upserting) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	t, err := s.legacyStore.UpdateIf(ctx, id, allowed, changes)
	return s.orCreate(id, orNone(allowed), changes, t, err)
}

func (s upserting) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	t, err := s.legacyStore.Cancel(ctx, id)
	return s.orCreate(id, nil, legacy.Task{legacy.KeyStatus: string(reference.StatusCancelled)}, t, err)
}

// orCreate writes the changes over {task_id: id} when the honest call found no task.
func (s upserting) orCreate(id string, allowed []reference.Status, changes, t legacy.Task, err error) (legacy.Task, error) {
	if !errors.Is(err, reference.ErrNotFound) {
		return t, err
	}
	c, err := s.in(changes)
	if err != nil {
		return nil, err
	}
	return s.write(id, allowed, c, legacy.Task{legacy.KeyTaskID: id})
}

// createMerging merges a Create of an existing id into the old task.
type createMerging struct{ legacyStore }

func (s createMerging) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	t, err := s.stamp(ctx, id, meta, s.now())
	if err != nil {
		return nil, err
	}
	m, _ := s.in(meta)
	k := s.key(id)
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if old, ok := s.b.legacy[k]; ok {
		t = legacy.Merge(old, m)
	}
	s.b.legacy[k] = t
	return s.out(t), nil
}

// metaKeysKept lets status and created_at from the metadata override Create's own.
type metaKeysKept struct{ legacyStore }

func (s metaKeysKept) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	t, err := s.stamp(ctx, id, meta, s.now())
	if err != nil {
		return nil, err
	}
	m, _ := s.in(meta)
	for _, k := range []string{legacy.KeyStatus, legacy.KeyCreatedAt} {
		if v, ok := m[k]; ok {
			t[k] = v
		}
	}
	return s.insert(id, t)
}

// legacyDeleteStrict fails a Delete of a missing id with not found.
type legacyDeleteStrict struct{ legacyStore }

func (s legacyDeleteStrict) Delete(ctx context.Context, id string) error {
	if err := s.ctxErr(ctx); err != nil {
		return err
	}
	s.b.mu.Lock()
	_, ok := s.b.legacy[s.key(id)]
	s.b.mu.Unlock()
	if !ok {
		return reference.NotFound(id)
	}
	return s.legacyStore.Delete(ctx, id)
}

// modernDeleteStrict is legacyDeleteStrict for the modern era.
type modernDeleteStrict struct{ modernStore }

func (s modernDeleteStrict) Delete(ctx context.Context, id string) error {
	if err := s.ctxErr(ctx); err != nil {
		return err
	}
	s.b.mu.Lock()
	_, ok := s.b.modern[s.key(id)]
	s.b.mu.Unlock()
	if !ok {
		return reference.NotFound(id)
	}
	return s.modernStore.Delete(ctx, id)
}

// missingEmpty answers a Get of a missing id with an empty task.
type missingEmpty struct{ legacyStore }

func (s missingEmpty) Get(ctx context.Context, id string) (legacy.Task, error) {
	t, err := s.legacyStore.Get(ctx, id)
	if errors.Is(err, reference.ErrNotFound) {
		return legacy.Task{}, nil
	}
	return t, err
}

// cancelMissing answers a Cancel of a missing id with success.
type cancelMissing struct{ legacyStore }

func (s cancelMissing) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return nil, err
	}
	s.b.mu.Lock()
	_, ok := s.b.legacy[s.key(id)]
	s.b.mu.Unlock()
	if !ok {
		return legacy.Task{legacy.KeyTaskID: id, legacy.KeyStatus: "cancelled"}, nil
	}
	return s.legacyStore.Cancel(ctx, id)
}

// versionZero stores a created task at version 0.
type versionZero struct{ modernStore }

func (s versionZero) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	t, err := s.modernStore.Create(ctx, task)
	if err != nil {
		return t, err
	}
	k := s.key(task.TaskID)
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	stored := s.b.modern[k]
	stored.Version = 0
	s.b.modern[k] = stored
	t.Version = 0
	return t, nil
}

// overwriting overwrites an existing id on Create.
type overwriting struct{ modernStore }

func (s overwriting) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	t, err := s.modernStore.Create(ctx, task)
	if !errors.Is(err, reference.ErrExists) {
		return t, err
	}
	if t, err = s.newTask(ctx, task); err != nil {
		return modern.Task{}, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.b.modern[s.key(t.TaskID)] = t
	return s.outTask(t), nil
}

// formerOwners keeps a deleted task's owner in an owner index, and a later Create of the
// id takes the owner from there.
type formerOwners struct {
	modernStore
	x *wrapState
}

func (s formerOwners) Delete(ctx context.Context, id string) error {
	k := s.key(id)
	s.b.mu.Lock()
	t, ok := s.b.modern[k]
	s.b.mu.Unlock()
	err := s.modernStore.Delete(ctx, id)
	if ok && err == nil {
		s.x.mu.Lock()
		s.x.formerOwner[k] = t.Owner
		s.x.mu.Unlock()
	}
	return err
}

func (s formerOwners) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	s.x.mu.Lock()
	owner, ok := s.x.formerOwner[s.key(task.TaskID)]
	s.x.mu.Unlock()
	if ok {
		task.Owner = owner // the owner index kept the deleted task's row
	}
	return s.modernStore.Create(ctx, task)
}

// missesCached remembers the ids Get did not find and answers not found for them ever
// after.
type missesCached struct {
	modernStore
	x *wrapState
}

func (s missesCached) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return modern.Task{}, err
	}
	k := s.key(id)
	s.b.mu.Lock()
	_, there := s.b.modern[k]
	s.b.mu.Unlock()
	s.x.mu.Lock()
	missed := s.x.missed[k]
	if !there {
		s.x.missed[k] = true
	}
	s.x.mu.Unlock()
	if missed {
		return modern.Task{}, reference.NotFound(id)
	}
	return s.modernStore.Get(ctx, id, caller)
}

// sweepsLive removes every task with a ttl, expired or not.
type sweepsLive struct{ modernStore }

func (s sweepsLive) Sweep(ctx context.Context) (int, error) {
	if err := s.ctxErr(ctx); err != nil {
		return 0, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	n := 0
	for k, t := range s.b.modern {
		if s.expired(t) || t.TTL != nil {
			delete(s.b.modern, k)
			n++
		}
	}
	return n, nil
}

// neverExpired keeps expired tasks visible until swept.
func neverExpired(modern.Task, int64) bool { return false }

// expiresLate expires a task one millisecond late.
func expiresLate(t modern.Task, now int64) bool { return t.TTL != nil && now > t.CreatedAt+*t.TTL }

// expiresInDouble sums created_at + ttl in a double, as a JavaScript store would.
func expiresInDouble(t modern.Task, now int64) bool {
	return t.TTL != nil && float64(now) >= float64(t.CreatedAt)+float64(*t.TTL)
}
