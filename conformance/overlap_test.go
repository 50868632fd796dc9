package conformance

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/facadespecs"
	"github.com/storecheck/storecheck/conformance/legacyspecs"
	"github.com/storecheck/storecheck/conformance/modernspecs"
	"github.com/storecheck/storecheck/conformance/property"
	"github.com/storecheck/storecheck/conformance/report"

	"github.com/storecheck/storecheck/adapters/memharness"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/modern"
)

func TestOverlapCounting(t *testing.T) {
	spans := []battery.Span{
		{Client: 0, Task: "a", Call: 0, Ret: 10},
		{Client: 1, Task: "a", Call: 5, Ret: 15},  // overlaps the first
		{Client: 1, Task: "a", Call: 20, Ret: 30}, // alone
		{Client: 2, Task: "b", Call: 0, Ret: 30},  // another task: no overlap counts
		{Client: 0, Task: "a", Call: 10, Ret: 12}, // same client as the first; overlaps client 1's first call
		{Client: 3, Task: "a", Call: 30, Ret: 40}, // touches the alone one: no overlap
	}
	if got := battery.Overlapping(spans); got != 3 {
		t.Errorf("overlapping = %d, want 3 (calls 1, 2 and 5)", got)
	}
	if got := battery.PeakOf(spans); got != 3 {
		t.Errorf("peak = %d, want 3 (at time 5..10: two on a, one on b)", got)
	}
	if got := battery.Overlapping([]battery.Span{{Client: 0, Task: "a", Call: 0, Ret: 10}, {Client: 0, Task: "a", Call: 5, Ret: 15}}); got != 0 {
		t.Errorf("one client's own calls count as overlapping: %d", got)
	}
	s := report.OverlapStats{Ops: 100, OverlappingOps: 64, Share: 0.64, PeakInFlight: 2, MinOverlapping: 64, MinInFlight: 2}
	if !s.Conclusive() {
		t.Errorf("%v should be conclusive", s)
	}
	s.PeakInFlight = 1
	if s.Conclusive() {
		t.Errorf("%v should not be conclusive (peak 1)", s)
	}
}

// serialHarness is memstore behind a transport that carries one call at a time: every
// call holds one lock, and the harness reports (as the wire client does) how many calls
// were at the store at once. The battery's clients cannot overlap at the store through
// it, so every race check must say inconclusive, not passed.
type serialHarness struct {
	mu        sync.Mutex
	peak, cur int
}

func (h *serialHarness) Name() string { return "memstore behind a serial transport" }
func (h *serialHarness) Capabilities() harness.Capabilities {
	return legacyModernOnly(memharness.Harness().Capabilities())
}

func (h *serialHarness) Open(ctx context.Context, clock reference.Clock) (harness.Namespace, error) {
	s := memstore.New(memstore.WithClock(clock))
	return serialNamespace{h, s}, nil
}

// PeakInFlight implements harness.InFlightGauge.
func (h *serialHarness) PeakInFlight() int {
	p := h.peak
	h.peak = 0
	return p
}

// one runs a call alone at the store.
func (h *serialHarness) one(f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cur++
	h.peak = max(h.peak, h.cur)
	defer func() { h.cur-- }()
	f()
}

type serialNamespace struct {
	h *serialHarness
	s *memstore.Store
}

func (n serialNamespace) Legacy(context.Context) (legacy.Store, error) {
	return serialLegacy{n.h, n.s.Legacy()}, nil
}
func (n serialNamespace) Modern(context.Context) (modern.Store, error) {
	return serialModern{n.h, n.s.Modern()}, nil
}
func (n serialNamespace) Close(context.Context) error { return nil }

type serialLegacy struct {
	h *serialHarness
	s legacy.Store
}

func (l serialLegacy) Create(ctx context.Context, id string, meta legacy.Task) (t legacy.Task, err error) {
	l.h.one(func() { t, err = l.s.Create(ctx, id, meta) })
	return
}
func (l serialLegacy) Get(ctx context.Context, id string) (t legacy.Task, err error) {
	l.h.one(func() { t, err = l.s.Get(ctx, id) })
	return
}
func (l serialLegacy) Update(ctx context.Context, id string, ch legacy.Task) (t legacy.Task, err error) {
	l.h.one(func() { t, err = l.s.Update(ctx, id, ch) })
	return
}
func (l serialLegacy) Delete(ctx context.Context, id string) (err error) {
	l.h.one(func() { err = l.s.Delete(ctx, id) })
	return
}
func (l serialLegacy) List(ctx context.Context, o legacy.ListOptions) (ts []legacy.Task, err error) {
	l.h.one(func() { ts, err = l.s.List(ctx, o) })
	return
}

