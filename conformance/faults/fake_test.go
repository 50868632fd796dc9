package faults

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/modern"
)

// gate is an in-process backend that can be taken away: paused, every call waits for
// the unpause or its context; killed, every call fails at once. Its data (a memstore)
// survives, as a durable backend's would.
type gate struct {
	mu      sync.Mutex
	paused  chan struct{} // closed on unpause; nil when running
	down    bool
	backend *memstore.Store
}

var errDown = errors.New("gate: backend down")

func (g *gate) enter(ctx context.Context) error {
	g.mu.Lock()
	p, down := g.paused, g.down
	g.mu.Unlock()
	if down {
		return errDown
	}
	if p != nil {
		select {
		case <-p:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return ctx.Err()
}

func (g *gate) Pause(context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.paused = make(chan struct{})
	return nil
}

func (g *gate) Unpause(context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	close(g.paused)
	g.paused = nil
	return nil
}

func (g *gate) Kill(context.Context) error    { g.mu.Lock(); g.down = true; g.mu.Unlock(); return nil }
func (g *gate) Restart(context.Context) error { g.mu.Lock(); g.down = false; g.mu.Unlock(); return nil }
func (g *gate) Durability() harness.Durability {
	return harness.Durability{Setting: "in-process, kept across kills"}
}

// gateHarness is a fault-injectable harness over one gate; each Open is a fresh memstore.
type gateHarness struct{ *gate }

func (h gateHarness) Name() string { return "gate" }
func (h gateHarness) Capabilities() harness.Capabilities {
	return harness.Capabilities{Legacy: true, Modern: true, Clock: true, Shared: true}
}

func (h gateHarness) Open(ctx context.Context, clock reference.Clock) (harness.Namespace, error) {
	h.mu.Lock()
	h.backend = memstore.New(memstore.WithClock(clock))
	h.mu.Unlock()
	return gateNamespace{h.gate}, nil
}

type gateNamespace struct{ g *gate }

func (n gateNamespace) Legacy(context.Context) (legacy.Store, error) {
	return gatedLegacy{n.g, n.g.backend.Legacy()}, nil
}
func (n gateNamespace) Modern(context.Context) (modern.Store, error) {
	return gatedModern{n.g, n.g.backend.Modern()}, nil
}
func (n gateNamespace) Close(context.Context) error { return nil }

type gatedLegacy struct {
	g *gate
	s legacy.Store
}

func (l gatedLegacy) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	if err := l.g.enter(ctx); err != nil {
		return nil, err
	}
	return l.s.Create(ctx, id, meta)
}
func (l gatedLegacy) Get(ctx context.Context, id string) (legacy.Task, error) {
	if err := l.g.enter(ctx); err != nil {
		return nil, err
	}
	return l.s.Get(ctx, id)
}
func (l gatedLegacy) Update(ctx context.Context, id string, c legacy.Task) (legacy.Task, error) {
	if err := l.g.enter(ctx); err != nil {
		return nil, err
	}
	return l.s.Update(ctx, id, c)
}
func (l gatedLegacy) Delete(ctx context.Context, id string) error {
	if err := l.g.enter(ctx); err != nil {
		return err
	}
	return l.s.Delete(ctx, id)
}
func (l gatedLegacy) List(ctx context.Context, o legacy.ListOptions) ([]legacy.Task, error) {
	if err := l.g.enter(ctx); err != nil {
		return nil, err
	}
	return l.s.List(ctx, o)
}

type gatedModern struct {
	g *gate
	s modern.Store
}

func (m gatedModern) Create(ctx context.Context, t modern.Task) (modern.Task, error) {
	if err := m.g.enter(ctx); err != nil {
		return modern.Task{}, err
	}
	return m.s.Create(ctx, t)
}
func (m gatedModern) Get(ctx context.Context, id string, c reference.Caller) (modern.Task, error) {
	if err := m.g.enter(ctx); err != nil {
		return modern.Task{}, err
	}
	return m.s.Get(ctx, id, c)
}
func (m gatedModern) Swap(ctx context.Context, c reference.Caller, v int64, next modern.Task) (modern.Task, error) {
	if err := m.g.enter(ctx); err != nil {
		return modern.Task{}, err
	}
	return m.s.Swap(ctx, c, v, next)
}
func (m gatedModern) Delete(ctx context.Context, id string) error {
	if err := m.g.enter(ctx); err != nil {
		return err
	}
	return m.s.Delete(ctx, id)
}
func (m gatedModern) Sweep(ctx context.Context) (int, error) {
	if err := m.g.enter(ctx); err != nil {
		return 0, err
	}
	return m.s.Sweep(ctx)
}

// quick is a short run: the gate needs no time to come back.
var quick = Config{Before: 200 * time.Millisecond, Outage: 1500 * time.Millisecond, After: 200 * time.Millisecond,
	CallTimeout: 200 * time.Millisecond, Grace: 500 * time.Millisecond, RecoveryTimeout: 3 * time.Second, MinAcked: 20}

// TestRunHonestGate: an honest durable backend passes every rule in both faults.
func TestRunHonestGate(t *testing.T) {
	r, err := Run(t.Context(), gateHarness{&gate{}}, quick)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	_ = r.Summary(&b)
	t.Log("\n" + b.String())
	if len(r.Faults) != 2 {
		t.Fatalf("%d faults run, want pause and kill", len(r.Faults))
	}
	for _, f := range r.Faults {
		if f.AckedChecked == 0 || f.Errors == 0 {
			t.Errorf("%s: %d acknowledged writes checked, %d errors: the fault was not exercised", f.Fault, f.AckedChecked, f.Errors)
		}
		for _, v := range f.Rules {
			want := Passed
			if v.ID == RuleDeclare && f.Fault == Pause {
				want = NotExercised // a pause is not a crash
			}
			if v.Outcome != want {
				t.Errorf("%s: %s %s, want %s: %v", f.Fault, v.ID, v.Outcome, want, v.Reasons)
			}
		}
	}
	if !r.OK() {
		t.Error("report not OK")
	}
}

// TestMutantsKilledOnGate: every fault mutant around the honest gate is killed by its
// rule.
func TestMutantsKilledOnGate(t *testing.T) {
	for _, m := range Mutants() {
		t.Run(m.Name, func(t *testing.T) {
			h, err := Mutate(gateHarness{&gate{}}, m.Name)
			if err != nil {
				t.Fatal(err)
			}
			cfg := quick
			cfg.Faults = []string{m.Build.Fault}
			if m.Name == "retry-after-error" {
				// The mutant replays a failed write retryDelay (2 s) after its first
				// success: the final read must come well after that.
				cfg.After = retryDelay + 1500*time.Millisecond
			}
			r, err := Run(t.Context(), h, cfg)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			_ = r.Summary(&b)
			if v := r.Faults[0].Verdict(m.Breaks[0]); v.Outcome != Failed {
				t.Errorf("mutant %s survived: %s %s\n%s", m.Name, m.Breaks[0], v.Outcome, b.String())
			}
			// Honest attribution: on the gate (no machine timing in the backend) the
			// defect breaks exactly the rules the mutant declares, and no other.
			if len(r.Faults[0].Rules) != 5 {
				t.Errorf("%d rules judged, want 5 (F-OUTAGE-1, F-RECOVER-1, F-DURABLE-1, F-ATOMIC-1, F-DECLARE-1)", len(r.Faults[0].Rules))
			}
			for _, v := range r.Faults[0].Rules {
				if failed := v.Outcome == Failed; failed != slices.Contains(m.Breaks, v.ID) {
					t.Errorf("mutant %s: %s %s, want it to fail exactly %v\n%s", m.Name, v.ID, v.Outcome, m.Breaks, b.String())
				}
			}
		})
	}
	if _, err := Mutate(gateHarness{&gate{}}, "no-such"); err == nil {
		t.Error("Mutate accepted an unknown mutant")
	}
	if _, err := Run(t.Context(), harness.InProcess("plain", harness.Capabilities{Legacy: true},
		func(reference.Clock) (legacy.Store, modern.Store) { return memstore.New().Legacy(), nil }), quick); !errors.Is(err, ErrNoFaults) {
		t.Errorf("Run on a harness without faults = %v, want ErrNoFaults", err)
	}
}
