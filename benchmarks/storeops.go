package benchmarks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// The task every case writes: a realistic legacy task and modern record, the same for a
// store and its baseline.
const (
	taskTTL      = 24 * time.Hour
	pollInterval = time.Second
)

func legacyMeta(owner string, n int) legacy.Task {
	return legacy.Task{
		"tool":     "search",
		"args":     map[string]any{"q": "task stores", "page": n},
		"progress": 0,
		"owner":    owner,
	}
}

func modernTask(id, owner string, createdAt int64) modern.Task {
	return modern.Task{
		TaskID: id, Owner: owner, Status: reference.StatusWorking, StatusMessage: "queued",
		CreatedAt: createdAt, LastUpdatedAt: createdAt,
		TTL: new(taskTTL.Milliseconds()), PollInterval: new(pollInterval.Milliseconds()),
	}
}

var lifecycleResult = map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}}

// storeLegacy drives a legacy.Store.
type storeLegacy struct {
	st legacy.Store
	// setClock moves the store's clock (Seed and Cleanup need it).
	setClock func(ctx context.Context, ms int64) error
	// seed, when set, replaces Seed's Create and Update calls by a bulk load.
	seed func(ctx context.Context, ids []string, owner string, atMillis int64) error
}

func (s *storeLegacy) Create(ctx context.Context, id, owner string) error {
	_, err := s.st.Create(ctx, id, legacyMeta(owner, len(id)))
	return err
}

func (s *storeLegacy) Get(ctx context.Context, id string) error {
	_, err := s.st.Get(ctx, id)
	return err
}

func (s *storeLegacy) Update(ctx context.Context, id string, n int) error {
	_, err := s.st.Update(ctx, id, legacy.Task{"progress": n})
	return err
}

func (s *storeLegacy) List(ctx context.Context, owner string, limit int) (int, error) {
	rows, err := s.st.List(ctx, legacy.ListOptions{Owner: legacy.PrincipalOwner(owner), Limit: &limit})
	return len(rows), err
}

func (s *storeLegacy) Seed(ctx context.Context, ids []string, owner string, atMillis int64) error {
	if s.seed != nil {
		return s.seed(ctx, ids, owner, atMillis)
	}
	if err := s.setClock(ctx, atMillis); err != nil {
		return err
	}
	done := legacy.Task{legacy.KeyStatus: string(reference.StatusCompleted)}
	return forEach(ctx, ids, func(ctx context.Context, id string) error {
		if _, err := s.st.Create(ctx, id, legacyMeta(owner, 0)); err != nil {
			return err
		}
		_, err := s.st.Update(ctx, id, done)
		return err
	})
}

func (s *storeLegacy) Cleanup(ctx context.Context, nowMillis int64, ttl time.Duration) (int, error) {
	c, ok := s.st.(legacy.Cleaner)
	if !ok {
		return 0, fmt.Errorf("%w: the store has no Cleanup", reference.ErrUnsupported)
	}
	if err := s.setClock(ctx, nowMillis); err != nil {
		return 0, err
	}
	return c.Cleanup(ctx, ttl)
}

// storeModern drives a modern.Store, and the facade over it for Lifecycle.
type storeModern struct {
	st        modern.Store
	tasks     *modern.Tasks
	createdAt int64
}

// newStoreModern drives st, whose clock (and the facade's) reads clock.
func newStoreModern(st modern.Store, clock reference.Clock) *storeModern {
	return &storeModern{
		st:        st,
		tasks:     modern.New(modern.Config{Store: st, Clock: clock}),
		createdAt: reference.NowMillis(clock),
	}
}

func (s *storeModern) Create(ctx context.Context, id, owner string) error {
	_, err := s.st.Create(ctx, modernTask(id, owner, s.createdAt))
	return err
}

func (s *storeModern) Get(ctx context.Context, id string) error {
	_, err := s.st.Get(ctx, id, reference.System())
	return err
}

