package benchmarks

import (
	"context"
	"sync"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// mapStore is the baseline of the in-memory stores: the plainest store that keeps the
// contract's copying rules, one map per era behind one sync.Mutex, values normalised on
// the way in and cloned on the way out, all under the lock. It is what a store author
// writes first; a store worth its complexity must beat it.
type mapStore struct {
	clock reference.Clock

	mu     sync.Mutex
	legacy map[string]legacy.Task
	modern map[string]modern.Task
}

func newMapStore(clock reference.Clock) *mapStore {
	return &mapStore{clock: clock, legacy: map[string]legacy.Task{}, modern: map[string]modern.Task{}}
}

func (s *mapStore) now() int64 { return reference.NowMillis(s.clock) }

// mapLegacy is the legacy era of a mapStore.
type mapLegacy struct{ *mapStore }

var (
	_ legacy.Store   = mapLegacy{}
	_ legacy.Cleaner = mapLegacy{}
	_ modern.Store   = mapModern{}
)

func (s mapLegacy) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.legacy[id]; ok {
		return nil, reference.ErrorFor(reference.ErrExists, id)
	}
	row, err := legacy.NewRow(id, meta, s.now())
	if err != nil {
		return nil, err
	}
	s.legacy[id] = row
	return row.Clone(), nil
}

func (s mapLegacy) Get(ctx context.Context, id string) (legacy.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.legacy[id]
	if !ok {
		return nil, reference.NotFound(id)
	}
	return row.Clone(), nil
}

func (s mapLegacy) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.legacy[id]
	if !ok {
		return nil, reference.NotFound(id)
	}
	ch, err := legacy.Normalize(changes)
	if err != nil {
		return nil, err
	}
	row = legacy.MergeRow(row, ch)
	s.legacy[id] = row
	return row.Clone(), nil
}

func (s mapLegacy) Delete(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.legacy, id)
	return nil
}

func (s mapLegacy) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []legacy.Task{}
	for _, row := range s.legacy {
		if !opts.LimitAllows(len(out)) {
			break
		}
		if opts.Matches(row) {
			out = append(out, row.Clone())
		}
	}
	return out, nil
}

func (s mapLegacy) Cleanup(ctx context.Context, ttl time.Duration) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now, n := s.now(), 0
	for id, row := range s.legacy {
		if row.CleanupDue(now, ttl) {
			delete(s.legacy, id)
			n++
		}
	}
	return n, nil
}

// mapModern is the modern era of a mapStore.
type mapModern struct{ *mapStore }

func (s mapModern) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.modern[task.TaskID]; ok {
		return modern.Task{}, reference.ErrorFor(reference.ErrExists, task.TaskID)
	}
	row, err := task.Normalize()
	if err != nil {
		return modern.Task{}, err
	}
	row.Version = 1
	s.modern[row.TaskID] = row
	return row.Clone(), nil
}

func (s mapModern) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.modern[id]
	if !ok || !row.VisibleAt(caller, s.now()) {
		return modern.Task{}, reference.NotFound(id)
	}
	return row.Clone(), nil
}

func (s mapModern) Swap(ctx context.Context, caller reference.Caller, expectedVersion int64, next modern.Task) (modern.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.modern[next.TaskID]
	if err := modern.CheckSwap(cur, ok, caller, expectedVersion, next, s.now()); err != nil {
		return modern.Task{}, err
	}
	row, err := next.Normalize()
	if err != nil {
		return modern.Task{}, err
	}
	row.Version = expectedVersion + 1
	s.modern[row.TaskID] = row
	return row.Clone(), nil
}

func (s mapModern) Delete(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.modern, id)
	return nil
}

func (s mapModern) Sweep(ctx context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now, n := s.now(), 0
	for id, row := range s.modern {
		if row.Expired(now) {
			delete(s.modern, id)
			n++
		}
	}
	return n, nil
}

// mapSubject is the baseline subject of the in-memory targets.
func mapSubject() Subject {
	return inProcess("baseline", "mutex+map", func(clock reference.Clock) (legacy.Store, modern.Store) {
		s := newMapStore(clock)
		return mapLegacy{s}, mapModern{s}
	})
}
