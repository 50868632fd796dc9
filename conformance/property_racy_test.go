package conformance

import (
	"context"
	"runtime"
	"time"

	memharness "github.com/storecheck/storecheck/adapters/memstore"
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