func (s *storeModern) Swap(ctx context.Context, id, owner string, version int64) error {
	t := modernTask(id, owner, s.createdAt)
	t.StatusMessage = "step"
	_, err := s.st.Swap(ctx, reference.System(), version, t)
	return err
}

func (s *storeModern) Lifecycle(ctx context.Context, owner string) error {
	ttl := taskTTL
	t, err := s.tasks.Create(ctx, modern.CreateOptions{Owner: owner, TTL: &ttl}, nil)
	if err != nil {
		return err
	}
	if _, err := s.tasks.Progress(ctx, t.TaskID, "half way"); err != nil {
		return err
	}
	_, err = s.tasks.Complete(ctx, t.TaskID, lifecycleResult)
	return err
}

func (s *storeModern) Increment(ctx context.Context, id string) error {
	for {
		cur, err := s.st.Get(ctx, id, reference.System())
		if err != nil {
			return err
		}
		cur.StatusMessage = "incremented"
		_, err = s.st.Swap(ctx, reference.System(), cur.Version, cur)
		if !errors.Is(err, reference.ErrConflict) {
			return err
		}
	}
}

// seedWorkers is how many goroutines load a backend: enough to hide a network round
// trip, few enough for a 2-core machine.
const seedWorkers = 16

// forEach calls f for every id on seedWorkers goroutines and returns the first error.
func forEach(ctx context.Context, ids []string, f func(ctx context.Context, id string) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(seedWorkers, len(ids)) {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(len(ids)) || ctx.Err() != nil {
					return
				}
				if err := f(ctx, ids[i]); err != nil {
					cancel(fmt.Errorf("%s: %w", ids[i], err))
					return
				}
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}

// manualClock is a store clock for a Space: it starts at the real time and moves only
// when Seed and Cleanup move it. It is read without a lock (reference.ManualClock takes
// a mutex on every read, which would be a global point of contention that no store has
// with the real clock, and would hide what sharding buys under RunParallel).
func manualClock() (*atomicClock, func(ctx context.Context, ms int64) error) {
	c := &atomicClock{}
	c.ms.Store(time.Now().UnixMilli())
	return c, func(ctx context.Context, ms int64) error { c.ms.Store(ms); return ctx.Err() }
}

// atomicClock is a settable clock read with one atomic load.
type atomicClock struct{ ms atomic.Int64 }

func (c *atomicClock) Now() time.Time { return time.UnixMilli(c.ms.Load()) }

// What the targets on other backends (package dbtargets) build their spaces from.
const (
	// SeedWorkers is how many goroutines load a backend.
	SeedWorkers = seedWorkers
	// TaskTTL is the ttl of every task a case writes.
	TaskTTL = taskTTL
)

// Register adds a target to Targets and Lookup; call it from the package that brings its
// backend up.
func Register(t Target) { addTarget(t) }

// LegacyMeta is the legacy task every case writes, for a baseline that writes it itself.
func LegacyMeta(owner string, n int) legacy.Task { return legacyMeta(owner, n) }

// ManualClock is a store clock that starts at the real time and moves only when its setter
// (Seed and Cleanup) moves it, read with one atomic load.
func ManualClock() (reference.Clock, func(ctx context.Context, ms int64) error) {
	return manualClock()
}

// StoreLegacy drives a legacy.Store: setClock moves its clock; seed, when not nil,
// replaces Seed's Create and Update calls by a bulk load.
func StoreLegacy(st legacy.Store, setClock func(ctx context.Context, ms int64) error,
	seed func(ctx context.Context, ids []string, owner string, atMillis int64) error) LegacyOps {
	return &storeLegacy{st: st, setClock: setClock, seed: seed}
}

// StoreModern drives a modern.Store whose clock is clock.
func StoreModern(st modern.Store, clock reference.Clock) ModernOps { return newStoreModern(st, clock) }
