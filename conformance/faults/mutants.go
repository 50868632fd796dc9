package faults

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// A fault mutant is a store with one defect that only a fault reveals: it wraps the
// stores of a real, fault-injectable harness (Postgres, Redis), so the check meets the
// real backend's errors and timing. Its Breaks[0] is the fault rule that must kill it;
// the others are the fault rules its defect also breaks in that fault, and every rule in
// none of them must not fail (honest attribution).

// Build is what a fault mutant needs beyond its name: the fault that reveals it. The
// defect itself is built by name (Mutate).
type Build struct {
	Fault string
}

// Mutants is the catalogue of fault mutants.
func Mutants() []mutant.Mutant[Build] {
	return []mutant.Mutant[Build]{
		// Its acknowledgements while the backend is dead are successes it could not
		// store: F-OUTAGE-1 fails too.
		{Name: "async-write", Breaks: []string{RuleDurable, RuleOutage}, Defect: "acknowledges every write at once and writes it later from a queue; a write the backend refuses is dropped", Build: Build{Kill}},
		{Name: "retry-after-error", Breaks: []string{RuleAtomic}, Defect: "reports a failed write's error, then retries the write behind the caller's back until it succeeds", Build: Build{Kill}},
		{Name: "hang-on-pause", Breaks: []string{RuleOutage}, Defect: "ignores the call's context deadline, so a call to a paused backend waits for as long as the pause lasts", Build: Build{Pause}},
		{Name: "no-reconnect", Breaks: []string{RuleRecover}, Defect: "keeps the first backend error it meets and answers it to every later call, as a client that never reconnects", Build: Build{Pause}},
	}
}

// Mutate returns h with the named mutant's defect in every store it opens. h must be a
// harness.FaultInjector; the result is one too, delegating the faults to h.
func Mutate(h harness.Harness, name string) (harness.Harness, error) {
	inj, ok := h.(harness.FaultInjector)
	if !ok {
		return nil, ErrNoFaults
	}
	for _, m := range Mutants() {
		if m.Name == name {
			return &mutantHarness{Harness: h, FaultInjector: inj, m: m}, nil
		}
	}
	return nil, fmt.Errorf("faults: no mutant %q", name)
}

type mutantHarness struct {
	harness.Harness
	harness.FaultInjector
	m mutant.Mutant[Build]
}

func (h *mutantHarness) Name() string { return h.Harness.Name() + " mutant:" + h.m.Name }

func (h *mutantHarness) Open(ctx context.Context, clock reference.Clock) (harness.Namespace, error) {
	ns, err := h.Harness.Open(ctx, clock)
	if err != nil {
		return nil, err
	}
	return &mutantNamespace{Namespace: ns, m: h.m}, nil
}

type mutantNamespace struct {
	harness.Namespace
	m mutant.Mutant[Build]

	mu     sync.Mutex
	queues []*queue
}

func (n *mutantNamespace) newDefect() *defect {
	d := &defect{name: n.m.Name}
	if n.m.Name == "async-write" {
		d.q = newQueue()
		n.mu.Lock()
		n.queues = append(n.queues, d.q)
		n.mu.Unlock()
	}
	return d
}

func (n *mutantNamespace) Legacy(ctx context.Context) (legacy.Store, error) {
	s, err := n.Namespace.Legacy(ctx)
	if err != nil {
		return nil, err
	}
	return &mutantLegacy{s: s, d: n.newDefect()}, nil
}

func (n *mutantNamespace) Modern(ctx context.Context) (modern.Store, error) {
	s, err := n.Namespace.Modern(ctx)
	if err != nil {
		return nil, err
	}
	return &mutantModern{s: s, d: n.newDefect()}, nil
}

func (n *mutantNamespace) Close(ctx context.Context) error {
	n.mu.Lock()
	for _, q := range n.queues {
		q.close()
	}
	n.mu.Unlock()
	return n.Namespace.Close(ctx)
}

// defect is one store instance's defect.
type defect struct {
	name string
	q    *queue

	mu     sync.Mutex
	broken error // no-reconnect: the first error, answered for ever

	okAt atomic.Int64 // retry-after-error: when a call last succeeded (Unix ns)
}

// retryDelay is how long after the backend answers again retry-after-error replays a
// failed write: longer than a worker's read-back backoff (at most 1s), shorter than
// Config.After, so the read sees the write absent and the final read sees it applied.
const retryDelay = 2 * time.Second

// stuck returns the error a store that never reconnects keeps answering, or nil.
func (d *defect) stuck() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.broken
}

