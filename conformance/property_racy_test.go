package conformance

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/property"

	"github.com/storecheck/storecheck/adapters/memharness"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/modern"
)

// Racy stores for measuring the race checks: memstore with one operation split into a
// read and a later write, the window widened by yielding (as a network round trip
// would). Sequentially each is correct; only concurrency can show the defect.

type racyKind int

const (
	racyLostUpdate   racyKind = iota // legacy Update: read, yield, write the merged task
	racyCheckThenAct                 // legacy UpdateIf: read, check the status, yield, write
	racyCASNoCompare                 // modern Swap: read the version, yield, swap against it
)

var racyNames = map[racyKind]string{
	racyLostUpdate:   "racy lost update",
	racyCheckThenAct: "racy check-then-act",
	racyCASNoCompare: "racy CAS without version compare",
}

func yieldWindow() {
	runtime.Gosched()
	time.Sleep(20 * time.Microsecond)
}

type racyHarness struct{ kind racyKind }

func (h racyHarness) Name() string { return racyNames[h.kind] }
func (h racyHarness) Capabilities() harness.Capabilities {
	return legacyModernOnly(memharness.Harness().Capabilities())
}

func (h racyHarness) Open(ctx context.Context, clock reference.Clock) (harness.Namespace, error) {
	s := memstore.New(memstore.WithClock(clock))
	return racyNamespace{kind: h.kind, legacy: racyLegacy{Legacy: s.Legacy(), kind: h.kind}, modern: racyModern{Modern: s.Modern(), kind: h.kind}}, nil
}

type racyNamespace struct {
	kind   racyKind
	legacy racyLegacy
	modern racyModern
}

func (n racyNamespace) Legacy(context.Context) (legacy.Store, error) { return n.legacy, nil }
func (n racyNamespace) Modern(context.Context) (modern.Store, error) { return n.modern, nil }
func (n racyNamespace) Close(context.Context) error                  { return nil }

type racyLegacy struct {
	*memstore.Legacy
	kind racyKind
}

func (l racyLegacy) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	if l.kind != racyLostUpdate {
		return l.Legacy.Update(ctx, id, changes)
	}
	cur, err := l.Legacy.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	c, err := legacy.Normalize(changes)
	if err != nil {
		return nil, err
	}
	yieldWindow()
	// Writing back every key read overwrites what others wrote in between.
	return l.Legacy.Update(ctx, id, legacy.Merge(cur, c))
}

func (l racyLegacy) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	if l.kind != racyCheckThenAct {
		return l.Legacy.UpdateIf(ctx, id, allowed, changes)
	}
	cur, err := l.Legacy.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if !cur.StatusIn(allowed) {
		return nil, reference.ErrorFor(reference.ErrConflict, id)
	}
	yieldWindow()
	return l.Legacy.Update(ctx, id, changes)
}

type racyModern struct {
	*memstore.Modern
	kind racyKind
}

func (m racyModern) Swap(ctx context.Context, caller reference.Caller, expected int64, next modern.Task) (modern.Task, error) {
	if m.kind != racyCASNoCompare {
		return m.Modern.Swap(ctx, caller, expected, next)
	}
	cur, err := m.Modern.Get(ctx, next.TaskID, caller)
	if err != nil {
		return modern.Task{}, err
	}
	yieldWindow()
	return m.Modern.Swap(ctx, caller, cur.Version, next)
}

// realClockHarness is memstore on the real clock, declaring no clock control: the
// property checks must then draw only what real time cannot break.
type realClockHarness struct{}

func (realClockHarness) Name() string { return "memstore on the real clock" }
func (realClockHarness) Capabilities() harness.Capabilities {
	c := memharness.Harness().Capabilities()
	c.Clock, c.SDK = false, false
	return c
}
func (realClockHarness) Open(ctx context.Context, _ reference.Clock) (harness.Namespace, error) {
	return memharness.Harness().Open(ctx, reference.SystemClock{})
}

// underscoreHarness is memstore whose modern store refuses ids holding "_", as the
// strict-ids mutant does: an S-ID-2 fault that the facade's generated ids (base64url,
// "_" in about 3 of 10) meet or not depending on their bytes.
type underscoreHarness struct{ harness.Harness }

func (h underscoreHarness) Open(ctx context.Context, clk reference.Clock) (harness.Namespace, error) {
	ns, err := h.Harness.Open(ctx, clk)
	return underscoreNamespace{ns}, err
}

type underscoreNamespace struct{ harness.Namespace }

func (n underscoreNamespace) Modern(ctx context.Context) (modern.Store, error) {
	st, err := n.Namespace.Modern(ctx)
	return underscoreStore{st}, err
}

type underscoreStore struct{ modern.Store }

func (s underscoreStore) Create(ctx context.Context, t modern.Task) (modern.Task, error) {
	if strings.Contains(t.TaskID, "_") {
		return modern.Task{}, reference.ErrorFor(reference.ErrInvalid, "ids with _ are refused")
	}
	return s.Store.Create(ctx, t)
}

// TestReplayWithIDsTheStoreJudges: a store that treats an id by its bytes meets the same
// facade-made ids on both runs of a replay, so the modern machine's replay stays equal
// (B-REPRO-1) and the fault is the store's. With random ids the two runs met "_" at
// different steps, and B-REPRO-1 failed for the strict-ids mutant (stop 23's make test).
func TestReplayWithIDsTheStoreJudges(t *testing.T) {
	for seed := int64(1); seed <= 6; seed++ {
		e := newPropEnv(t, underscoreHarness{memharness.Harness()}, "B-REPRO-1", battery.Options{Seed: seed})
		for _, f := range runProp(e, func(e *battery.Env) {
			property.CheckReplay(e, "modern state machine", func(trace func(string)) property.RapidRun { return property.RunModernMachine(e, 3, trace) })
		}) {
			t.Errorf("seed %d: %s", seed, f)
		}
	}
}