type serialModern struct {
	h *serialHarness
	s modern.Store
}

func (m serialModern) Create(ctx context.Context, t modern.Task) (got modern.Task, err error) {
	m.h.one(func() { got, err = m.s.Create(ctx, t) })
	return
}
func (m serialModern) Get(ctx context.Context, id string, c reference.Caller) (got modern.Task, err error) {
	m.h.one(func() { got, err = m.s.Get(ctx, id, c) })
	return
}
func (m serialModern) Swap(ctx context.Context, c reference.Caller, v int64, next modern.Task) (got modern.Task, err error) {
	m.h.one(func() { got, err = m.s.Swap(ctx, c, v, next) })
	return
}
func (m serialModern) Delete(ctx context.Context, id string) (err error) {
	m.h.one(func() { err = m.s.Delete(ctx, id) })
	return
}
func (m serialModern) Sweep(ctx context.Context) (n int, err error) {
	m.h.one(func() { n, err = m.s.Sweep(ctx) })
	return
}

// overlapOf runs a concurrent check and returns what it measured and whether it said
// inconclusive.
func overlapOf(t *testing.T, h harness.Harness, rule string, opts battery.Options, check func(*battery.Env)) (report.OverlapStats, []string) {
	t.Helper()
	e := newPropEnv(t, h, rule, opts)
	for _, f := range runProp(e, check) {
		t.Errorf("%s: fault: %s", h.Name(), f)
	}
	if len(e.Overlaps) != 1 {
		t.Fatalf("%s: %d overlap reports, want 1", h.Name(), len(e.Overlaps))
	}
	return e.Overlaps[0], e.InconclusiveReasons
}

// TestSerialClientsAreInconclusive: a check whose calls cannot reach the store together
// says inconclusive; the same check against memstore directly measures overlap and
// passes.
func TestSerialClientsAreInconclusive(t *testing.T) {
	checks := []struct {
		rule  string
		check func(*battery.Env)
		pairs bool // every race has two clients at least, whatever the budget
	}{
		{"L-CONC-1", legacyspecs.DisjointUpdates, false},
		{"M-CREATE-1", modernspecs.ModernCreateRace, false},
		{"M-SWAP-4", func(e *battery.Env) {
			property.CheckHistories(e, "modern-per-task", func(i int, seed uint64) property.History { return property.ModernTaskHistory(e, i, seed) })
		}, false},
		{"M-F-FIN-2", facadespecs.FacadeFinRaces, true},
		{"M-F-FIN-2", property.ModernRaces, true},
	}
	for _, c := range checks {
		t.Run(c.rule, func(t *testing.T) {
			stats, why := overlapOf(t, &serialHarness{}, c.rule, battery.Options{Seed: 1}, c.check)
			if stats.PeakInFlight != 1 || len(why) == 0 || !strings.Contains(why[0], "did not overlap enough") {
				t.Errorf("serial transport: %v; inconclusive: %q (want peak 1 and inconclusive)", stats, why)
			}

			// One client: nothing can overlap, whatever the store (a check whose every race
			// has two clients at least still overlaps).
			if !c.pairs {
				stats, why = overlapOf(t, memharness.Harness(), c.rule, battery.Options{Seed: 1, Budget: battery.Budget{Goroutines: 1}}, c.check)
				if stats.OverlappingOps != 0 || len(why) == 0 {
					t.Errorf("one client: %v; inconclusive: %q (want no overlap, inconclusive)", stats, why)
				}
			}

			stats, why = overlapOf(t, memharness.Harness(), c.rule, battery.Options{Seed: 1}, c.check)
			t.Logf("memstore: %v", stats)
			if stats.Ops == 0 || stats.Histories == 0 || stats.PeakInFlight < 1 {
				t.Errorf("memstore: nothing measured: %v", stats)
			}
			if len(why) > 0 && stats.Conclusive() {
				t.Errorf("memstore: conclusive overlap %v but inconclusive: %q", stats, why)
			}
		})
	}
}

// panickyHarness is memstore whose legacy Update panics.
type panickyHarness struct{}

