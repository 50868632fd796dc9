package mutants

import (
	"context"
	"time"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Defects of the legacy Cleanup (L-CLEAN-1): layers whose Cleanup sweeps by another
// rule than the honest one, some aging tasks from times they record themselves.

// cleanupMutants are the Cleanup defects.
var cleanupMutants = []mutant.Mutant[Build]{
	{Name: "cleanup-ge", Breaks: []string{"L-CLEAN-1"}, Defect: "Cleanup removes tasks whose age equals the ttl (>= instead of >)", Build: Build{legacyOnly, cleaned(cleanupRule{atTTL: true})}},
	{Name: "cleanup-from-completion", Breaks: []string{"L-CLEAN-1"}, Defect: "Cleanup measures age from the last status change, not created_at", Build: Build{legacyOnly, timed(func(x *wrapState) bornAt { return x.statusChanged })}},
	{Name: "cleanup-ttl-int32", Breaks: []string{"L-CLEAN-1"}, Defect: "Cleanup's ttl in milliseconds goes through a 32-bit integer: 2^31 ms becomes negative and every terminal task goes", Build: Build{legacyOnly, cleaned(cleanupRule{ttl: func(ms int64) int64 { return int64(int32(ms)) }})}},
	{Name: "cleanup-removes-working", Breaks: []string{"L-CLEAN-1"}, Defect: "Cleanup removes old working and input_required tasks", Build: Build{legacyOnly, cleaned(cleanupRule{anyStatus: true})}},
	{Name: "cleanup-create-time", Breaks: []string{"L-CLEAN-1"}, Defect: "Cleanup ages a task from the time Create stamped (a column Update never writes), not from the created_at it holds", Build: Build{legacyOnly, timed(func(x *wrapState) bornAt { return x.createdAt })}},
}

// cleanupRule is how a broken Cleanup sweeps. The zero rule is the honest one: a
// terminal task whose created_at is an integer goes when its age exceeds the ttl.
type cleanupRule struct {
	ttl       func(ms int64) int64 // the ttl as the store reads it
	anyStatus bool                 // working and input_required tasks go too
	atTTL     bool                 // an age equal to the ttl is past it
	born      bornAt               // when a task is born; nil: its created_at
}

// bornAt is when the task under key k was born, by a time a layer recorded.
type bornAt func(k string, t legacy.Task) (int64, bool)

type cleaning struct {
	legacyStore
	r cleanupRule
}

func cleaned(r cleanupRule) *wrapper {
	return legacyLayer(func(st legacyStore) legacy.Store { return cleaning{st, r} })
}

func (s cleaning) Cleanup(ctx context.Context, ttl time.Duration) (int, error) {
	ttlMs := ttl.Milliseconds()
	if s.r.ttl != nil {
		ttlMs = s.r.ttl(ttlMs)
	}
	return s.removeWhere(ctx, func(k string, t legacy.Task, now int64) bool {
		if !t.Status().Terminal() && !s.r.anyStatus {
			return false
		}
		born, ok := t.CreatedAt()
		if s.r.born != nil {
			born, ok = s.r.born(k, t)
		}
		if !ok {
			return false
		}
		if s.r.atTTL {
			return now-born >= ttlMs
		}
		return now-born > ttlMs
	})
}

// timed is a Cleanup that ages tasks from a time the layer records: when Create stamped
// the task, or when its status last changed.
func timed(born func(x *wrapState) bornAt) *wrapper {
	return &wrapper{legacy: func(st legacyStore, x *wrapState) legacy.Store {
		return stampTimes{cleaning{st, cleanupRule{born: born(x)}}, x}
	}}
}

// stampTimes records, beside each task, when Create stamped it and when its status last
// changed (columns the task does not hold).
type stampTimes struct {
	cleaning
	x *wrapState
}

func (x *wrapState) createdAt(k string, _ legacy.Task) (int64, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.created[k], true
}

func (x *wrapState) statusChanged(k string, _ legacy.Task) (int64, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.updated[k], true
}

// record notes the times of a write to id that succeeded.
func (s stampTimes) record(id string, created bool, changes legacy.Task, err error) {
	if err != nil {
		return
	}
	now := s.now()
	s.x.mu.Lock()
	defer s.x.mu.Unlock()
	if created {
		s.x.created[id] = now
		s.x.updated[id] = now
	} else if _, changed := changes[legacy.KeyStatus]; changed {
		s.x.updated[id] = now
	}
}

func (s stampTimes) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	t, err := s.cleaning.Create(ctx, id, meta)
	s.record(id, true, nil, err)
	return t, err
}

func (s stampTimes) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	t, err := s.cleaning.Update(ctx, id, changes)
	s.record(id, false, changes, err)
	return t, err
}

func (s stampTimes) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	t, err := s.cleaning.UpdateIf(ctx, id, allowed, changes)
	s.record(id, false, changes, err)
	return t, err
}

func (s stampTimes) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	t, err := s.cleaning.Cancel(ctx, id)
	s.record(id, false, legacy.Task{legacy.KeyStatus: string(reference.StatusCancelled)}, err)
	return t, err
}