func (d *defect) remember(err error) {
	if err == nil || d.name != "no-reconnect" {
		return
	}
	// A store's own answers are not a lost connection.
	for _, sentinel := range []error{reference.ErrNotFound, reference.ErrExists, reference.ErrConflict, reference.ErrInvalid} {
		if errors.Is(err, sentinel) {
			return
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.broken == nil {
		d.broken = fmt.Errorf("store connection lost: %w", err)
	}
}

// write runs fn, a real write of the store, under the defect d; ack is what an
// asynchronous store answers at once.
func write[T any](ctx context.Context, d *defect, ack T, fn func(ctx context.Context) (T, error)) (T, error) {
	bare := func(ctx context.Context) error {
		_, err := fn(ctx)
		return err
	}
	switch d.name {
	case "async-write":
		d.q.push(bare)
		return ack, nil
	case "retry-after-error":
		v, err := read(ctx, d, fn) // a success is recorded: the replay waits for one
		if err != nil {
			failedAt := time.Now().UnixNano()
			// Like a client-side retry queue that replays failed writes a moment after
			// the backend answers again: the caller has been told the write failed and
			// may already have read the task without it.
			go func() {
				for i := 0; d.okAt.Load() < failedAt && i < 2400; i++ { // 2 min at most
					time.Sleep(50 * time.Millisecond)
				}
				time.Sleep(retryDelay)
				for range 60 {
					rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					err := bare(rctx)
					cancel()
					if err == nil {
						return
					}
					time.Sleep(time.Second)
				}
			}()
		}
		return v, err
	}
	// Otherwise a write is struck as a read is.
	return read(ctx, d, fn)
}

// read runs fn, a read of the store, under the defect d: the hanging client hangs on
// reads too, and the one that never reconnects fails them.
func read[T any](ctx context.Context, d *defect, fn func(ctx context.Context) (T, error)) (T, error) {
	switch d.name {
	case "retry-after-error":
		v, err := fn(ctx)
		if err == nil {
			d.okAt.Store(time.Now().UnixNano())
		}
		return v, err
	case "hang-on-pause":
		return fn(context.WithoutCancel(ctx))
	case "no-reconnect":
		if err := d.stuck(); err != nil {
			var zero T
			return zero, err
		}
		v, err := fn(ctx)
		d.remember(err)
		return v, err
	}
	return fn(ctx)
}

// queue writes in order, in the background, dropping a write that fails.
type queue struct {
	ch   chan func(ctx context.Context) error
	once sync.Once
}

func newQueue() *queue {
	q := &queue{ch: make(chan func(ctx context.Context) error, 1<<16)}
	go func() {
		for fn := range q.ch {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = fn(ctx)
			cancel()
		}
	}()
	return q
}

func (q *queue) push(fn func(ctx context.Context) error) { q.ch <- fn }
func (q *queue) close()                                  { q.once.Do(func() { close(q.ch) }) }

type mutantLegacy struct {
	s legacy.Store
	d *defect
}

func (m *mutantLegacy) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	return write(ctx, m.d, meta, func(ctx context.Context) (legacy.Task, error) { return m.s.Create(ctx, id, meta) })
}

func (m *mutantLegacy) Get(ctx context.Context, id string) (legacy.Task, error) {
	return read(ctx, m.d, func(ctx context.Context) (legacy.Task, error) { return m.s.Get(ctx, id) })
}

func (m *mutantLegacy) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	return write(ctx, m.d, changes, func(ctx context.Context) (legacy.Task, error) { return m.s.Update(ctx, id, changes) })
}

func (m *mutantLegacy) Delete(ctx context.Context, id string) error {
	_, err := write(ctx, m.d, struct{}{}, func(ctx context.Context) (struct{}, error) { return struct{}{}, m.s.Delete(ctx, id) })
	return err
}

func (m *mutantLegacy) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	return read(ctx, m.d, func(ctx context.Context) ([]legacy.Task, error) { return m.s.List(ctx, opts) })
}

type mutantModern struct {
	s modern.Store
	d *defect
}

func (m *mutantModern) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	ack := task.Clone()
	ack.Version = 1
	return write(ctx, m.d, ack, func(ctx context.Context) (modern.Task, error) { return m.s.Create(ctx, task) })
}

func (m *mutantModern) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	return read(ctx, m.d, func(ctx context.Context) (modern.Task, error) { return m.s.Get(ctx, id, caller) })
}

func (m *mutantModern) Swap(ctx context.Context, caller reference.Caller, expectedVersion int64, next modern.Task) (modern.Task, error) {
	ack := next.Clone()
	ack.Version = expectedVersion + 1
	return write(ctx, m.d, ack, func(ctx context.Context) (modern.Task, error) { return m.s.Swap(ctx, caller, expectedVersion, next) })
}

func (m *mutantModern) Delete(ctx context.Context, id string) error {
	_, err := write(ctx, m.d, struct{}{}, func(ctx context.Context) (struct{}, error) { return struct{}{}, m.s.Delete(ctx, id) })
	return err
}

func (m *mutantModern) Sweep(ctx context.Context) (int, error) {
	return read(ctx, m.d, func(ctx context.Context) (int, error) { return m.s.Sweep(ctx) })
}