func (panickyHarness) Name() string { return "memstore whose Update panics" }
func (panickyHarness) Capabilities() harness.Capabilities {
	return legacyModernOnly(memharness.Harness().Capabilities())
}
func (panickyHarness) Open(ctx context.Context, clock reference.Clock) (harness.Namespace, error) {
	s := memstore.New(memstore.WithClock(clock))
	return panickyNamespace{s}, nil
}

type panickyNamespace struct{ s *memstore.Store }

func (n panickyNamespace) Legacy(context.Context) (legacy.Store, error) {
	return panickyLegacy{n.s.Legacy()}, nil
}
func (n panickyNamespace) Modern(context.Context) (modern.Store, error) { return n.s.Modern(), nil }
func (n panickyNamespace) Close(context.Context) error                  { return nil }

type panickyLegacy struct{ *memstore.Legacy }

func (panickyLegacy) Update(context.Context, string, legacy.Task) (legacy.Task, error) {
	panic("store bug: nil map in Update")
}

// TestClientPanicFailsTheSpec: a store that panics in a client goroutine does not take
// the process down; the panic, with the stack of the goroutine it happened in, is
// raised again in the spec's own goroutine, where Ginkgo records it as the spec's.
func TestClientPanicFailsTheSpec(t *testing.T) {
	e := newPropEnv(t, panickyHarness{}, "L-CONC-1", battery.Options{Seed: 1})
	var got any
	func() {
		defer func() { got = recover() }()
		legacyspecs.DisjointUpdates(e)
	}()
	msg, _ := got.(string)
	if !strings.Contains(msg, "store bug: nil map in Update") || !strings.Contains(msg, "goroutine stack of the panic") || !strings.Contains(msg, "panickyLegacy.Update") {
		t.Fatalf("recovered %v, want the store's panic with the stack of its goroutine", got)
	}
	if len(e.Overlaps) != 1 {
		t.Errorf("the check's overlap was not reported on the way out (%d reports)", len(e.Overlaps))
	}
}

// TestRoundsExtendUntilConclusive: a round-based check that has not overlapped enough
// after its base rounds runs more, stops as soon as it counts, and gives up (leaving it
// inconclusive) after ExtendRounds times its base when its clients never meet.
func TestRoundsExtendUntilConclusive(t *testing.T) {
	serial := []battery.Span{{Client: 0, Task: "t", Call: 0, Ret: 10}, {Client: 1, Task: "t", Call: 20, Ret: 30}}
	var together []battery.Span
	for c := range 40 {
		together = append(together, battery.Span{Client: c % 2, Task: "t", Call: 100, Ret: 200})
	}
	for _, tc := range []struct {
		name     string
		meetFrom int // the first round whose clients overlap; -1 for never
		want     int // rounds run
	}{
		{"conclusive from the start", 0, 4},   // 160 overlapping calls in the base rounds
		{"conclusive after the base", 10, 12}, // rounds 10 and 11 bring 80 overlapping calls
		{"never conclusive", -1, 4 * battery.ExtendRounds},
	} {
		e := newPropEnv(t, memharness.Harness(), "S-CONC-1", battery.Options{Seed: 1})
		m := e.Meter()
		n := 0
		for r := range m.Rounds(4) {
			n++
			if tc.meetFrom >= 0 && r >= tc.meetFrom {
				m.Add(together)
			} else {
				m.Add(serial)
			}
		}
		stats := m.Done()
		if n != tc.want || stats.Conclusive() != (tc.meetFrom >= 0) {
			t.Errorf("%s: %d rounds, conclusive %v (%v); want %d rounds, conclusive %v", tc.name, n, stats.Conclusive(), stats, tc.want, tc.meetFrom >= 0)
		}
	}
}

// TestConclusiveByCount: a check counts from MinOverlapping overlapping calls, whatever
// their share, with a peak of at least MinInFlight.
func TestConclusiveByCount(t *testing.T) {
	for _, tc := range []struct {
		s    report.OverlapStats
		want bool
	}{
		{report.OverlapStats{Ops: 100000, OverlappingOps: battery.MinOverlapping, PeakInFlight: 2}, true},
		{report.OverlapStats{Ops: 100000, OverlappingOps: battery.MinOverlapping - 1, PeakInFlight: 2}, false},
		{report.OverlapStats{Ops: 100, OverlappingOps: battery.MinOverlapping - 1, PeakInFlight: 8}, false},
		{report.OverlapStats{Ops: 100, OverlappingOps: 100, PeakInFlight: 1}, false},
		{report.OverlapStats{}, false},
	} {
		tc.s.MinOverlapping, tc.s.MinInFlight = battery.MinOverlapping, battery.MinInFlight
		if tc.s.Ops > 0 {
			tc.s.Share = float64(tc.s.OverlappingOps) / float64(tc.s.Ops)
		}
		if got := tc.s.Conclusive(); got != tc.want {
			t.Errorf("%v: Conclusive() = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// legacyModernOnly drops the SDK profile from memstore's capabilities, for harnesses
// that wrap memstore's two eras only.
func legacyModernOnly(c harness.Capabilities) harness.Capabilities {
	c.SDK = false
	return c
}

// TestRoundsYieldToTheSpecTimeout: a check whose rounds would outlast its spec stops
// starting rounds once a quarter of the spec's time is left (so what ran is judged, not
// cut off by the timeout), and runs every base round when there is time.
func TestRoundsYieldToTheSpecTimeout(t *testing.T) {
	count := func(deadline time.Time, base int, each time.Duration) int {
		e := &battery.Env{Ctx: context.Background(), Opts: battery.Options{SpecTimeout: 400 * time.Millisecond}, Deadline: deadline}
		m := &battery.OverlapMeter{Env: e}
		n := 0
		for range m.Rounds(base) {
			n++
			time.Sleep(each)
		}
		return n
	}
	if n := count(time.Now().Add(400*time.Millisecond), 1000, 10*time.Millisecond); n < 2 || n > 31 {
		t.Errorf("1000 rounds of 10 ms in a 400 ms spec: ran %d rounds, want them to stop by 300 ms", n)
	}
	if n := count(time.Time{}, 5, 0); n < 5 {
		t.Errorf("no deadline: ran %d of 5 base rounds", n)
	}
}

// TestRoundsStopOnTheirTimeBudget: past Budget.RaceTime a check stops once it has run
// MinRaceRounds rounds with BudgetOverlapping overlapping calls, recording the rounds it
// planned; one whose calls seldom meet runs every planned round, and so does every check
// without a budget.
func TestRoundsStopOnTheirTimeBudget(t *testing.T) {
	serial := []battery.Span{{Client: 0, Task: "t", Call: 0, Ret: 10}, {Client: 1, Task: "t", Call: 20, Ret: 30}}
	var together []battery.Span
	for c := range 40 {
		together = append(together, battery.Span{Client: c % 2, Task: "t", Call: 100, Ret: 200})
	}
	pair := []battery.Span{{Client: 0, Task: "t", Call: 0, Ret: 10}, {Client: 1, Task: "t", Call: 5, Ret: 15}}
	const base = 100
	for _, tc := range []struct {
		name     string
		budget   time.Duration
		meetFrom int
		want     int
	}{
		{"overlapping from the start", 20 * time.Millisecond, 0, battery.MinRaceRounds},
		{"overlapping late", 20 * time.Millisecond, 60, 67}, // seven rounds of 40 overlapping calls reach 256
		{"no budget", 0, 0, base},
		{"seldom overlapping", 20 * time.Millisecond, -1, base}, // 2 overlapping calls a round: conclusive, never 256
		{"over the wire", 20 * time.Millisecond, 0, base},
	} {
		e := &battery.Env{Ctx: context.Background(), Opts: battery.Options{Budget: battery.Budget{RaceTime: tc.budget}}}
		if tc.name == "over the wire" {
			e.Harness = gauged{memharness.Harness()}
		}
		m := e.Meter()
		n := 0
		for r := range m.Rounds(base) {
			n++
			time.Sleep(time.Millisecond)
			switch {
			case tc.meetFrom < 0:
				m.Add(pair)
			case r >= tc.meetFrom:
				m.Add(together)
			default:
				m.Add(serial)
			}
		}
		stats := m.Done()
		wantPlanned := 0
		if tc.want < base {
			wantPlanned = base
		}
		if n != tc.want || !stats.Conclusive() || stats.PlannedRounds != wantPlanned {
			t.Errorf("%s: %d rounds, conclusive %v, planned %d (%v); want %d rounds, conclusive, planned %d", tc.name, n, stats.Conclusive(), stats.PlannedRounds, stats, tc.want, wantPlanned)
		}
	}
}

// TestWireRoundsRunForWireRaceTime: over the wire a conclusive check that has found no
// fault runs past its base rounds until Budget.WireRaceTime has passed; one that found a
// fault, one whose base rounds took longer, one in process, and one without the budget
// stop at their base.
func TestWireRoundsRunForWireRaceTime(t *testing.T) {
	var together []battery.Span
	for c := range 40 {
		together = append(together, battery.Span{Client: c % 2, Task: "t", Call: 100, Ret: 200})
	}
	const base, fast, min = 4, time.Millisecond, 60 * time.Millisecond
	for _, tc := range []struct {
		name     string
		wire     bool
		budget   time.Duration
		each     time.Duration // a round's time
		faultAt  int           // the round that records a fault; -1 for none
		extended bool
	}{
		{"over the wire", true, min, fast, -1, true},
		{"over the wire, a fault found", true, min, fast, 1, false},
		{"over the wire, base rounds past the budget", true, min, 20 * time.Millisecond, -1, false},
		{"over the wire, no budget", true, 0, fast, -1, false},
		{"in process", false, min, fast, -1, false},
	} {
		e := &battery.Env{Ctx: context.Background(), Opts: battery.Options{Budget: battery.Budget{WireRaceTime: tc.budget}}}
		if tc.wire {
			e.Harness = gauged{memharness.Harness()}
		}
		m := e.Meter()
		n, start := 0, time.Now()
		for r := range m.Rounds(base) {
			n++
			time.Sleep(tc.each)
			m.Add(together)
			if r == tc.faultAt {
				e.Errorf("a fault in round %d", r)
			}
		}
		took := time.Since(start)
		m.Done()
		switch {
		case tc.extended && (took < min || n <= base):
			t.Errorf("%s: %d rounds in %v; want more than %d, for at least %v", tc.name, n, took, base, min)
		case !tc.extended && n != base:
			t.Errorf("%s: %d rounds in %v; want the %d base rounds", tc.name, n, took, base)
		}
	}
}

// TestWireRoundsRunUntilTheChildHadItsCPU: over the wire, where the harness tells the
// child's processor time, a check runs past its wall-time minimum until the child has
// had WireRaceCPUShare of it in processor time: a child starved on a loaded machine
// (a tenth of a processor) runs on, one with a whole processor stops at the wall-time
// minimum, and one whose processor time is unknown keeps the wall-time minimum alone.
func TestWireRoundsRunUntilTheChildHadItsCPU(t *testing.T) {
	var together []battery.Span
	for c := range 40 {
		together = append(together, battery.Span{Client: c % 2, Task: "t", Call: 100, Ret: 200})
	}
	const base, min = 40, 100 * time.Millisecond // base: the round cap (ExtendRounds times it) is not what stops it
	need := time.Duration(float64(min) * battery.WireRaceCPUShare)
	for _, tc := range []struct {
		name     string
		share    float64 // the child's processor time per wall second
		known    bool
		from, to time.Duration // how long the check must run
	}{
		{"a starved child", 0.1, true, time.Duration(float64(need) / 0.1), 3 * time.Duration(float64(need)/0.1)},
		{"a child with a processor", 1, true, min, 3 * min},
		{"processor time unknown", 0.1, false, min, 3 * min},
	} {
		stalls := battery.WatchStalls() // a loaded machine stretches the run; its stalls are not the check's
		started := time.Now()
		g := &cpuGauged{gauged: gauged{memharness.Harness()}, share: tc.share, known: tc.known, since: started}
		e := &battery.Env{Ctx: context.Background(), Opts: battery.Options{Budget: battery.Budget{WireRaceTime: min}}, Harness: g}
		m := e.Meter()
		for range m.Rounds(base) {
			time.Sleep(time.Millisecond)
			m.Add(together)
		}
		m.Done()
		took := time.Since(started)
		stalled := stalls.Stalled()
		stalls.Stop()
		if took < tc.from || took-stalled > tc.to {
			t.Errorf("%s: ran %v, %v of it with this process stalled; want between %v and %v (wall minimum %v, processor time %v at %.0f%% of a processor)",
				tc.name, took, stalled, tc.from, tc.to, min, need, 100*tc.share)
		}
	}
}

// cpuGauged is a gauged harness whose child has had share of a processor since since.
type cpuGauged struct {
	gauged
	share float64
	known bool
	since time.Time
}

func (g *cpuGauged) StoreCPU() (time.Duration, bool) {
	return time.Duration(float64(time.Since(g.since)) * g.share), g.known
}

// gauged is a harness that counts requests in flight, as the wire client does.
type gauged struct{ harness.Harness }

func (gauged) PeakInFlight() int { return 8 }

// TestRoundsStopEarlierWhenNearlyEveryCallMeets: a check whose calls overlap in
// MeetingShare of them stops once MeetingOverlapping of its calls overlapped, long before
// its time budget; one whose calls meet in half of them runs on to its whole budget,
// judged by the time it stopped at, which a loaded machine does not move below the
// budget.
func TestRoundsStopEarlierWhenNearlyEveryCallMeets(t *testing.T) {
	var together, half []battery.Span
	for c := range 40 {
		together = append(together, battery.Span{Client: c % 2, Task: "t", Call: 100, Ret: 200})
		half = append(half, battery.Span{Client: c % 2, Task: "t", Call: 100, Ret: 200},
			battery.Span{Client: c % 2, Task: "t", Call: int64(1000 + 20*c), Ret: int64(1010 + 20*c)})
	}
	const base, budget = 1_000_000, 300 * time.Millisecond
	meetingRounds := max(battery.MinRaceRounds, (battery.MeetingOverlapping+39)/40)
	for _, tc := range []struct {
		name   string
		spans  []battery.Span
		rounds int           // the rounds it must stop after, or 0: any
		from   time.Duration // when it may stop at the earliest
	}{
		{"every call meets", together, meetingRounds, 0},
		{"half the calls meet", half, 0, budget},
	} {
		e := &battery.Env{Ctx: context.Background(), Opts: battery.Options{Budget: battery.Budget{RaceTime: budget}}}
		m := e.Meter()
		n, start := 0, time.Now()
		for range m.Rounds(base) {
			n++
			time.Sleep(time.Millisecond)
			m.Add(tc.spans)
		}
		took := time.Since(start)
		stats := m.Done()
		if took < tc.from || (tc.rounds > 0 && n != tc.rounds) || n < battery.MinRaceRounds || !stats.Conclusive() || stats.PlannedRounds != base {
			t.Errorf("%s (share %.2f): stopped after %v and %d rounds, conclusive %v, planned %d; want a stop after %d rounds (0: any), not before %v, at least %d rounds, conclusive, planned %d",
				tc.name, stats.Share, took, n, stats.Conclusive(), stats.PlannedRounds, tc.rounds, tc.from, battery.MinRaceRounds, base)
		}
	}
}

// TestRoundsEndAtTheStoresLimit: a store that refuses a race check's setup Create at its
// declared limit (ErrLimitReached) while the check runs rounds past its base ends the
// rounds, and the check is inconclusive with that cause, never a fault of the rule; the
// same refusal within the base rounds stays a fault.
func TestRoundsEndAtTheStoresLimit(t *testing.T) {
	const base = 3
	full := fmt.Errorf("%w: the table holds 10000 rows", reference.ErrLimitReached)
	serial := []battery.Span{{Client: 0, Task: "t", Call: 0, Ret: 10}, {Client: 1, Task: "t", Call: 20, Ret: 30}}
	run := func(refuseAt int) (*battery.Env, int, any) {
		e := &battery.Env{Ctx: context.Background()}
		m := e.Meter()
		n := 0
		stop := func() (stopped any) {
			defer func() { stopped = recover() }()
			for r := range m.Rounds(base) {
				n++
				if r == refuseAt && !e.CheckErr(full, nil, `setup: Create("x")`) {
					return nil
				}
				m.Add(serial)
			}
			return nil
		}()
		return e, n, stop
	}
	e, n, stop := run(base + 2)
	if stop == nil || len(e.Faults()) > 0 || n != base+3 {
		t.Errorf("refused in an extra round: stopped by %v after %d rounds with faults %v; want the rounds ended in round %d, no fault", stop, n, e.Faults(), base+3)
	}
	if len(e.InconclusiveReasons) != 1 || !strings.Contains(e.InconclusiveReasons[0], "refused Create at its limit") {
		t.Errorf("refused in an extra round: inconclusive reasons %q, want the limit named", e.InconclusiveReasons)
	}
	e, n, stop = run(1)
	if stop != nil || len(e.Faults()) != 1 || n != 2 {
		t.Errorf("refused in a base round: stopped by %v after %d rounds with faults %v; want one fault in round 2", stop, n, e.Faults())
	}
}
